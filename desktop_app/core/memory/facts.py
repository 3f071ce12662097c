"""Facts about the person: added, confirmed, corrected and merged across near-duplicate keys.

`language` and `preferred_language` are one fact: keys are compared by their core words (filler such as
"preferred", "favourite", "main" left out, each word stemmed) or, for spelling variants, by a close string match.
The same value said again confirms a fact (newer, at least as confident); another value is a correction: a new
fact under the known key, and the old one stays, flagged outdated (superseded_by). Notes ("remember that …" with
no key of its own) never correct each other.
"""

from __future__ import annotations

import difflib
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from desktop_app.core.memory.extract import slug
from desktop_app.core.memory.rows import Fact, NewFact
from desktop_app.core.store.memory_rows import fact_title
from desktop_app.core.text.stem import stem

if TYPE_CHECKING:
    from desktop_app.core.store.base import MemoryFacts

FILLER = frozenset("preferred prefered favourite favorite fav primary main default current usual personal own "
                   "chosen go to".split())
SPELLING_RATIO = 0.88
NOTE_PREFIX = "note_"
DAY = 86400.0

Vectorise = Callable[[list[str]], list[bytes] | None]  # texts → float32 blobs, or None without an embedder


@dataclass(frozen=True)
class FactChange:
    """What adding a fact did: "added", "confirmed" (known already) or "corrected" (`replaced` is now outdated)."""

    fact: Fact
    action: str
    replaced: tuple[Fact, ...] = ()


def normalise_key(key: str) -> str:
    """The stored form of a key (`Preferred Language` → preferred_language); "fact" when nothing is left."""
    return slug(key.replace("_", " ")) or "fact"


def key_core(key: str) -> frozenset[str]:
    """The words that make a key what it is: filler left out, stemmed (`preferred_languages` → {languag})."""
    words = [w for w in normalise_key(key).split("_") if w]
    core = [w for w in words if w not in FILLER] or words
    return frozenset(stem(w) or w for w in core)


def same_key(a: str, b: str) -> bool:
    """Whether two keys name one fact (`language` / `preferred_language`, `colour` / `color`)."""
    if a.startswith(NOTE_PREFIX) or b.startswith(NOTE_PREFIX):
        return a == b
    ca, cb = key_core(a), key_core(b)
    if ca == cb:
        return True
    ja, jb = "_".join(sorted(ca)), "_".join(sorted(cb))
    return min(len(ja), len(jb)) >= 5 and difflib.SequenceMatcher(None, ja, jb).ratio() >= SPELLING_RATIO


def same_value(a: str, b: str) -> bool:
    """Values equal but for case and spacing."""
    return " ".join(a.casefold().split()) == " ".join(b.casefold().split())


def fact_text(key: str, value: str) -> str:
    """How a fact reads to the embedder and in excerpts: "preferred language: Thai"."""
    return f"{fact_title(key)}: {value}"


def age_text(seconds: float) -> str:
    """"today", "1d ago", "34d ago" (whole days)."""
    days = int(max(seconds, 0.0) // DAY)
    return "today" if days == 0 else f"{days}d ago"


class FactBook:
    """The person's facts in one library."""

    def __init__(self, sql: MemoryFacts, vectorise: Vectorise, clock: Callable[[], float] = time.time) -> None:
        self.sql = sql
        self.vectorise = vectorise
        self.clock = clock

    def add(self, new: NewFact) -> FactChange:
        """Remember a fact, merging it with what is known under the same (or a near-duplicate) key."""
        key = normalise_key(new.key)
        value = " ".join(new.value.split())
        new = replace(new, key=key, value=value)
        now = self.clock()
        known = [f for f in self.sql.facts(current_only=True) if same_key(f.key, key)]
        if key.startswith(NOTE_PREFIX):
            known = [f for f in known if same_value(f.value, value)]
        for fact in known:
            if same_value(fact.value, value):
                return FactChange(self._confirm(fact, new, now), "confirmed")
        if known:
            canonical = known[0]
            merged = _merged(canonical.merged_keys, canonical.key, key)
            fid = self._insert(replace(new, key=canonical.key), now, merged)
            for old in known:
                self.sql.supersede(old.id, fid)
            replaced = tuple(f for f in (self.sql.fact(old.id) for old in known) if f is not None)
            return FactChange(self._get(fid), "corrected", replaced)
        return FactChange(self._get(self._insert(new, now, ())), "added")

    def _confirm(self, fact: Fact, new: NewFact, now: float) -> Fact:
        merged = _merged(fact.merged_keys, fact.key, new.key)
        expires = new.expires_at if new.expires_at is not None else fact.expires_at
        self.sql.touch_fact(fact.id, now, max(fact.confidence, new.confidence), merged, expires)
        return self._get(fact.id)

    def _insert(self, new: NewFact, now: float, merged: tuple[str, ...]) -> int:
        blobs = self.vectorise([fact_text(new.key, new.value)])
        return self.sql.insert_fact(new, now, merged, blobs[0] if blobs else None)

    def _get(self, fact_id: int) -> Fact:
        fact = self.sql.fact(fact_id)
        if fact is None:  # written in this call: only a concurrent forget can get here
            raise LookupError(f"fact {fact_id} vanished")
        return fact

    def facts(self, *, include_outdated: bool = False, include_expired: bool = False) -> list[Fact]:
        """Known facts, newest first: current and unexpired ones unless asked for more."""
        now = self.clock()
        return [f for f in self.sql.facts(current_only=not include_outdated)
                if include_expired or not f.expired(now)]

    def find(self, key_or_id: str) -> list[Fact]:
        """Facts named by an id ("12") or a key (every value it had, near-duplicate spellings included)."""
        if key_or_id.strip().isdigit():
            fact = self.sql.fact(int(key_or_id))
            return [fact] if fact else []
        key = normalise_key(key_or_id)
        return [f for f in self.sql.facts() if same_key(f.key, key) or key in f.merged_keys]

    def with_key_word(self, words: str) -> list[Fact]:
        """Facts whose key holds every word of `words` (`locker` → locker_code), stemmed (`lockers` too)."""
        wanted = {stem(w) or w for w in normalise_key(words).split("_") if w}
        if not wanted or words.strip().isdigit():
            return []
        return [f for f in self.sql.facts()
                if wanted <= {stem(w) or w for key in (f.key, *f.merged_keys) for w in key.split("_") if w}]

    def embed_missing(self) -> int:
        """Give vectors to facts stored without one (no embedder then, or another model since)."""
        missing = self.sql.facts_without_vectors()
        if not missing:
            return 0
        blobs = self.vectorise([fact_text(f.key, f.value) for f in missing])
        if not blobs:
            return 0
        self.sql.set_fact_vectors((f.id, b) for f, b in zip(missing, blobs, strict=True))
        return len(missing)

    def similar(self, vector: np.ndarray, limit: int) -> list[tuple[int, float]]:
        """(fact id, cosine) of the facts nearest a query vector, best first (exact: a person has few facts)."""
        rows = self.sql.fact_vectors()
        if not rows or limit <= 0:
            return []
        matrix = np.stack([np.frombuffer(blob, dtype=np.float32) for _, blob in rows])
        if matrix.shape[1] != np.shape(vector)[-1]:
            return []
        sims = matrix @ np.asarray(vector, dtype=np.float32)
        order = np.argsort(-sims)[:limit]
        return [(rows[i][0], float(sims[i])) for i in order]


def _merged(merged: tuple[str, ...], canonical: str, key: str) -> tuple[str, ...]:
    return merged if key == canonical or key in merged else (*merged, key)
