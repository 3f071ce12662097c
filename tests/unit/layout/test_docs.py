"""The docs stay true (Datasette's tests/test_docs.py): every module path, `*.md` file, dotted module name and
`Class.attribute` README.md, docs/ and packaging/README.md name exists, every setting is documented with its default,
docs/architecture.md's layout lists every package, and the README stays a front door (≤ 150 lines) with the manual
and the figures in docs/."""

from __future__ import annotations

import dataclasses
import importlib
import json
import re
from pathlib import Path

import pytest

from desktop_app.core.settings import Settings

ROOT = Path(__file__).parents[3]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "packaging" / "README.md"]
# where a relative path in the docs may start: the repository, the package, the core, or the doc's own folder
BASES = ("", "desktop_app/", "desktop_app/core/")
# files of other projects the docs cite by their path in those projects
ELSEWHERE = {"src/huggingface_hub/file_download.py"}
PY_PATH = re.compile(r"`([A-Za-z0-9_./-]+\.py)`")
DIR_PATH = re.compile(r"`((?:desktop_app|core|ui|cli|tests|bench|packaging)/[A-Za-z0-9_./-]*)`")
# `desktop_app.core.Library`, backticked or in prose
DOTTED = re.compile(r"`(desktop_app(?:\.[A-Za-z_][A-Za-z0-9_]*)+)`"
                    r"|(?<![\w./`-])(desktop_app(?:\.[A-Za-z_][A-Za-z0-9_]*)+)")
# `core.store.sqlite.connect`: a dotted name inside the package, written without its `desktop_app.`
SHORT_DOTTED = re.compile(r"`((?:core|cli|ui)(?:\.[A-Za-z_][A-Za-z0-9_]*)+)`")
# `Library.ask`, `ChatAnswer.text`: an attribute of a class the package defines
CLASS_ATTR = re.compile(r"`([A-Z][A-Za-z0-9]+)((?:\.[A-Za-z_][A-Za-z0-9_]*)+)(?:\(\))?`")
# a Markdown file named anywhere (a link, a backticked path, prose), with an optional #anchor
MD_NAME = re.compile(r"(?<![\w./-])((?:\.\./)*[A-Za-z0-9_][A-Za-z0-9_./-]*\.md)(#[a-z0-9-]+)?\b")
README_MAX_LINES = 150
PLACEHOLDER = re.compile(r"(?<![A-Za-z])[A-Z]{2,}(?![a-z])")
SETTING_ROW = re.compile(r"^\| `([a-z_0-9]+)` \| (.+?) \| .+ \|$", re.MULTILINE)
REPO_FILES = {p.name for p in ROOT.rglob("*.py") if ".venv" not in p.parts and "node_modules" not in p.parts}


def resolves(doc: Path, path: str) -> bool:
    if path in ELSEWHERE:
        return True
    if "/" not in path and path.endswith(".py"):
        return path in REPO_FILES  # a bare file name: somewhere in the repository
    here = doc.parent.relative_to(ROOT).as_posix()
    bases = (*BASES, f"{here}/" if here != "." else "")
    module, _, attr = path.rpartition(".")
    pattern = PLACEHOLDER.sub("*", path)  # bench/results/retrieval_SET_test.json: SET names any data set
    return any((ROOT / f"{base}{path}").exists()
               or (attr.isidentifier() and attr != "py" and (ROOT / f"{base}{module}.py").is_file())  # module.name
               or (pattern != path and any(ROOT.glob(f"{base}{pattern}")))
               for base in bases)


def named_paths(doc: Path) -> list[tuple[int, str]]:
    found = []
    for number, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1):
        found += [(number, m.group(1)) for m in PY_PATH.finditer(line)]
        found += [(number, m.group(1)) for m in DIR_PATH.finditer(line)]
    return found


@pytest.mark.parametrize("doc", DOCS, ids=[d.relative_to(ROOT).as_posix() for d in DOCS])
def test_every_module_path_a_doc_names_exists(doc):
    missing = [f"{doc.name}:{n}: {path}" for n, path in named_paths(doc) if not resolves(doc, path)]
    assert not missing, "stale paths:\n" + "\n".join(missing)


def dotted_resolves(name: str) -> bool:
    """`desktop_app.a.b.c`: the longest importable module prefix, then attributes for the rest."""
    module, attr = name, ""
    while True:
        try:
            imported = importlib.import_module(module)
            break
        except ModuleNotFoundError:
            module, _, tail = module.rpartition(".")
            if not module:
                return False
            attr = f"{tail}.{attr}".strip(".")
    return all_attributes(imported, attr)


def all_attributes(obj: object, dotted: str) -> bool:
    for part in filter(None, dotted.split(".")):
        fields = getattr(obj, "__dataclass_fields__", {})
        if hasattr(obj, part):
            obj = getattr(obj, part)
        elif part in fields or part in getattr(obj, "__annotations__", {}):
            return True  # a field without a class-level default: the name is right, its value is per instance
        else:
            return False
    return True


def classes_defined() -> dict[str, str]:
    """Each class name the package defines once, with its module (a name defined twice is ambiguous: skipped)."""
    found: dict[str, list[str]] = {}
    for path in (ROOT / "desktop_app").rglob("*.py"):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        for name in re.findall(r"^class ([A-Z][A-Za-z0-9]+)\b", path.read_text(encoding="utf-8"), re.MULTILINE):
            found.setdefault(name, []).append(module)
    return {name: modules[0] for name, modules in found.items() if len(modules) == 1}


def heading_anchors(doc: Path) -> set[str]:
    """The anchors GitHub makes of a Markdown file's headings."""
    text = re.sub(r"```.*?```", "", doc.read_text(encoding="utf-8"), flags=re.DOTALL)
    titles = re.findall(r"^#+ (.+)$", text, re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", t.strip().lower()).replace(" ", "-") for t in titles}


def md_target(doc: Path, name: str) -> Path | None:
    for base in (doc.parent, ROOT, ROOT / "docs"):
        if (base / name).is_file():
            return (base / name).resolve()
    return None


@pytest.mark.parametrize("doc", DOCS, ids=[d.relative_to(ROOT).as_posix() for d in DOCS])
def test_every_dotted_module_a_doc_names_imports(doc):
    text = doc.read_text(encoding="utf-8")
    names = [a or b for a, b in DOTTED.findall(text)] + [f"desktop_app.{n}" for n in SHORT_DOTTED.findall(text)]
    missing = [name for name in names if not dotted_resolves(name.rstrip("."))]
    assert not missing, f"{doc.name} names what does not exist: {missing}"


@pytest.mark.parametrize("doc", DOCS, ids=[d.relative_to(ROOT).as_posix() for d in DOCS])
def test_every_class_attribute_a_doc_names_exists(doc):
    classes = classes_defined()
    missing = []
    for name, dotted in CLASS_ATTR.findall(doc.read_text(encoding="utf-8")):
        if name in classes:  # `Image.frombytes` is Pillow's, not ours
            cls = getattr(importlib.import_module(classes[name]), name)
            if not all_attributes(cls, dotted):
                missing.append(f"{name}{dotted} ({classes[name]})")
    assert not missing, f"{doc.name} names what does not exist: {missing}"


@pytest.mark.parametrize("doc", DOCS, ids=[d.relative_to(ROOT).as_posix() for d in DOCS])
def test_every_markdown_file_and_anchor_a_doc_names_exists(doc):
    text = re.sub(r"https?://\S+", "", doc.read_text(encoding="utf-8"))
    missing = []
    for name, anchor in MD_NAME.findall(text):
        target = md_target(doc, name)
        if target is None:
            missing.append(name)
        elif anchor and anchor[1:] not in heading_anchors(target):
            missing.append(f"{name}{anchor}")
    assert not missing, f"{doc.name} names Markdown files or sections that do not exist: {missing}"


@pytest.mark.parametrize("doc", DOCS, ids=[d.relative_to(ROOT).as_posix() for d in DOCS])
def test_every_image_a_doc_shows_exists_beside_it(doc):
    images = re.findall(r"!\[[^\]]*\]\(([^)\s]+)\)", doc.read_text(encoding="utf-8"))
    missing = [image for image in images if not (doc.parent / image).is_file()]
    assert not missing, f"{doc.name} shows images that are not there (paths are relative to the doc): {missing}"


def test_the_readme_is_a_front_door_and_the_rest_lives_in_docs():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= README_MAX_LINES, "README.md: move detail to docs/"
    for doc in ("architecture.md", "benchmarks.md"):
        assert (ROOT / "docs" / doc).is_file() and f"(docs/{doc})" in readme, doc
    assert "this round" not in readme and "previous round" not in readme


def test_each_benchmark_area_says_its_command_and_date():
    text = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    areas = re.split(r"^## ", text, flags=re.MULTILINE)[1:]
    assert len(areas) >= 5
    for area in areas:
        title = area.splitlines()[0]
        assert re.search(r"python bench/\w+\.py|make \w+", area), f"benchmarks.md, {title}: no command"
        assert re.search(r"2026-\d\d-\d\d", area), f"benchmarks.md, {title}: no date"
        assert "|---|" in area.replace(" ", ""), f"benchmarks.md, {title}: no table"


def test_every_setting_is_documented_with_its_default_and_nothing_else():
    found = SETTING_ROW.findall((ROOT / "docs" / "settings.md").read_text(encoding="utf-8"))
    rows = dict(found)
    assert len(rows) == len(found), "docs/settings.md lists a setting twice"
    defaults = Settings()
    fields = [f.name for f in dataclasses.fields(Settings)]
    undocumented, stale = sorted(set(fields) - set(rows)), sorted(set(rows) - set(fields))
    assert not undocumented and not stale, (f"docs/settings.md: add a row for {undocumented}" if undocumented
                                            else f"docs/settings.md: no such setting any more: {stale}")
    for name in fields:
        value = getattr(defaults, name)
        if isinstance(value, tuple) and len(value) > 3:
            continue  # a long built-in list is described, not spelled out
        shown = json.dumps(list(value) if isinstance(value, tuple) else value, ensure_ascii=False)
        assert rows[name] == f"`{shown}`", f"docs/settings.md: {name} is {shown} in the code, not {rows[name]}"


def test_the_architecture_layout_lists_every_package_and_command_group():
    architecture = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    block = architecture[architecture.index("```\ndesktop_app/"):]
    block = block[: block.index("```", 4)]
    packages = sorted(p.parent.name for p in (ROOT / "desktop_app" / "core").glob("*/__init__.py"))
    assert [p for p in packages if f"{p}/" not in block] == []
    cli = block[block.index("cli/"): block.index("core/")]
    groups = sorted(p.stem for p in (ROOT / "desktop_app" / "cli").glob("*.py") if p.stem != "__init__")
    assert [g for g in groups if g not in cli] == []


def test_the_path_check_sees_a_stale_path(tmp_path):
    assert not resolves(ROOT / "docs" / "reliability.md", "cli_watch.py")
    assert resolves(ROOT / "docs" / "reliability.md", "ingest/safe_read.py")
    assert resolves(ROOT / "packaging" / "README.md", "linux/")
    assert resolves(ROOT / "docs" / "text-pipeline.md", "bench/_baselines.halves")
    assert not resolves(ROOT / "docs" / "text-pipeline.md", "bench/_no_such_module.halves")


def test_the_name_checks_see_stale_names():
    doc = ROOT / "docs" / "architecture.md"
    assert md_target(doc, "benchmarks.md") and md_target(doc, "../packaging/README.md")
    assert md_target(doc, "ARCHITECTURE.md") is None  # what chat/service.py once cited
    assert "answers" in heading_anchors(doc)
    assert "retrieval-quality" in heading_anchors(ROOT / "docs" / "benchmarks.md")
    assert dotted_resolves("desktop_app.core.Library.ask")
    assert dotted_resolves("desktop_app.core.store.rows.FolderRow.path")  # a dataclass field with no default
    assert not dotted_resolves("desktop_app.core.Library.no_such_method")
    assert not dotted_resolves("desktop_app.core.no_such_module")
    assert [m.group(1) for m in MD_NAME.finditer("see ARCHITECTURE.md, [x](docs/ui.md#keyboard) and a.mdx")] == [
        "ARCHITECTURE.md", "docs/ui.md"]
