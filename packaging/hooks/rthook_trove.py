"""PyInstaller runtime hook: runs before Trove's own code in the frozen app.

- Nothing is fetched from a model hub: the embedding models, the OCR models and the GGUF ship inside the bundle,
  and no Hugging Face library is in it. The variables are kept as a guard for anything that might still read
  them (the CLI sets them too); setting them here also covers code imported before `main()` runs.
- A windowed executable (Windows `trove-gui.exe`, the macOS .app) starts with sys.stdout/sys.stderr set to
  None; progress bars and logging would then fail on `.write`, so they get a sink instead.
- Linux: the libraries trove.spec ships xz-compressed (ICU's data, listed in trove_packed_libs.json) are unpacked
  once to the user's cache ($TROVE_CACHE, else $XDG_CACHE_HOME/Trove or ~/.cache/Trove; a temp folder if that
  cannot be written) and loaded from there, before Qt or icu4py is imported: the dynamic loader then finds them
  already loaded by their soname when Qt's and icu4py's ICU libraries ask for them.
"""

import os
import sys


def _load_packed_libraries() -> None:
    import ctypes
    import json
    import lzma
    import tempfile

    base = getattr(sys, "_MEIPASS", None)
    manifest = os.path.join(base or "", "trove_packed_libs.json")
    if not base or not os.path.isfile(manifest):
        return
    with open(manifest, encoding="utf-8") as fh:
        sizes = json.load(fh)
    cache = os.environ.get("TROVE_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "Trove")
    for dest, size in sizes.items():
        packed = os.path.join(base, dest + ".xz")
        stat = os.stat(packed)
        name = os.path.basename(dest)
        key = f"{stat.st_size}-{int(stat.st_mtime)}"  # a new build unpacks its own copy
        target = None
        for folder in (os.path.join(cache, "libs", key), os.path.join(tempfile.gettempdir(), f"trove-libs-{key}")):
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
                target = path
                break
            except OSError as exc:
                print(f"trove: could not unpack {name} into {folder} ({exc})", file=sys.stderr)
        if target is None:
            raise SystemExit(f"trove: {name} could not be unpacked; free some disk space, or set TROVE_CACHE to "
                             "a folder that can be written")
        ctypes.CDLL(target, mode=ctypes.RTLD_GLOBAL)


if sys.platform.startswith("linux"):
    _load_packed_libraries()

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")

if sys.stdout is None:
    sys.stdout = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - lives as long as the process
if sys.stderr is None:
    sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115
