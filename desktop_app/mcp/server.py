"""The MCP server of one library: the tools of tools.py with their JSON Schemas, and documents as resources.

Read-only by default: search, read and ask never change the library's documents or folders (`ask` keeps the
exchange as a chat, as the window does). `allow_writes` adds `add_folder` and `remember`, for a person who turned
them on (`trove mcp --allow-writes`). Tool functions are synchronous: the SDK runs each call on a worker thread,
and the Library is safe to call from several.
"""

from __future__ import annotations

import inspect
import logging
from typing import TYPE_CHECKING, Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError, ToolError
from mcp_types import Resource as MCPResource
from mcp_types import ToolAnnotations
from pydantic import Field

from desktop_app import __version__
from desktop_app.core.errors import KnownError
from desktop_app.mcp import tools
from desktop_app.mcp.text import DATA_NOTE, inert

if TYPE_CHECKING:
    from desktop_app.core.library import Library

log = logging.getLogger("trove.mcp")

RESOURCE_PREFIX = "trove://document/"
MAX_RESOURCES = 2000  # documents listed as resources (search reaches every one)
READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)

INSTRUCTIONS = (
    "Trove searches the person's own documents on this computer (hybrid keyword + semantic search) and answers "
    "from them with verbatim quotes and citations (file and page). Use `search` to find passages, `read_passage` "
    "or `read_document` to read more, and `ask` for Trove's grounded answer (a quote with its citation, or a "
    "refusal when the documents do not say). Cite the file and page you were given. " + DATA_NOTE)

Query = Annotated[str, Field(description="What to look for: words, a phrase or a question.", min_length=1,
                             max_length=2000)]
Count = Annotated[int, Field(description="How many results (1-50).", ge=1, le=tools.MAX_K)]
Mode = Annotated[Literal["hybrid", "keyword", "semantic"],
                 Field(description="hybrid (default: keywords and meaning fused), keyword (exact words, BM25) or "
                                   "semantic (meaning only).")]
Paths = Annotated[list[str] | None, Field(description="Only documents in these library folders (absolute paths, "
                                                      "as list_folders gives them).")]
Types = Annotated[list[str] | None, Field(description="Only these document types, e.g. pdf, docx, markdown, text, "
                                                      "code, html.")]
Languages = Annotated[list[str] | None, Field(description="Only passages in these languages (ISO 639-1 codes such "
                                                          "as en, fr, de, or a script such as zh, ja, th).")]


class TroveServer(MCPServer):
    """MCPServer whose resource list is the library's indexed documents (read through the template)."""

    def __init__(self, library: Library, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.library = library
        self._paths: dict[int, str] = {}

    def document_paths(self) -> dict[int, str]:
        """Indexed documents by id, across every folder this person may see (row security on a team library)."""
        store = self.library.store
        paths: dict[int, str] = {}
        for folder in store.all_folders():
            for row in store.documents_under(folder.id).values():
                if str(row.status) == "indexed":
                    paths[row.id] = row.path
        self._paths = paths
        return paths

    async def list_resources(self) -> list[MCPResource]:
        import anyio.to_thread

        paths = await anyio.to_thread.run_sync(self.document_paths)
        return [MCPResource(uri=f"{RESOURCE_PREFIX}{doc_id}", name=inert(path.rsplit("/", 1)[-1]),
                            title=inert(path), mime_type="text/plain",
                            description="The indexed text of this document, passage by passage.")
                for doc_id, path in list(paths.items())[:MAX_RESOURCES]]

    def path_of(self, doc_id: int) -> str:
        """The path of an indexed document id (the listing is read again when the id is new to it)."""
        path = self._paths.get(doc_id) or self.document_paths().get(doc_id)
        if path is None:
            raise ResourceNotFoundError(f"No indexed document {doc_id} in this library.")
        return path


def _tool(server: MCPServer, annotations: ToolAnnotations = READ_ONLY) -> Any:
    """Register a function as a tool, its docstring on one line as the description an assistant reads."""
    def register(fn: Any) -> Any:
        server.add_tool(fn, description=" ".join(inspect.cleandoc(fn.__doc__ or "").split()), annotations=annotations)
        return fn
    return register


def _known(call: Any) -> Any:
    """Run a tool's body; a known problem (not indexed, bad argument, database locked) goes back as its message."""
    try:
        return call()
    except KnownError as exc:
        raise ToolError(str(exc)) from exc


def build_server(library: Library, *, allow_writes: bool = False) -> TroveServer:
    """The MCP server for `library` (tools, and documents as `trove://document/<id>` resources)."""
    server = TroveServer(library, name="trove", title="Trove", version=__version__, instructions=INSTRUCTIONS,
                         log_level="WARNING")
    _add_read_tools(server, library)
    if tools.memory_on(library):
        _add_memory_tool(server, library)
    if allow_writes:
        _add_write_tools(server, library)

    @server.resource(f"{RESOURCE_PREFIX}{{doc_id}}", name="document", mime_type="text/plain",
                     description="An indexed document's text (what Trove indexed, passage by passage, with pages).")
    def document(doc_id: str) -> str:
        try:
            number = int(doc_id)
        except ValueError:
            raise ResourceNotFoundError(f"Not a document id: {inert(doc_id)}") from None
        path = server.path_of(number)
        chunks = library.document_chunks(path)
        body = "\n\n".join((f"[p. {page}] " if page is not None else "") + inert(text) for page, text in chunks)
        return f"[Source: {inert(path)}] ({DATA_NOTE})\n\n{body}"

    return server


def _add_read_tools(server: MCPServer, library: Library) -> None:
    @_tool(server)
    def search(query: Query, mode: Mode = "hybrid", k: Count = 10, folders: Paths = None, types: Types = None,
               languages: Languages = None) -> dict[str, Any]:
        """Search the person's documents. Each result has the file `path`, the `page` (or `place`: slide, sheet,
        message), a `snippet`, a `score` (higher is better; comparable only within one search) and a `passage_id`
        for read_passage. Cite results by path and page."""
        return _known(lambda: tools.search(library, query, mode=mode, k=k, folders=folders, types=types,
                                           languages=languages))

    @_tool(server)
    def read_passage(passage_id: Annotated[int, Field(description="A passage_id from search or ask.")],
                     around: Annotated[int, Field(description="Also this many passages either side (0-3).",
                                                  ge=0, le=3)] = 0) -> dict[str, Any]:
        """Read one passage in full (at most 8000 characters), optionally with its neighbours in the document."""
        return _known(lambda: tools.read_passage(library, passage_id, around=around))

    @_tool(server)
    def read_document(path: Annotated[str, Field(description="The document's path, as search gives it.")],
                      start: Annotated[int, Field(description="The passage to start from (0 first; use the "
                                                              "previous call's next_start).", ge=0)] = 0
                      ) -> dict[str, Any]:
        """Read an indexed document's text in order, at most 20000 characters a call; `next_start` continues
        (null at the end). Only what Trove indexed is readable: other files are refused."""
        return _known(lambda: tools.read_document(library, path, start=start))

    @_tool(server)
    def ask(question: Annotated[str, Field(description="A question the person's documents may answer.",
                                           min_length=1, max_length=2000)],
            k: Annotated[int | None, Field(description="How many passages to consider (default: the library's "
                                                       "setting).", ge=1, le=tools.MAX_K)] = None,
            scope: Paths = None) -> dict[str, Any]:
        """Trove's grounded answer: a verbatim `quote` from the documents with `citations` (path and page), or
        `refused: true` with the `closest_passages` when no passage answers. Never invents: prefer it for facts."""
        return _known(lambda: tools.ask(library, question, k=k, scope=scope))

    @_tool(server)
    def list_folders() -> dict[str, Any]:
        """The folders in this library with their state (active, paused, offline…) and counts."""
        return _known(lambda: tools.list_folders(library))

    @_tool(server)
    def library_status() -> dict[str, Any]:
        """How much is indexed and what is still being indexed (passages waiting for vectors, OCR pages)."""
        return _known(lambda: tools.library_status(library))


def _add_memory_tool(server: MCPServer, library: Library) -> None:
    @_tool(server)
    def search_memory(query: Query, k: Count = 10) -> dict[str, Any]:
        """Search what the person told Trove to remember (facts) and excerpts of their past Trove chats."""
        return _known(lambda: tools.search_memory(library, query, k=k))


def _add_write_tools(server: MCPServer, library: Library) -> None:
    @_tool(server, WRITES)
    def add_folder(path: Annotated[str, Field(description="An absolute folder path on this computer.")]
                   ) -> dict[str, Any]:
        """Add a folder to the library; Trove indexes it in the background (library_status shows progress)."""
        def work() -> dict[str, Any]:
            info = library.add_folder(path)
            library.sync(wait=False)
            return {"added": inert(info.path), "state": str(info.state)}
        return _known(work)

    @_tool(server, WRITES)
    def remember(key: Annotated[str, Field(description="What the fact is about, e.g. 'preferred airline'.")],
                 value: Annotated[str, Field(description="The fact itself.")]) -> dict[str, Any]:
        """Remember a fact the person stated (memory must be on)."""
        def work() -> dict[str, Any]:
            change = library.memory.add(key, value, category="", expires_at=None)
            return {"action": change.action, "key": inert(change.fact.key), "value": inert(change.fact.value)}
        return _known(work)
