"""OCR with the wheel's float32 PP-OCR models against the same models with half-precision weights
(packaging/half_weights.py, what the packaged app ships): character error rate and seconds per image on synthetic
scans (printed English lines at several sizes, with noise, a slight skew and JPEG artefacts), same process.

    python bench/ocr_weights.py [--images 40] [--seed 1] [--out bench/results/ocr_weights.json]

The floor is the float32 models as rapidocr ships them; the ratio is half / float32. Nothing here was tuned:
MIN_ELEMENTS in half_weights.py was fixed before the first run. Intervals: a paired bootstrap over images.
"""

from __future__ import annotations

import argparse
import io
import random
import sys
import tempfile
import time
from pathlib import Path

from _common import machine, median, save

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "packaging"))

WORDS = ("library index search folder document answer passage model keyword semantic quote source page scan "
         "river gravel burrow pangolin echidna invoice contract meeting budget report figure table chapter "
         "section summary method result number account station harbour winter summer market").split()
STAGES = ("PP-OCRv6_det_small.onnx", "PP-OCRv6_rec_small.onnx", "ch_ppocr_mobile_v2.0_cls_mobile.onnx")


def scan(rnd: random.Random):
    """(PIL image, its text): 4-9 lines of 3-7 words, one size per image, noise, skew, a JPEG round trip."""
    from PIL import Image, ImageDraw, ImageFilter, ImageFont

    size = rnd.choice((18, 22, 26, 32, 40))
    font = ImageFont.load_default(size=size)
    lines = [" ".join(rnd.choice(WORDS) for _ in range(rnd.randint(3, 7))) for _ in range(rnd.randint(4, 9))]
    if rnd.random() < 0.5:
        lines = [line.capitalize() + rnd.choice((".", ",", " 42.", " 2026.")) for line in lines]
    image = Image.new("L", (1400, 120 + len(lines) * size * 2), 255)
    draw = ImageDraw.Draw(image)
    for i, line in enumerate(lines):
        draw.text((60, 60 + i * size * 2), line, fill=rnd.randint(0, 60), font=font)
    image = image.rotate(rnd.uniform(-1.5, 1.5), fillcolor=255, resample=Image.BICUBIC)
    if rnd.random() < 0.5:
        image = image.filter(ImageFilter.GaussianBlur(rnd.uniform(0.3, 0.9)))
    noise = Image.effect_noise(image.size, rnd.uniform(8, 25))
    image = Image.blend(image, noise, 0.12)
    buffer = io.BytesIO()
    image.convert("RGB").save(buffer, "JPEG", quality=rnd.randint(55, 90))
    return Image.open(io.BytesIO(buffer.getvalue())).convert("RGB"), "\n".join(lines)


def distance(a: str, b: str) -> int:
    """Levenshtein distance of two strings."""
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def cer(read: str, gold: str) -> float:
    norm = lambda s: " ".join(s.split()).lower()  # noqa: E731 — line breaks and case are not what is measured
    return distance(norm(read), norm(gold)) / max(len(norm(gold)), 1)


def run(engine, images) -> tuple[list[float], list[float]]:
    errors, seconds = [], []
    for image, gold in images:
        start = time.perf_counter()
        text = engine.read(image).text
        seconds.append(time.perf_counter() - start)
        errors.append(cer(text, gold))
    return errors, seconds


def bootstrap(a: list[float], b: list[float], rounds: int = 2000) -> tuple[float, float]:
    """95% interval of mean(b) - mean(a), resampling images (paired)."""
    rnd = random.Random(0)
    n = len(a)
    diffs = sorted(sum(b[k] - a[k] for k in (rnd.randrange(n) for _ in range(n))) / n for _ in range(rounds))
    return diffs[int(0.025 * rounds)], diffs[int(0.975 * rounds)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out")
    args = parser.parse_args()
    import rapidocr
    from half_weights import halve

    from desktop_app.core.ocr.engine import OcrEngine

    wheel = Path(rapidocr.__file__).resolve().parent / "models"
    rnd = random.Random(args.seed)
    images = [scan(rnd) for _ in range(args.images)]
    out = {"machine": machine(), "images": args.images, "seed": args.seed, "threads": args.threads, "models": {}}
    with tempfile.TemporaryDirectory() as tmp:
        half = Path(tmp)
        for name in STAGES:
            before, after = halve(wheel / name, half / name)
            out["models"][name] = {"float32_bytes": before, "half_bytes": after}
        results = {}
        for label, folder in (("float32", wheel), ("half", half)):
            engine = OcrEngine(threads=args.threads, models=folder)
            engine.read(images[0][0])  # sessions built, caches warm: what is timed is reading
            results[label] = run(engine, images)
    (e32, t32), (e16, t16) = results["float32"], results["half"]
    low, high = bootstrap(e32, e16)
    out["float32"] = {"cer_mean": sum(e32) / len(e32), "seconds_median": median(t32), "seconds_total": sum(t32)}
    out["half"] = {"cer_mean": sum(e16) / len(e16), "seconds_median": median(t16), "seconds_total": sum(t16)}
    out["cer_difference_half_minus_float32"] = {"mean": out["half"]["cer_mean"] - out["float32"]["cer_mean"],
                                                "ci95": [low, high]}
    out["identical_text"] = sum(a == b for a, b in zip(e32, e16, strict=True))
    out["time_ratio_half_over_float32"] = sum(t16) / sum(t32)
    for label in ("float32", "half"):
        r = out[label]
        print(f"{label:8} CER {r['cer_mean']:.4f}  {r['seconds_median']:.2f} s/image median")
    print(f"half - float32 CER: {out['cer_difference_half_minus_float32']['mean']:+.4f} "
          f"[{low:+.4f}, {high:+.4f}]; same CER on {out['identical_text']}/{args.images} images; "
          f"time ratio {out['time_ratio_half_over_float32']:.2f}")
    sizes = out["models"]
    print("sizes (MiB): " + ", ".join(f"{k} {v['float32_bytes'] / 2**20:.1f} -> {v['half_bytes'] / 2**20:.1f}"
                                      for k, v in sizes.items()))
    print("saved", save("ocr_weights", out, args.out))


if __name__ == "__main__":
    main()
