"""Extraction speed and quality: PDF text (pdfplumber, as Trove read PDFs before, vs PDFium), OCR, and a mixed
folder of every format. Extraction only; indexing numbers are bench/index_keyword.py's.

    python bench/extract_formats.py --pdfs DIR [--ocr-pages 6] [--per-format 20]

--pdfs: a folder of real PDFs (e.g. the py-pdf sample-files collection, CC-BY-SA-4.0); without it, PDFs are
generated with fpdf2. Encrypted and image-only PDFs are skipped for the text comparison.
Baseline and ours run in the same process on the same files; CPU seconds (process_time) are what count on a
shared machine. Saves bench/results/extract_formats.json.
"""

from __future__ import annotations

import argparse
import difflib
import statistics
import tempfile
import time
from pathlib import Path

from _common import save

from desktop_app.core.errors import ExtractionError
from desktop_app.core.ingest.extract import extract
from desktop_app.core.ingest.formats.pdf import extract_pdf

SCAN_SOURCE = "009-pdflatex-geotopo/GeoTopo-komprimiert.pdf"


def plumber_pages(data: bytes) -> list[str]:
    """What Trove did before: pdfplumber's extract_text per page (the removed _extract_pdf)."""
    import io

    import pdfplumber

    texts = []
    with pdfplumber.open(io.BytesIO(data)) as pdf:
        for page in pdf.pages:
            texts.append((page.extract_text() or "").strip())
            page.close()
    return texts


def pdfium_pages(data: bytes) -> list[str]:
    doc = extract_pdf(data, "x")
    return [doc.page_text(p) for p in doc.pages]


def timed(fn, repeat: int = 1) -> tuple[object, float, float]:
    """(result, CPU seconds, wall seconds) per run, the best of `repeat` runs."""
    best_cpu = best_wall = float("inf")
    result = None
    for _ in range(repeat):
        cpu, wall = time.process_time(), time.perf_counter()
        result = fn()
        best_cpu = min(best_cpu, time.process_time() - cpu)
        best_wall = min(best_wall, time.perf_counter() - wall)
    return result, best_cpu, best_wall


def word_similarity(a: str, b: str) -> float:
    """How alike two extractions are, word by word in order (difflib ratio over word sequences, 0..1)."""
    wa, wb = a.split(), b.split()
    if not wa and not wb:
        return 1.0
    return difflib.SequenceMatcher(None, wa, wb, autojunk=False).ratio()


def bag_f1(a: str, b: str) -> float:
    """Overlap of the two extractions' words as multisets (order-free, as a keyword index sees them), 0..1."""
    from collections import Counter

    ca, cb = Counter(a.split()), Counter(b.split())
    if not ca and not cb:
        return 1.0
    common = sum((ca & cb).values())
    return 2 * common / (sum(ca.values()) + sum(cb.values()))


def glued_words(text: str) -> int:
    """Tokens of 25+ letters: words run together when an extractor misses the spaces between them."""
    return sum(1 for w in text.split() if len(w) >= 25 and w.isalpha())


def text_pdfs(folder: Path | None, tmp: Path) -> list[Path]:
    if folder is None:
        from tests.support.helpers import write_pdf

        words = ["retrieval", "index", "semantic", "keyword", "document", "chunk", "vector", "query", "ranking"]
        pages = [" ".join(words[(i + j) % len(words)] for j in range(400)) for i in range(30)]
        return [write_pdf(tmp / f"gen{n}.pdf", pages) for n in range(3)]
    found = []
    for path in sorted(folder.rglob("*.pdf")):
        try:
            doc = extract_pdf(path.read_bytes(), "x")
        except ExtractionError:
            continue  # encrypted or broken: not a text-speed sample
        if doc.text.strip() and not doc.pages_needing_ocr:
            found.append(path)
    return found


def bench_pdf(paths: list[Path], repeat: int) -> dict:
    rows, sims, bags = [], [], []
    glued = {"pdfplumber": 0, "pdfium": 0}
    total = {"pages": 0, "plumber_cpu": 0.0, "pdfium_cpu": 0.0, "plumber_wall": 0.0, "pdfium_wall": 0.0}
    for path in paths:
        data = path.read_bytes()
        old, old_cpu, old_wall = timed(lambda d=data: plumber_pages(d), repeat)
        new, new_cpu, new_wall = timed(lambda d=data: pdfium_pages(d), repeat)
        page_sims = [word_similarity(a, b) for a, b in zip(old, new)]
        sims += page_sims
        bags += [bag_f1(a, b) for a, b in zip(old, new)]
        glued["pdfplumber"] += sum(glued_words(t) for t in old)
        glued["pdfium"] += sum(glued_words(t) for t in new)
        total["pages"] += len(new)
        for key, value in (("plumber_cpu", old_cpu), ("pdfium_cpu", new_cpu), ("plumber_wall", old_wall),
                           ("pdfium_wall", new_wall)):
            total[key] += value
        rows.append({"file": path.name, "pages": len(new), "plumber_cpu_s": round(old_cpu, 4),
                     "pdfium_cpu_s": round(new_cpu, 4), "speedup": round(old_cpu / max(new_cpu, 1e-9), 1),
                     "word_similarity_mean": round(statistics.fmean(page_sims), 3) if page_sims else None})
        print(f"  {path.name:45s} {len(new):4d} p  pdfplumber {old_cpu:7.3f} s  pdfium {new_cpu:6.3f} s  "
              f"x{old_cpu / max(new_cpu, 1e-9):6.1f}  words {statistics.fmean(page_sims) if page_sims else 1:.3f}")
    pages = total["pages"]
    summary = {
        "files": len(paths), "pages": pages,
        "pdfplumber_pages_per_cpu_s": round(pages / total["plumber_cpu"], 1),
        "pdfium_pages_per_cpu_s": round(pages / total["pdfium_cpu"], 1),
        "speedup_cpu": round(total["plumber_cpu"] / total["pdfium_cpu"], 1),
        "pdfplumber_pages_per_wall_s": round(pages / total["plumber_wall"], 1),
        "pdfium_pages_per_wall_s": round(pages / total["pdfium_wall"], 1),
        "speedup_wall": round(total["plumber_wall"] / total["pdfium_wall"], 1),
        "word_similarity_mean": round(statistics.fmean(sims), 3),
        "word_similarity_median": round(statistics.median(sims), 3),
        "pages_below_0.9": sum(s < 0.9 for s in sims),
        "bag_of_words_f1_mean": round(statistics.fmean(bags), 3),
        "bag_of_words_f1_median": round(statistics.median(bags), 3),
        "glued_words_25plus_letters": glued,
    }
    return {"summary": summary, "files": rows}


def rtl_check(folder: Path | None) -> dict:
    """The Arabic samples against their HTML source: which extraction has the source's words."""
    if folder is None or not (folder / "015-arabic" / "habibi.html").exists():
        return {}
    from desktop_app.core.ingest.html_text import html_to_text

    truth = html_to_text((folder / "015-arabic" / "habibi.html").read_text(encoding="utf-8"))[1].split()
    out = {}
    for name in ("habibi.pdf", "habibi-oneline-cmap.pdf", "habibi-rotated.pdf"):
        data = (folder / "015-arabic" / name).read_bytes()
        import pypdfium2 as pdfium

        with_pdfium = " ".join(pdfium.PdfDocument(data)[0].get_textpage().get_text_bounded().split())
        out[name] = {"source_words": truth, "pdfplumber": plumber_pages(data)[0], "pdfium_raw": with_pdfium,
                     "trove": pdfium_pages(data)[0],
                     "trove_has_source_words": all(w in pdfium_pages(data)[0].split() for w in truth)}
    return out


def bench_ocr(source: Path | None, pages: int, tmp: Path) -> dict:
    """OCR of image-only pages made from a text PDF; word recall against that PDF's text layer."""
    from desktop_app.core.ocr import OcrEngine, ocr_pages
    from tests.support.helpers import write_pdf
    from tests.support.sample_docs import write_scanned_pdf

    if source is None or not source.exists():
        source = write_pdf(tmp / "ocr_source.pdf", ["Optical character recognition of a scanned page. " * 20] * pages)
    import pypdfium2 as pdfium

    original = pdfium.PdfDocument(str(source))
    subset = pdfium.PdfDocument.new()
    subset.import_pages(original, list(range(min(pages, len(original)))))
    subset_path = tmp / "ocr_subset.pdf"
    subset.save(str(subset_path))
    truth = pdfium_pages(subset_path.read_bytes())
    scan = write_scanned_pdf(tmp / "scan.pdf", subset_path)
    data = scan.read_bytes()
    doc = extract(scan, data)
    engine = OcrEngine()
    _, load_cpu, _load_wall = timed(lambda: engine.read(data_image(data)))  # loads the models once
    results, cpu, wall = timed(lambda: list(ocr_pages(data, doc, engine)))
    recalls = [_recall(t, r.text) for t, r in zip(truth, results)]
    out = {"source": source.name, "pages": len(results), "first_image_incl_model_load_cpu_s": round(load_cpu, 2),
           "cpu_s_per_page": round(cpu / len(results), 2), "wall_s_per_page": round(wall / len(results), 2),
           "pages_per_wall_s": round(len(results) / wall, 3), "word_recall_mean": round(statistics.fmean(recalls), 3),
           "mean_confidence": round(statistics.fmean(r.confidence for r in results), 3)}
    print(f"  OCR {out['pages']} pages: {out['cpu_s_per_page']} CPU-s/page, {out['wall_s_per_page']} s/page wall, "
          f"word recall {out['word_recall_mean']}")
    return out


def data_image(pdf_data: bytes):
    from desktop_app.core.ingest.page_images import render_pdf_page

    return render_pdf_page(pdf_data, 1)


def _recall(truth: str, read: str) -> float:
    words = [w.lower() for w in truth.split() if any(c.isalpha() for c in w)]
    got = {w.lower() for w in read.split()}
    return sum(w in got for w in words) / len(words) if words else 1.0


def bench_mixed(per_format: int, tmp: Path) -> dict:
    """files/s of extract() over a folder holding `per_format` files of every format (no OCR)."""
    folder = make_mixed(tmp / "mixed", per_format)
    files = sorted(p for p in folder.iterdir() if p.is_file())
    by_type: dict[str, list[float]] = {}
    cpu0, wall0 = time.process_time(), time.perf_counter()
    for path in files:
        start = time.process_time()
        doc = extract(path)
        by_type.setdefault(doc.type, []).append(time.process_time() - start)
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    out = {"files": len(files), "files_per_cpu_s": round(len(files) / cpu, 1),
           "files_per_wall_s": round(len(files) / wall, 1),
           "ms_per_file_by_type": {k: round(1000 * statistics.fmean(v), 2) for k, v in sorted(by_type.items())}}
    print(f"  mixed folder: {out['files']} files, {out['files_per_cpu_s']} files/CPU-s, "
          f"{out['files_per_wall_s']} files/s")
    return out


def make_mixed(folder: Path, per_format: int) -> Path:
    from tests.support import sample_docs as sd
    from tests.support.helpers import write_docx, write_pdf

    folder.mkdir(parents=True)
    para = "Local search over documents with citations, page numbers and a grounded answer. " * 6
    for i in range(per_format):
        write_pdf(folder / f"p{i}.pdf", [para] * 5)
        write_docx(folder / f"d{i}.docx", [para] * 10)
        sd.write_odt(folder / f"o{i}.odt", [para] * 10)
        sd.write_epub(folder / f"e{i}.epub", [(f"Chapter {c}", para * 3) for c in range(5)])
        sd.write_pptx(folder / f"s{i}.pptx", [(f"Slide {c}", para) for c in range(8)])
        sd.write_odp(folder / f"s{i}.odp", [para] * 8)
        rows = [["id", "name", "amount", "note"]] + [[r, f"item {r}", r * 1.5, "ok"] for r in range(300)]
        sd.write_xlsx(folder / f"x{i}.xlsx", {"Data": rows})
        sd.write_ods(folder / f"x{i}.ods", {"Data": rows[:100]})
        (folder / f"c{i}.csv").write_text("\n".join(",".join(map(str, r)) for r in rows), encoding="utf-8")
        sd.write_rtf(folder / f"r{i}.rtf", [para] * 10)
        sd.write_eml(folder / f"m{i}.eml", sd.make_email(f"Mail {i}", para * 3,
                                                           attachments=[("n.txt", para.encode(), "text/plain")]))
        sd.write_mbox(folder / f"b{i}.mbox", [sd.make_email(f"M{k}", para) for k in range(10)])
        sd.write_msg(folder / f"o{i}.msg", f"Outlook {i}", para * 3)
        sd.write_ipynb(folder / f"n{i}.ipynb", [("markdown", "# Notes\n" + para), ("code", "x = 1\n" * 20)] * 5)
        (folder / f"t{i}.md").write_text("---\ntitle: Note\n---\n" + para * 5, encoding="utf-8")
        (folder / f"h{i}.html").write_text(f"<title>Page {i}</title><p>{para}</p>", encoding="utf-8")
        sd.write_text_image(folder / f"i{i}.png", ["Receipt 42"])
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pdfs", type=Path, help="folder of real PDFs (searched recursively)")
    parser.add_argument("--ocr-pages", type=int, default=6)
    parser.add_argument("--per-format", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=2, help="best of N for the PDF timings")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        print("PDF text: pdfplumber (before) vs PDFium (after)")
        pdf = bench_pdf(text_pdfs(args.pdfs, tmp), args.repeat)
        s = pdf["summary"]
        print(f"  {s['pages']} pages in {s['files']} PDFs: pdfplumber {s['pdfplumber_pages_per_cpu_s']} pages/CPU-s, "
              f"PDFium {s['pdfium_pages_per_cpu_s']} pages/CPU-s = x{s['speedup_cpu']} "
              f"(wall x{s['speedup_wall']}); in-order word similarity mean {s['word_similarity_mean']}, "
              f"bag-of-words F1 mean {s['bag_of_words_f1_mean']}; glued words {s['glued_words_25plus_letters']}")
        rtl = rtl_check(args.pdfs)
        for name, row in rtl.items():
            print(f"  {name}: Trove has the source's words: {row['trove_has_source_words']}")
        print("OCR")
        ocr = bench_ocr(args.pdfs / SCAN_SOURCE if args.pdfs else None, args.ocr_pages, tmp)
        print("Mixed folder, extraction only")
        mixed = bench_mixed(args.per_format, tmp)
    save("extract_formats", {"pdf": pdf, "rtl": rtl, "ocr": ocr, "mixed": mixed,
                             "pdf_source": str(args.pdfs) if args.pdfs else "generated (fpdf2)",
                             "note": "shared 2-core machine; CPU seconds are the comparable figure"})


if __name__ == "__main__":
    main()
