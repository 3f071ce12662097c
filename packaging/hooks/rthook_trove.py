"""PyInstaller runtime hook: runs before Trove's own code in the frozen app.

- Nothing is fetched from a model hub: the embedding models, the OCR models and the GGUF ship inside the bundle,
  and no Hugging Face library is in it. The variables are kept as a guard for anything that might still read
  them (the CLI sets them too); setting them here also covers code imported before `main()` runs.
- A windowed executable (Windows `trove-gui.exe`, the macOS .app) starts with sys.stdout/sys.stderr set to
  None; progress bars and logging would then fail on `.write`, so they get a sink instead.
- Linux: the libraries trove.spec ships xz-compressed (ICU's data, listed in trove_packed_libs.json) are unpacked
  once to the user's cache ($TROVE_CACHE, else $XDG_CACHE_HOME/Trove or ~/.cache/Trove; a temp folder if that
  cannot be written) and loaded from there, before Qt or icu4py is imported: the dynamic loader then finds them
  already loaded by their soname when Qt's and icu4py's ICU libraries ask for them. numpy's OpenBLAS is loaded
  the same way, just before numpy's first extension module; onnxruntime's and cryptography's extension modules
  (also packed) are imported from their unpacked copies when first imported.
"""

import os
import sys


def _cache_folder() -> str:
    return os.environ.get("TROVE_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "Trove")


def _unpacked(base: str, dest: str, size: int) -> str:
    """The path of `dest` (shipped as `dest.xz`) unpacked in the user's cache, unpacking it first if needed."""
    import lzma
    import tempfile

    packed = os.path.join(base, dest + ".xz")
    stat = os.stat(packed)
    name = os.path.basename(dest)
    key = f"{stat.st_size}-{int(stat.st_mtime)}"  # a new build unpacks its own copy
    folders = (os.path.join(_cache_folder(), "libs", key), os.path.join(tempfile.gettempdir(), f"trove-libs-{key}"))
    for folder in folders:
        path = os.path.join(folder, name)
        try:
            if not (os.path.isfile(path) and os.path.getsize(path) == size):
                os.makedirs(folder, exist_ok=True)
                fd, partial = tempfile.mkstemp(dir=folder, prefix=name + ".")
                with os.fdopen(fd, "wb") as out, lzma.open(packed) as src:
                    while chunk := src.read(1 << 20):
                        out.write(chunk)
                os.chmod(partial, 0o755)
                os.replace(partial, path)  # atomic: two first starts at once each write their own copy
            return path
        except OSError as exc:
            print(f"trove: could not unpack {name} into {folder} ({exc})", file=sys.stderr)
    raise SystemExit(f"trove: {name} could not be unpacked; free some disk space, or set TROVE_CACHE to "
                     "a folder that can be written")


def _load_library(base: str, dest: str, entry: dict) -> None:
    import ctypes

    for first in entry.get("first", []):  # what it needs from its own bundle folder, which the cache lacks
        ctypes.CDLL(os.path.join(base, first), mode=ctypes.RTLD_GLOBAL)
    ctypes.CDLL(_unpacked(base, dest, entry["size"]), mode=ctypes.RTLD_GLOBAL)


def _link_siblings(bundle: str, cache: str) -> None:
    """What an unpacked module finds beside itself in the bundle, linked beside its cached copy (onnxruntime
    looks for libonnxruntime_providers_shared.so next to its module, else warns "Init provider bridge failed")."""
    for name in os.listdir(bundle):
        link, target = os.path.join(cache, name), os.path.join(bundle, name)
        if name.endswith(".xz") or (os.path.islink(link) and os.readlink(link) == target):
            continue
        try:
            if os.path.lexists(link):
                os.unlink(link)  # the same build unpacked elsewhere before (the key is the build's)
            os.symlink(target, link)
        except OSError:
            pass  # another first start made it, or the cache is read-only: only a warning is lost


class _PackedFinder:
    """Imports the extension modules trove.spec ships packed (onnxruntime's, cryptography's) from their unpacked
    copy, and loads packed libraries (numpy's OpenBLAS) just before the first module that links them."""

    def __init__(self, base: str, modules: dict, before: dict, libraries: dict) -> None:
        self.base, self.modules, self.before, self.libraries = base, modules, before, libraries

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in self.before and fullname not in self.modules:
            return None  # first, and without importing anything: an import here would come back to this finder
        import importlib.machinery
        import importlib.util

        for dest in self.before.pop(fullname, []):
            _load_library(self.base, dest, self.libraries[dest])
        if fullname not in self.modules:
            return None
        dest, size = self.modules[fullname]
        where = _unpacked(self.base, dest, size)
        _link_siblings(os.path.join(self.base, os.path.dirname(dest)), os.path.dirname(where))
        loader = importlib.machinery.ExtensionFileLoader(fullname, where)
        return importlib.util.spec_from_file_location(fullname, where, loader=loader)


def _load_packed_libraries() -> None:
    import json

    base = getattr(sys, "_MEIPASS", None)
    manifest = os.path.join(base or "", "trove_packed_libs.json")
    if not base or not os.path.isfile(manifest):
        return
    with open(manifest, encoding="utf-8") as fh:
        packed = json.load(fh)
    for dest, entry in packed["libraries"].items():
        if not any(dest in dests for dests in packed["before"].values()):
            _load_library(base, dest, entry)  # ICU's data: before Qt or icu4py is imported
    import importlib.machinery  # noqa: F401 - imported before the finder is in place (find_spec needs them)
    import importlib.util  # noqa: F401

    sys.meta_path.insert(0, _PackedFinder(base, packed["modules"], packed["before"], packed["libraries"]))


if sys.platform.startswith("linux"):
    _load_packed_libraries()

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")

if sys.stdout is None:
    sys.stdout = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - lives as long as the process
if sys.stderr is None:
    sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115
