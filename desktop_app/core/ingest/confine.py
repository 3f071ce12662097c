"""What the extraction worker may see and do: an allow-listed environment, and (on Linux) no new sockets, no
ptrace, and a filesystem confined by Landlock.

* `worker_environment()` is the whole environment the worker starts with, built from an allow-list (locale,
  time zone, temp folder, what Windows and a frozen app need to start): the library's TROVE_DB, API keys,
  passwords, tokens, PG* and everything else the parent holds never reach a parser.
* `forbid_network()` installs a seccomp filter (Linux x86-64 and arm64, no dependency: a few BPF instructions
  through prctl) that makes socket(), socketpair(), io_uring_setup(), ptrace() and process_vm_readv/writev()
  fail with EACCES in the worker and
  every thread it starts. The worker talks to its parent over a socket pair made before the filter, so
  nothing it needs is lost; a parser that tries to reach the network gets an OSError. Elsewhere it returns
  False and the worker runs without it (docs/reliability.md says what other platforms would need).
* `confine_filesystem()` (Linux with Landlock, ABI 1 or later: kernel 5.13+) leaves the worker reading only
  what Python and the parsers are loaded from and its own /proc entry, writing only its own temp folder: the
  file it parses arrives as an open descriptor, so the team password file, settings, the library and every
  indexed folder are out of reach (EACCES), and so is the parent (Landlock refuses ptrace out of the domain;
  the process is not dumpable). On a kernel without Landlock it returns "" and the parent logs one line
  (docs/team-library.md says what is left then).
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
# machine -> (AUDIT_ARCH_*, [socket, socketpair, io_uring_setup, ptrace, process_vm_readv, process_vm_writev]):
# no network, and no reading or writing another process's memory (the parent's above all) on any kernel
_ARCHES = {"x86_64": (0xC000003E, [41, 53, 425, 101, 310, 311]),
           "aarch64": (0xC00000B7, [198, 199, 425, 117, 270, 271])}


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


# ---- Landlock: the worker's filesystem ---------------------------------------------------------------------

_SYS_LANDLOCK = {"x86_64": (444, 445, 446), "aarch64": (444, 445, 446)}  # create_ruleset, add_rule, restrict_self
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_DUMPABLE = 4
_O_PATH = 0o10000000
# LANDLOCK_ACCESS_FS_*: what ABI 1 handles, then REFER (2), TRUNCATE (3), IOCTL_DEV (5)
_EXECUTE, _WRITE_FILE, _READ_FILE, _READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
_ABI1 = (1 << 13) - 1
_REFER, _TRUNCATE, _IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
_FILE_ONLY = _EXECUTE | _WRITE_FILE | _READ_FILE | _TRUNCATE | _IOCTL_DEV  # what a rule on a file may name
READ = _EXECUTE | _READ_FILE | _READ_DIR


def landlock_abi() -> int:
    """The kernel's Landlock ABI version (0: none, or not Linux x86-64/arm64)."""
    numbers = _SYS_LANDLOCK.get(platform.machine()) if sys.platform == "linux" else None
    if numbers is None:
        return 0
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    abi = libc.syscall(ctypes.c_long(numbers[0]), None, ctypes.c_size_t(0), ctypes.c_uint32(_CREATE_RULESET_VERSION))
    return max(int(abi), 0)


def handled(abi: int) -> int:
    """Every filesystem right this ABI can refuse (all of them are refused unless a rule grants them)."""
    rights = _ABI1
    if abi >= 2:
        rights |= _REFER
    if abi >= 3:
        rights |= _TRUNCATE
    if abi >= 5:
        rights |= _IOCTL_DEV
    return rights


class _PathBeneath(ctypes.Structure):
    _pack_ = 1  # struct landlock_path_beneath_attr is packed: u64 allowed_access, s32 parent_fd
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def confine_filesystem(readable: list[str], writable: list[str]) -> str:
    """Let this process (and its threads and children) read only below `readable` and write only below
    `writable`; everything it already holds open stays usable (the parent's file descriptor, the channel).
    Returns what confines it ("landlock ABI n"), or "" where the kernel has no Landlock. Also not dumpable (no
    core file, no /proc/<pid>/mem for others). Paths that do not exist are skipped."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    if sys.platform == "linux":
        libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
    abi = landlock_abi()
    if abi < 1:
        return ""
    create, add, restrict = _SYS_LANDLOCK[platform.machine()]
    libc.syscall.restype = ctypes.c_long
    everything = handled(abi)
    attr = ctypes.c_uint64(everything)  # struct landlock_ruleset_attr's first field; the kernel takes the prefix
    ruleset = int(libc.syscall(ctypes.c_long(create), ctypes.byref(attr), ctypes.c_size_t(8), ctypes.c_uint32(0)))
    if ruleset < 0:
        return ""
    try:
        for paths, rights in ((readable, READ), (writable, everything)):
            for path in paths:
                _allow(libc, add, ruleset, path, rights & everything)
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            return ""
        if libc.syscall(ctypes.c_long(restrict), ctypes.c_int(ruleset), ctypes.c_uint32(0)) != 0:
            return ""
    finally:
        os.close(ruleset)
    return f"landlock ABI {abi}"


def _allow(libc: ctypes.CDLL, add: int, ruleset: int, path: str, rights: int) -> None:
    try:
        fd = os.open(path, _O_PATH | os.O_CLOEXEC)
    except OSError:
        return
    try:
        if not os.path.isdir(path):
            rights &= _FILE_ONLY
        rule = _PathBeneath(rights, fd)
        if libc.syscall(ctypes.c_long(add), ctypes.c_int(ruleset), ctypes.c_int(_RULE_PATH_BENEATH),
                        ctypes.byref(rule), ctypes.c_uint32(0)) != 0:
            raise OSError(ctypes.get_errno(), f"landlock_add_rule({path})")
    finally:
        os.close(fd)
