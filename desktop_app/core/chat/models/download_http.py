"""The HTTP side of a model download: which URLs are accepted, a GET from an offset that records Hugging Face's
X-Linked-* headers on the way through redirects, and parsing what the server says about ranges and hashes."""

from __future__ import annotations

import http.client
import re
import urllib.error
import urllib.parse
import urllib.request

from desktop_app.core.errors import KnownError

TIMEOUT_S = 30.0
USER_AGENT = "Trove (local-first knowledge base; model download)"
SHA256_RE = re.compile(r"^[0-9a-f]{64}$")
LOOPBACK = {"127.0.0.1", "localhost", "::1"}


class DownloadError(KnownError):
    """A download could not start or finish; the message says why in one line."""


class DownloadInterrupted(DownloadError):
    """The connection broke; the partial file is kept and the next download of the same URL resumes it."""


class DownloadCancelled(DownloadError):
    """The person cancelled; the partial file is kept so a later download resumes it."""


def normalise_url(url: str) -> str:
    """Check the URL and turn a Hugging Face page link (/blob/) into its file link (/resolve/)."""
    url = url.strip()
    parts = urllib.parse.urlsplit(url)
    host = (parts.hostname or "").lower()
    if parts.username is not None or parts.password is not None:
        # Trove sends no credentials and must not print them back: only the host is named.
        raise DownloadError(f"Not a download link Trove accepts: it carries a name or password (host {host}).")
    if parts.scheme == "http" and host not in LOOPBACK or parts.scheme not in ("http", "https") or not host:
        raise DownloadError(f"Not a download link Trove accepts (https only): {url}")
    path = parts.path
    if host in ("huggingface.co", "hf.co") and "/blob/" in path:
        path = path.replace("/blob/", "/resolve/", 1)
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))


def file_name_for(url: str) -> str:
    """The file name a download gets: the URL's last path segment, made safe, ending in .gguf."""
    name = urllib.parse.unquote(urllib.parse.urlsplit(url).path.rsplit("/", 1)[-1])
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "model"
    return name if name.lower().endswith(".gguf") else name + ".gguf"


def redirect_refusal(origin: str, target: str) -> str:
    """Why a redirect from `origin` to `target` is not followed ("" when it may be): only to https, or - for a
    download that started on this machine's loopback (a local mirror, the tests) - to plain http on loopback."""
    parts = urllib.parse.urlsplit(target)
    host = (parts.hostname or "").lower()
    if parts.scheme == "https" and host:
        return ""
    started_local = (urllib.parse.urlsplit(origin).hostname or "").lower() in LOOPBACK
    if parts.scheme == "http" and host in LOOPBACK and started_local:
        return ""
    return (f"The download was redirected to {target[:200]}, which is not https; Trove follows only https "
            "redirects, so nothing was downloaded.")


class RecordingRedirects(urllib.request.HTTPRedirectHandler):
    """Follows https redirects (redirect_refusal), remembering the X-Linked-* headers of each hop (Hugging Face
    puts the file's SHA-256 and size on its redirect, not on the CDN's final answer)."""

    def __init__(self) -> None:
        self.linked: dict[str, str] = {}

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        refusal = redirect_refusal(req.full_url, urllib.parse.urljoin(req.full_url, newurl))
        if refusal:
            raise DownloadError(refusal)
        for key in ("X-Linked-Etag", "X-Linked-Size"):
            if headers.get(key):
                self.linked[key] = headers[key]
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def open_from(url: str, offset: int, validator: str, redirects: RecordingRedirects):
    """GET `url` from byte `offset` (If-Range `validator`); a 416 past the end comes back as a RangeDone."""
    headers = {"User-Agent": USER_AGENT, "Accept-Encoding": "identity"}
    if offset:
        headers["Range"] = f"bytes={offset}-"
        if validator:
            headers["If-Range"] = validator
    request = urllib.request.Request(url, headers=headers)
    opener = urllib.request.build_opener(redirects)
    try:
        return opener.open(request, timeout=TIMEOUT_S)
    except urllib.error.HTTPError as exc:
        if exc.code == 416 and offset:  # asked past the end: the .part is complete or stale
            exc.close()
            return RangeDone(offset, exc.headers.get("Content-Range", ""))
        raise DownloadError(f"The server refused the download: HTTP {exc.code} {exc.reason} ({url}).") from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise DownloadError(f"Could not reach {urllib.parse.urlsplit(url).netloc}: {reason}.") from exc


class RangeDone:
    """Stands in for a response when the server says the requested range starts at the end (416)."""

    status = 416

    def __init__(self, offset: int, content_range: str) -> None:
        self.offset, self.content_range = offset, content_range

    def close(self) -> None:
        """Nothing to close."""


def read_exactly(response, n: int) -> bytes:
    """Up to `n` bytes of the body (fewer only at its end); a broken connection is a DownloadInterrupted."""
    data = b""
    while len(data) < n:
        try:
            block = response.read(n - len(data))
        except (OSError, ValueError, http.client.HTTPException) as exc:
            raise DownloadInterrupted(f"The connection broke at the start: {exc!r}.") from exc
        if not block:
            break
        data += block
    return data


def sha256_from_etag(etag: str) -> str:
    """The SHA-256 an ETag carries (Hugging Face LFS files), or "" when it is some other kind of tag."""
    value = etag.strip().removeprefix("W/").strip('"').lower()
    return value if SHA256_RE.match(value) else ""


def parse_content_range(value: str) -> tuple[int, int]:
    """(first byte, total size or 0) from a 206 answer's "bytes first-last/total"."""
    match = re.match(r"bytes (\d+)-(\d+)/(\d+|\*)", value.strip())
    if not match:
        raise DownloadError(f"The server's answer to a resumed download is malformed (Content-Range: {value!r}).")
    total = match.group(3)
    return int(match.group(1)), int(total) if total != "*" else 0


def total_from_content_range(value: str) -> int:
    """The total size from a 416 answer's "bytes */total" (-1 when it does not say)."""
    match = re.match(r"bytes \*/(\d+)", value.strip())
    return int(match.group(1)) if match else -1
