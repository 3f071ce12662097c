"""Saved e-mail: EML (stdlib email), MBOX (stdlib mailbox), MSG (extract-msg). One document per message, its
attachments as documents of their own.

Part paths: in a mailbox, message 3 is part "3" and its attachment "3/report.pdf"; an EML's attachment is part
"report.pdf". Each message's text starts with its header lines (so the sender is searchable by keyword) and
lists its attachments; subject, sender, recipients and date are also in `meta`.
"""

from __future__ import annotations

import email
import email.policy
import email.utils
import mailbox
from collections.abc import Callable
from dataclasses import replace
from email.message import EmailMessage
from pathlib import Path

from desktop_app.core.errors import ExtractionError
from desktop_app.core.ingest.extract_rows import Extracted, Extraction, FailedPart
from desktop_app.core.ingest.html_text import html_to_text
from desktop_app.core.log import get_logger
from desktop_app.core.text.decode import decode_text

log = get_logger("ingest")

# Extracts an attachment from its file name and bytes; passed in by the dispatcher (no import cycle).
PartExtractor = Callable[[str, bytes], Extraction]
MAX_DEPTH = 3  # a message attached to a message attached to a message ...
MAX_ATTACHMENTS = 200


def extract_eml(data: bytes, fallback_title: str, extract_part: PartExtractor) -> Extraction:
    """An .eml file: the message (part "") and its attachments."""
    message = email.message_from_bytes(data, policy=email.policy.default)
    if not any(message.get(h) for h in ("From", "Subject", "Date", "To", "Message-ID")):
        raise ExtractionError("not an e-mail message (no From, To, Subject or Date header)")
    return _message_documents(message, fallback_title, "", "message", extract_part, 0)


def extract_mbox(path: Path, fallback_title: str, extract_part: PartExtractor) -> Extraction:
    """An mbox mailbox: message N is part "N" (1-based, in file order), labelled "message N"."""
    try:
        box = mailbox.mbox(str(path), create=False)
        keys = list(box.iterkeys())
    except (OSError, mailbox.Error) as exc:
        raise ExtractionError(f"unreadable mailbox ({exc})") from exc
    documents: list[Extracted] = []
    failed: list[FailedPart] = []
    try:
        for number, key in enumerate(keys, start=1):
            message = email.message_from_bytes(box.get_bytes(key), policy=email.policy.default)
            one = _message_documents(message, f"message {number}", str(number), f"message {number}",
                                     extract_part, 0)
            documents += one.documents
            failed += one.failed
    finally:
        box.close()
    if not documents:
        raise ExtractionError("empty mailbox (no messages)")
    return Extraction(tuple(documents), tuple(failed))


def _message_documents(message: EmailMessage, fallback_title: str, part: str, label: str,
                       extract_part: PartExtractor, depth: int) -> Extraction:
    """The message itself, then each attachment (recursively for attached messages)."""
    meta = _header_meta(message)
    attachments = [a for a in message.iter_attachments() if _is_real_attachment(a)][:MAX_ATTACHMENTS]
    names = _unique_names([a.get_filename() or _default_name(a, i) for i, a in enumerate(attachments, 1)])
    body = _body_text(message)
    text = _message_text(meta, body, names)
    title = meta.get("subject") or fallback_title
    documents = [Extracted(text, title, "email", meta=tuple(meta.items()), part=part, label=label)]
    failed: list[FailedPart] = []
    for attachment, name in zip(attachments, names, strict=True):
        sub_part = f"{part}/{name}" if part else name
        sub_label = f"{label} · {name}" if part else name  # in an .eml, the message is the file itself
        found = _attachment(attachment, name, sub_part, sub_label, extract_part, depth)
        documents += found.documents
        failed += found.failed
    return Extraction(tuple(documents), tuple(failed))


def _attachment(attachment: EmailMessage, name: str, part: str, label: str, extract_part: PartExtractor,
                depth: int) -> Extraction:
    if attachment.get_content_type() == "message/rfc822":
        inner = attachment.get_payload(0) if attachment.is_multipart() else None
        if depth + 1 >= MAX_DEPTH or not isinstance(inner, EmailMessage):
            return Extraction((), (FailedPart(part, name, "attached message nested too deep or empty"),))
        return _message_documents(inner, name, part, label, extract_part, depth + 1)
    payload = attachment.get_payload(decode=True)
    if not isinstance(payload, bytes) or not payload:
        return Extraction((), (FailedPart(part, name, "empty attachment"),))
    try:
        inner = extract_part(name, payload)
    except ExtractionError as exc:
        return Extraction((), (FailedPart(part, name, str(exc)),))
    documents = tuple(_as_part(doc, part, label) for doc in inner.documents)
    failed = tuple(FailedPart(f"{part}/{f.part}", f.name, f.reason) for f in inner.failed)
    return Extraction(documents, failed)


def _as_part(doc: Extracted, part: str, label: str) -> Extracted:
    if doc.part:  # a document inside the attachment (an attached .eml's own attachments)
        return replace(doc, part=f"{part}/{doc.part}", label=f"{label} · {doc.label}" if doc.label else label)
    return replace(doc, part=part, label=label)


def _header_meta(message: EmailMessage) -> dict[str, str]:
    meta: dict[str, str] = {}
    for header in ("subject", "from", "to", "cc", "date"):
        try:
            value = message.get(header)
        except Exception as exc:  # noqa: BLE001 -- a malformed header must not cost the whole message
            log.debug("unreadable %s header: %s", header, exc)
            continue
        if value:
            meta[header] = " ".join(str(value).split())
    if "date" in meta:
        try:
            meta["date"] = email.utils.parsedate_to_datetime(meta["date"]).isoformat()
        except (TypeError, ValueError):
            pass  # keep the header as written
    return meta


def _body_text(message: EmailMessage) -> str:
    body = message.get_body(preferencelist=("plain", "html"))
    if body is None:
        return ""
    try:
        content = body.get_content()
    except (LookupError, ValueError, AssertionError) as exc:  # an unknown charset or broken encoding
        log.debug("unreadable message body: %s", exc)
        payload = body.get_payload(decode=True)
        content = decode_text(payload) if isinstance(payload, bytes) else ""  # its label lied: guess
    if not isinstance(content, str):
        return ""
    return html_to_text(content)[1] if body.get_content_type() == "text/html" else content.strip()


def _message_text(meta: dict[str, str], body: str, attachments: list[str]) -> str:
    lines = [f"{name.title()}: {meta[name]}" for name in ("subject", "from", "to", "cc", "date") if name in meta]
    if attachments:
        lines.append("Attachments: " + ", ".join(attachments))
    return "\n".join(lines) + ("\n\n" + body if body else "")


def _is_real_attachment(part: EmailMessage) -> bool:
    """Inline images (logos, signatures) are decoration, not documents."""
    return not (part.get_content_maintype() == "image" and part.get_content_disposition() != "attachment")


def _default_name(part: EmailMessage, number: int) -> str:
    return "message.eml" if part.get_content_type() == "message/rfc822" else f"attachment-{number}"


def _unique_names(names: list[str]) -> list[str]:
    """Attachment names safe as part paths ("/" and "#" replaced) and unique within one message."""
    seen: dict[str, int] = {}
    out = []
    for raw in names:
        name = raw.replace("/", "_").replace("\\", "_").replace("#", "_").strip() or "attachment"
        count = seen.get(name, 0) + 1
        seen[name] = count
        if count > 1:
            stem, dot, ext = name.rpartition(".")
            name = f"{stem} ({count}).{ext}" if dot and stem else f"{name} ({count})"
        out.append(name)
    return out


def extract_msg_file(data: bytes, fallback_title: str, extract_part: PartExtractor) -> Extraction:
    """An Outlook .msg (extract-msg): the message (part "") and its attachments."""
    import extract_msg

    try:
        message = extract_msg.openMsg(data, delayAttachments=False)
    except Exception as exc:  # extract-msg raises its own and olefile's errors for damaged or foreign files
        raise ExtractionError(f"corrupt or unreadable MSG ({type(exc).__name__}: {str(exc)[:200]})") from exc
    try:
        return _msg_documents(message, fallback_title, "", "message", extract_part, 0)
    finally:
        message.close()


def _msg_documents(message, fallback_title: str, part: str, label: str, extract_part: PartExtractor,
                   depth: int) -> Extraction:
    meta = _msg_meta(message)
    attachments = list(getattr(message, "attachments", []) or [])[:MAX_ATTACHMENTS]
    names = _unique_names([_msg_attachment_name(a, i) for i, a in enumerate(attachments, 1)])
    body = (getattr(message, "body", None) or "").strip()
    if not body and getattr(message, "htmlBody", None):
        body = html_to_text(decode_text(message.htmlBody))[1]
    title = meta.get("subject") or fallback_title
    documents = [Extracted(_message_text(meta, body, names), title, "email", meta=tuple(meta.items()), part=part,
                           label=label)]
    failed: list[FailedPart] = []
    for attachment, name in zip(attachments, names, strict=True):
        sub_part = f"{part}/{name}" if part else name
        sub_label = f"{label} · {name}" if part else name
        data = getattr(attachment, "data", None)
        if isinstance(data, bytes) and data:
            try:
                inner = extract_part(name, data)
            except ExtractionError as exc:
                failed.append(FailedPart(sub_part, name, str(exc)))
                continue
            documents += [_as_part(doc, sub_part, sub_label) for doc in inner.documents]
            failed += [FailedPart(f"{sub_part}/{f.part}", f.name, f.reason) for f in inner.failed]
        elif data is not None and hasattr(data, "attachments") and depth + 1 < MAX_DEPTH:  # an attached message
            inner = _msg_documents(data, name, sub_part, sub_label, extract_part, depth + 1)
            documents += inner.documents
            failed += inner.failed
        else:
            failed.append(FailedPart(sub_part, name, "attachment without readable data"))
    return Extraction(tuple(documents), tuple(failed))


def _msg_meta(message) -> dict[str, str]:
    meta: dict[str, str] = {}
    for key, attr in (("subject", "subject"), ("from", "sender"), ("to", "to"), ("cc", "cc")):
        value = getattr(message, attr, None)
        if value:
            meta[key] = " ".join(str(value).split())
    date = getattr(message, "date", None)
    if date is not None:
        meta["date"] = date.isoformat() if hasattr(date, "isoformat") else str(date)
    return meta


def _msg_attachment_name(attachment, number: int) -> str:
    for attr in ("longFilename", "shortFilename", "displayName", "name"):
        value = getattr(attachment, attr, None)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return f"attachment-{number}"
