"""What the extraction worker may see and do: an allow-listed environment, and (on Linux) no new sockets.

* `worker_environment()` is the whole environment the worker starts with, built from an allow-list (locale,
  time zone, temp folder, what Windows and a frozen app need to start): the library's TROVE_DB, API keys,
  passwords, tokens, PG* and everything else the parent holds never reach a parser.
* `forbid_network()` installs a seccomp filter (Linux x86-64 and arm64, no dependency: a few BPF instructions
  through prctl) that makes socket(), socketpair() and io_uring_setup() fail with EACCES in the worker and
  every thread it starts. The worker talks to its parent over a socket pair made before the filter, so
  nothing it needs is lost; a parser that tries to reach the network gets an OSError. Elsewhere it returns
  False and the worker runs without it (docs/reliability.md says what other platforms would need).
"""

from __future__ import annotations

import ctypes
import os
import platform
import struct
import sys

_ALLOWED = frozenset({
    "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_COLLATE", "LC_MESSAGES", "LC_NUMERIC", "LC_TIME", "TZ",
    "TMPDIR", "TEMP", "TMP", "PATH",
    # Windows cannot start Python without these; a frozen app's loader needs its library path
    "SYSTEMROOT", "SYSTEMDRIVE", "WINDIR", "COMSPEC", "PATHEXT", "NUMBER_OF_PROCESSORS", "PROCESSOR_ARCHITECTURE",
    "LD_LIBRARY_PATH", "DYLD_LIBRARY_PATH",
})
_ALLOWED_PREFIXES = ("_PYI_", "_MEIPASS")  # PyInstaller's own variables (a onefile app's unpacked folder)


def worker_environment(environ: dict[str, str] | None = None) -> dict[str, str]:
    """The allow-listed part of `environ` (default: this process's), plus what makes the worker quiet and offline."""
    source = dict(os.environ if environ is None else environ)
    kept = {k: v for k, v in source.items()
            if k.upper() in _ALLOWED or k.upper().startswith(_ALLOWED_PREFIXES)}
    kept.update({"PYTHONDONTWRITEBYTECODE": "1", "PYTHONIOENCODING": "utf-8", "HF_HUB_OFFLINE": "1",
                 "OMP_NUM_THREADS": "1"})
    return kept


# ---- seccomp ----------------------------------------------------------------------------------------------

_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2
_RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000
_EACCES = 13
_LD_W_ABS, _JEQ_K, _JGE_K, _RET_K = 0x20, 0x15, 0x35, 0x06
_X32_BIT = 0x40000000
# machine -> (AUDIT_ARCH_*, [socket, socketpair, io_uring_setup])
_ARCHES = {"x86_64": (0xC000003E, [41, 53, 425]), "aarch64": (0xC00000B7, [198, 199, 425])}


def seccomp_program(machine: str) -> list[tuple[int, int, int, int]] | None:
    """The filter as (code, jt, jf, k) instructions for `machine`, or None where there is none."""
    if machine not in _ARCHES:
        return None
    arch, denied = _ARCHES[machine]
    checks: list[tuple[int, int]] = [(_JGE_K, _X32_BIT)] if machine == "x86_64" else []
    checks += [(_JEQ_K, nr) for nr in denied]
    program = [(_LD_W_ABS, 0, 0, 4), (_JEQ_K, 1, 0, arch), (_RET_K, 0, 0, _RET_ERRNO | _EACCES),
               (_LD_W_ABS, 0, 0, 0)]
    deny_at = len(program) + len(checks) + 1
    for code, k in checks:
        program.append((code, deny_at - len(program) - 1, 0, k))
    program += [(_RET_K, 0, 0, _RET_ALLOW), (_RET_K, 0, 0, _RET_ERRNO | _EACCES)]
    return program


def forbid_network() -> bool:
    """Make new sockets impossible in this process and its future threads. True when the filter is in place."""
    program = seccomp_program(platform.machine()) if sys.platform == "linux" else None
    if program is None:
        return False
    blob = b"".join(struct.pack("=HBBI", *insn) for insn in program)
    filters = ctypes.create_string_buffer(blob)

    class _Prog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    prog = _Prog(len(program), ctypes.cast(filters, ctypes.c_void_p))
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        return False
    return libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.addressof(prog), 0, 0) == 0
