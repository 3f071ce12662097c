"""The docs stay true (Datasette's tests/test_docs.py): every module path README.md, docs/ and packaging/README.md
name exists, every setting is documented with its default, and the README's layout lists every package."""

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
DOTTED = re.compile(r"`(desktop_app(?:\.[A-Za-z_][A-Za-z0-9_]*)+)`")
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


@pytest.mark.parametrize("doc", DOCS, ids=[d.relative_to(ROOT).as_posix() for d in DOCS])
def test_every_dotted_module_a_doc_names_imports(doc):
    for name in DOTTED.findall(doc.read_text(encoding="utf-8")):
        module, _, attr = name, "", ""
        while True:
            try:
                imported = importlib.import_module(module)
                break
            except ModuleNotFoundError:
                module, _, tail = module.rpartition(".")
                attr = f"{tail}.{attr}".strip(".")
        for part in filter(None, attr.split(".")):
            assert hasattr(imported, part), f"{doc.name}: {name} does not exist"
            imported = getattr(imported, part)


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


def test_the_readme_layout_lists_every_package_and_command_group():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme[readme.index("```\ndesktop_app/"):]
    block = block[: block.index("```", 4)]
    packages = sorted(p.parent.name for p in (ROOT / "desktop_app" / "core").glob("*/__init__.py"))
    assert [p for p in packages if f"{p}/" not in block] == []
    cli = block[block.index("cli/"): block.index("core/")]
    groups = sorted(p.stem for p in (ROOT / "desktop_app" / "cli").glob("*.py") if p.stem != "__init__")
    assert [g for g in groups if g not in cli] == []


def test_the_path_check_sees_a_stale_path(tmp_path):
    assert not resolves(ROOT / "docs" / "reliability.md", "cli_watch.py")
    assert resolves(ROOT / "docs" / "reliability.md", "ingest/readtext.py")
    assert resolves(ROOT / "packaging" / "README.md", "linux/")
    assert resolves(ROOT / "docs" / "text-pipeline.md", "bench/_baselines.halves")
    assert not resolves(ROOT / "docs" / "text-pipeline.md", "bench/_no_such_module.halves")
