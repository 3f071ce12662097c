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
    p.add_argument("--json", action="store_true", help="print the answer, citations and passages as JSON")
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
    """ "[n] path (p. N)" for each cited passage, or for every passage sent when the answer cites none."""
    from desktop_app.core.chat.citations import format_source_line

    return [format_source_line(item) for item in (answer.citations or answer.passages)]


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


def cmd_ask(args, library) -> int:
    """Stream the answer to stdout, then its sources."""
    streamed = []

    def on_token(token) -> None:
        streamed.append(token.text)
        if not args.json:
            sys.stdout.write(token.text if len(streamed) > 1 else token.text.lstrip())
            sys.stdout.flush()

    scope = _scope(args.scope)
    answer = in_worker(
        lambda cancel: library.ask(
            args.question,
            chat_id=args.chat,
            use_context=not args.no_context,
            top_k=args.k,
            model_path=args.model,
            on_token=on_token,
            cancel=cancel,
            max_tokens=args.max_tokens,
            scope=scope,
        )
    )
    if args.json:
        print(json.dumps(answer_dict(answer), indent=2, ensure_ascii=False))
        return EXIT_OK
    if not streamed:
        sys.stdout.write(answer.text)
    print(" [stopped]" if answer.cancelled else "")
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
    from desktop_app.core.chat.citations import format_source_line

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
