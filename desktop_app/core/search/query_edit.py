"""Editing a query's filters as text: what the filters menu does to the search box.

The menu never keeps filters of its own: choosing `PDF` writes `type:pdf` into the query (replacing any `type:`
part already there), choosing "All types" takes every `type:` part out. The parser (query_language) stays the one
source of truth: what a picker shows is read back from the parsed text, and every edit is checked by parsing it.

A group is a filter key (`type`, `folder`, `lang`, `tag`, `file`) or `date`, which holds every date part (`after:`,
`before:`, `date:` and the relative `last month`, ...), since they narrow the same thing.
"""

from __future__ import annotations

from desktop_app.core.search.query_language import Chip, ChipKind, parse_query, without_chip

GROUPS = ("type", "folder", "lang", "tag", "file", "date")


def in_group(chip: Chip, group: str) -> bool:
    """Whether a (valid) chip is a filter of `group`."""
    if group == "date":
        return chip.kind == ChipKind.DATE
    return chip.kind == ChipKind.FILTER and chip.key == group


def group_values(text: str, group: str) -> list[str]:
    """The values of `group`'s filters in `text` as parsed (`type:md` gives "markdown"); for `date`, each part
    as typed (`after:2024-03`, `last month`)."""
    chips = [c for c in parse_query(text).chips if in_group(c, group)]
    return [c.text if group == "date" else c.value for c in chips]


def filter_term(key: str, value: str) -> str:
    """`key:value` as the query language reads it: quoted when the value holds white space."""
    value = " ".join(value.replace('"', " ").split())
    return f'{key}:"{value}"' if " " in value else f"{key}:{value}"


def set_group(text: str, group: str, term: str) -> str:
    """`text` with `group`'s filters replaced by `term` (one part of the syntax, e.g. `type:pdf`, `last month`);
    an empty `term` takes them all out. The other parts of the query stay as typed."""
    wanted = [term] if term else []
    for _ in range(3):  # taking a part out of `last type:pdf month` joins a date: that one goes on the next pass
        text = _set_once(text, group, term)
        if [c.text for c in parse_query(text).chips if in_group(c, group)] == wanted:
            break
    return text


def _set_once(text: str, group: str, term: str) -> str:
    chips = parse_query(text).chips
    mine = [c for c in chips if in_group(c, group)]
    others = [c.text for c in chips if not in_group(c, group)]
    if mine and term:  # in place of the first one, so a typed order is kept
        first = mine[0]
        edited = _without(text, mine[1:])
        edited = edited[: first.start] + term + edited[first.end :]
        if _reads_as(edited, group, term, others):
            return edited
    rest = _without(text, mine)
    if not term:
        return rest
    # In front: a token is read the same whatever comes before it, so the rest parses as it did (an unclosed quote
    # at the end would swallow a term appended after it).
    return f"{term} {rest}" if rest else term


def _without(text: str, chips: list[Chip]) -> str:
    for chip in sorted(chips, key=lambda c: c.start, reverse=True):  # from the end: earlier spans stay valid
        text = without_chip(text, chip)
    return text


def _reads_as(text: str, group: str, term: str, others: list[str]) -> bool:
    chips = parse_query(text).chips
    return [c.text for c in chips if in_group(c, group)] == [term] and \
        [c.text for c in chips if not in_group(c, group)] == others
