"""`trove ask` and `trove chats`: grounded chat from the command line (registered by cli.py)."""

from __future__ import annotations

import argparse
import json
import sys
import time

from desktop_app.cli.common import EXIT_OK, in_worker


def add_chat_commands(subparsers: argparse._SubParsersAction) -> None:
    """Register the `ask`, `summarize` and `chats` subcommands."""
    p = subparsers.add_parser("ask", help="ask a question; the answer cites passages from your documents")
    p.add_argument("question")
    p.add_argument("--no-context", action="store_true", help="ask the model alone, without passages from the library")
    p.add_argument(
        "--model", metavar="PATH", help="a GGUF model file (default: the model_path setting or the bundled one)"
    )
    p.add_argument("-k", type=int, metavar="N", help="passages to retrieve (default: the context_top_k setting)")
    p.add_argument("--chat", type=int, metavar="ID", help="continue chat ID (see `trove chats`)")
    p.add_argument("--max-tokens", type=int, metavar="N", help="longest answer, in tokens")
    p.add_argument(
        "--in",
        dest="scope",
        nargs="+",
        metavar="PATH",
        help="answer only from these files or folders (documents of the library under them)",
    )
    p.add_argument(
        "--ask-model",
        action="store_true",
        help="ask the model even when no passage seems to answer (by default Trove then says so without it)",
    )
    p.add_argument(
        "--show-generation",
        action="store_true",
        help="show the model's answer after the quote even when it would be hidden (small model, unsupported)",
    )
    p.add_argument("--json", action="store_true", help="print the answer, quote, citations and passages as JSON")
    p.set_defaults(func=cmd_ask)

    p = subparsers.add_parser(
        "summarize", aliases=["summarise"], help="summarise one indexed document, however long (progress on stderr)"
    )
    p.add_argument("path", metavar="PATH")
    p.add_argument(
        "--model", metavar="PATH", help="a GGUF model file (default: the model_path setting or the bundled one)"
    )
    p.add_argument("--max-tokens", type=int, metavar="N", help="longest summary of each step, in tokens")
    p.add_argument("--json", action="store_true", help="print the summary and how it was made as JSON")
    p.set_defaults(func=cmd_summarize)

    p = subparsers.add_parser("chats", help="list chat sessions, or show or delete one")
    p.add_argument("--show", type=int, metavar="ID", help="print the messages of chat ID")
    p.add_argument("--delete", type=int, metavar="ID", help="delete chat ID")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_chats)


def source_lines(answer) -> list[str]:
    """ "[n] path (p. N)" for each cited passage, or for every passage sent when the answer cites none; a fact
    from memory as "[n] fact: locker code → 4417 (…)"; then the past chats recalled as context (not evidence: they
    have no number and cannot be cited)."""
    from desktop_app.core.chat.answer.gate.citations import format_source_line

    passages = {p.n: p for p in answer.passages}
    lines = []
    for item in answer.citations or answer.passages:
        passage = passages.get(item.n)
        if passage is not None and passage.kind == "fact":
            lines.append(f"[{item.n}] fact: {' '.join(passage.content.split())}")
        else:
            lines.append(format_source_line(item))
    lines += [f"conversation (memory, not cited): {m.get('label', '')}" for m in getattr(answer, "memory", ())
              if m.get("context")]
    return lines


def _scope(paths) -> tuple[str, ...]:
    """The --in paths, absolute; each must exist (a typo would otherwise quietly answer from nothing)."""
    from pathlib import Path

    from desktop_app.core.errors import KnownError

    out = []
    for raw in paths or ():
        path = Path(raw).expanduser().resolve()
        if not path.exists():
            raise KnownError(f"No such file or folder: {path}")
        out.append(str(path))
    return tuple(out)


class AskPrinter:
    """Prints an answer as the person is shown it: the quote as soon as it is chosen, then the model's answer
    (streamed when there is no quote; after the quote only when it is kept), then the sources."""

    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet
        self.quoted = False
        self.streamed: list[str] = []

    def on_quote(self, quote) -> None:
        self.quoted = True
        if not self.quiet:
            print(quote.cited(), flush=True)

    def on_token(self, token) -> None:
        self.streamed.append(token.text)
        if not self.quiet and not self.quoted:
            sys.stdout.write(token.text if len(self.streamed) > 1 else token.text.lstrip())
            sys.stdout.flush()

    def finish(self, answer) -> None:
        if not self.quoted and not self.streamed:
            sys.stdout.write(answer.text)
        elif self.quoted and answer.generation_shown and answer.generation:
            sys.stdout.write(f"\n{answer.generation}")
        print(" [stopped]" if answer.cancelled else "")
        if self.quoted and answer.generation and not answer.generation_shown:
            print(f"(the model's answer is hidden: {answer.hidden_because}; see it with --show-generation)",
                  file=sys.stderr)
        if answer.hint:
            print(f"({answer.hint})", file=sys.stderr)


def cmd_ask(args, library) -> int:
    """Print the answer as shown (the quote first), then its sources."""
    printer = AskPrinter(quiet=args.json)
    scope = _scope(args.scope)
    answer = in_worker(
        lambda cancel: library.ask(
            args.question,
            chat_id=args.chat,
            use_context=not args.no_context,
            top_k=args.k,
            model_path=args.model,
            on_token=printer.on_token,
            on_quote=printer.on_quote,
            cancel=cancel,
            max_tokens=args.max_tokens,
            scope=scope,
            ask_model=args.ask_model,
            show_generation=True if args.show_generation else None,
        )
    )
    if args.json:
        print(json.dumps(answer_dict(answer), indent=2, ensure_ascii=False))
        return EXIT_OK
    printer.finish(answer)
    lines = source_lines(answer)
    if lines:
        print("\nSources:")
        for line in lines:
            print(line)
    print(f"(chat {answer.chat_id}; continue with --chat {answer.chat_id})", file=sys.stderr)
    return EXIT_OK


def cmd_summarize(args, library) -> int:
    """Print the summary; progress ("step 3 of 12") goes to stderr."""

    def on_progress(p) -> None:
        if not args.json:
            print(f"\rsummarising: step {p.done} of {p.total} ({p.stage})", end="", file=sys.stderr, flush=True)

    kwargs = {"max_tokens": args.max_tokens} if args.max_tokens else {}
    summary = in_worker(
        lambda cancel: library.summarize(
            args.path, model_path=args.model, on_progress=on_progress, cancel=cancel, **kwargs
        )
    )
    if args.json:
        print(json.dumps(summary.__dict__, indent=2, ensure_ascii=False))
        return EXIT_OK
    print(file=sys.stderr)
    print(summary.text + (" [stopped]" if summary.cancelled else ""))
    print(f"({summary.chunks} chunks, {summary.calls} model calls, {summary.rounds} rounds)", file=sys.stderr)
    return EXIT_OK


def answer_dict(answer) -> dict:
    """A JSON-ready view of a ChatAnswer."""
    return {
        "chat_id": answer.chat_id,
        "text": answer.text,
        "cancelled": answer.cancelled,
        "refused": answer.refused,
        "citations": [c.to_dict() for c in answer.citations],
        "passages": [p.to_dict() for p in answer.passages],
        "prompt_tokens": answer.prompt_tokens,
        "completion_tokens": answer.completion_tokens,
        "reused_prefix_tokens": answer.reused_prefix_tokens,
        "model": answer.model,
        "quote": answer.quote.to_dict() if answer.quote else None,
        "generation": answer.generation,
        "generation_shown": answer.generation_shown,
        "hidden_because": answer.hidden_because,
        "hint": answer.hint,
        "generation_citations": [c.to_dict() for c in answer.generation_citations],
        "abstained": answer.abstained,
        "quote_s": answer.quote_s,
        "ttft_s": answer.ttft_s,
        "memory": list(getattr(answer, "memory", ())),  # the fact list and recalled items memory injected
        "rows": list(answer.rows),  # a whole-library answer's table: one dict per cited document
    }


def cmd_chats(args, library) -> int:
    """List chats (newest first), or show / delete one."""
    chat = library.chat
    if args.delete is not None:
        if not chat.delete_chat(args.delete):
            from desktop_app.core.chat.sessions import ChatNotFoundError

            raise ChatNotFoundError(f"No chat with id {args.delete}.")
        print(f"deleted chat {args.delete}")
        return EXIT_OK
    if args.show is not None:
        return _show_chat(args, chat)
    chats = chat.list_chats()
    if args.json:
        print(json.dumps([c.__dict__ for c in chats], indent=2, ensure_ascii=False))
    elif not chats:
        print('no chats yet: trove ask "a question"')
    for c in chats if not args.json else []:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(c.updated_at))
        print(f"{c.id:>4}  {when}  {c.message_count:>3} messages  {c.title}")
    return EXIT_OK


def _show_chat(args, chat) -> int:
    from desktop_app.core.chat.answer.gate.citations import format_source_line

    messages = chat.messages(args.show)
    if args.json:
        print(
            json.dumps(
                [
                    {
                        "role": m.role,
                        "content": m.content,
                        "citations": [c.to_dict() for c in m.citations],
                        "passages": [p.to_dict() for p in m.passages],
                    }
                    for m in messages
                ],
                indent=2,
                ensure_ascii=False,
            )
        )
        return EXIT_OK
    for m in messages:
        if m.role == "summary":  # compacted turns: shown as the summary the model now sees instead of them
            print("summary: " + json.loads(m.content)["text"].replace("\n", "\n    "))
            continue
        print(f"{m.role}: {m.content.strip()}")
        for c in m.citations:
            print(f"    {format_source_line(c)}")
    return EXIT_OK
