"""The few OpenCV functions rapidocr calls, in numpy and Pillow, so the app ships without OpenCV (152 MB), and
the one shapely class it uses (Polygon's area and length).

rapidocr does `import cv2` at the top of its modules and calls: resize (bilinear), warpPerspective (bicubic,
replicated border) with getPerspectiveTransform, findContours on the detector's binary map, minAreaRect and
boxPoints, fillPoly and mean (a box's score), dilate (2x2), copyMakeBorder, rotate, cvtColor between gray/RGB(A)
and BGR, bitwise ops, imdecode and invert. `engine.build_rapidocr` binds this module as `cv2` inside rapidocr's
modules (`use_in_rapidocr`); the rest of the process keeps the real OpenCV where it is installed.

Where OpenCV's result is defined by geometry (contours, rectangles, transforms) these give the same numbers;
interpolation is computed in floating point where OpenCV uses fixed point, so a pixel may differ by one grey
level. Drawing and writing images (imwrite, putText, polylines: rapidocr's visualisation) are not provided.
"""

from __future__ import annotations

import sys
from types import ModuleType
from typing import Any

import numpy as np

# The constants rapidocr names (OpenCV's values).
INTER_LINEAR, INTER_CUBIC = 1, 2
BORDER_CONSTANT, BORDER_REPLICATE = 0, 1
RETR_LIST, CHAIN_APPROX_SIMPLE = 1, 2
ROTATE_90_CLOCKWISE, ROTATE_180, ROTATE_90_COUNTERCLOCKWISE = 0, 1, 2
COLOR_BGRA2BGR, COLOR_RGBA2BGR, COLOR_RGB2BGR, COLOR_GRAY2BGR = 1, 3, 4, 8
IMREAD_COLOR = 1
FONT_HERSHEY_SIMPLEX = 0


# ------------------------------------------------------------------------------------------ geometry
def getPerspectiveTransform(src: np.ndarray, dst: np.ndarray) -> np.ndarray:  # noqa: N802 - OpenCV's name
    """The 3x3 homography taking the four `src` points to the four `dst` points."""
    src, dst = np.asarray(src, np.float64).reshape(4, 2), np.asarray(dst, np.float64).reshape(4, 2)
    a = np.zeros((8, 8))
    b = np.zeros(8)
    for i, ((x, y), (u, v)) in enumerate(zip(src, dst, strict=True)):
        a[i] = (x, y, 1, 0, 0, 0, -x * u, -y * u)
        a[i + 4] = (0, 0, 0, x, y, 1, -x * v, -y * v)
        b[i], b[i + 4] = u, v
    return np.append(np.linalg.solve(a, b), 1.0).reshape(3, 3)


def invert(matrix: np.ndarray) -> tuple[float, np.ndarray]:
    """(1.0, inverse) like cv2.invert; (0.0, zeros) for a singular matrix."""
    try:
        return 1.0, np.linalg.inv(matrix)
    except np.linalg.LinAlgError:
        return 0.0, np.zeros_like(matrix, dtype=np.float64)


def _hull(points: np.ndarray) -> np.ndarray:
    """Convex hull (Andrew's monotone chain) of an (N, 2) array; collinear points dropped."""
    pts = np.unique(points.astype(np.float64), axis=0)  # sorted by x, then y
    if len(pts) < 3:
        return pts

    def half(seq: np.ndarray) -> list[np.ndarray]:
        out: list[np.ndarray] = []
        for p in seq:
            while len(out) >= 2:
                (ax, ay), (bx, by) = out[-2], out[-1]
                if (bx - ax) * (p[1] - ay) - (by - ay) * (p[0] - ax) > 0:
                    break
                out.pop()
            out.append(p)
        return out

    lower, upper = half(pts), half(pts[::-1])
    return np.array(lower[:-1] + upper[:-1])


def minAreaRect(points: np.ndarray) -> tuple[tuple[float, float], tuple[float, float], float]:  # noqa: N802
    """((cx, cy), (w, h), angle in degrees) of the smallest rectangle holding `points` (any shape (N, ..., 2))."""
    hull = _hull(np.asarray(points).reshape(-1, 2))
    if len(hull) == 1:
        return (float(hull[0][0]), float(hull[0][1])), (0.0, 0.0), 0.0
    if len(hull) == 2:
        (x0, y0), (x1, y1) = hull
        length = float(np.hypot(x1 - x0, y1 - y0))
        return ((x0 + x1) / 2, (y0 + y1) / 2), (length, 0.0), float(np.degrees(np.arctan2(y1 - y0, x1 - x0)))
    edges = np.roll(hull, -1, axis=0) - hull
    angles = np.arctan2(edges[:, 1], edges[:, 0])
    best = None
    for theta in angles:
        c, s = np.cos(theta), np.sin(theta)
        u = hull @ np.array([c, s])  # along the edge
        v = hull @ np.array([-s, c])  # across it
        area = (u.max() - u.min()) * (v.max() - v.min())
        if best is None or area < best[0] - 1e-9:
            best = (area, theta, u.min(), u.max(), v.min(), v.max())
    assert best is not None
    _area, theta, u0, u1, v0, v1 = best
    c, s = np.cos(theta), np.sin(theta)
    uc, vc = (u0 + u1) / 2, (v0 + v1) / 2
    centre = (float(uc * c - vc * s), float(uc * s + vc * c))
    return centre, (float(u1 - u0), float(v1 - v0)), float(np.degrees(theta))


def boxPoints(rect: tuple[tuple[float, float], tuple[float, float], float]) -> np.ndarray:  # noqa: N802
    """The four corners (float32, (4, 2)) of a minAreaRect result."""
    (cx, cy), (w, h), angle = rect
    theta = np.radians(angle)
    c, s = np.cos(theta), np.sin(theta)
    corners = [(-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2)]
    return np.array([(cx + du * c - dv * s, cy + du * s + dv * c) for du, dv in corners], dtype=np.float32)


def _runs(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(row, first column, last column) of each horizontal run of True pixels, in raster order."""
    padded = np.zeros((mask.shape[0], mask.shape[1] + 2), np.int8)
    padded[:, 1:-1] = mask
    rows, cols = np.nonzero(np.diff(padded, axis=1))
    return rows[0::2], cols[0::2], cols[1::2] - 1


def _components(ys: np.ndarray, x0: np.ndarray, x1: np.ndarray, width: int, reach: int) -> np.ndarray:
    """The component (its first run's index) of each run: runs on adjacent rows join when their columns come
    within `reach` of each other (1: 8-connected, touching diagonally; 0: 4-connected, sharing a column).

    In numpy: the runs a run touches on the row above are one range of the raster-ordered runs (runs on a row are
    disjoint and sorted), found by binary search on (row, column) keys; then components by hooking each edge's
    larger root under its smaller one and jumping pointers until nothing changes (each component ends labelled by
    its smallest run index, as a union-find joining under the smaller root would)."""
    n = len(ys)
    stride = width + 2 * reach + 2  # a (row, column) key; columns shifted by `reach` stay inside their row
    ends, starts = ys * stride + x1 + reach, ys * stride + x0 + reach
    above = (ys - 1) * stride + reach
    lo = np.searchsorted(ends, above + x0 - reach, "left")
    hi = np.searchsorted(starts, above + x1 + reach, "right")
    count = np.maximum(hi - lo, 0)
    run = np.repeat(np.arange(n), count)
    other = np.repeat(lo, count) + np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count)
    labels = np.arange(n)
    while True:
        low = np.minimum(labels[run], labels[other])
        hooked = labels.copy()
        np.minimum.at(hooked, labels[run], low)
        np.minimum.at(hooked, labels[other], low)
        while not np.array_equal(jumped := hooked[hooked], hooked):
            hooked = jumped
        if np.array_equal(hooked, labels):
            return labels
        labels = hooked


def _grouped(roots: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Runs grouped by their component, in one sort (a mask per component is quadratic: a dithered detector map
    has tens of thousands of components): (run indices ordered by component and, within one, by index; where each
    component's runs start in that order; where they end). Components come in the order of their roots."""
    order = np.argsort(roots, kind="stable")
    ordered = roots[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    return order, starts, np.r_[starts[1:], len(order)]


def findContours(image: np.ndarray, mode: int, method: int) -> tuple[tuple[np.ndarray, ...], np.ndarray]:  # noqa: N802
    """Point sets ((N, 1, 2) int32) standing for RETR_LIST's contours: one per 8-connected blob of non-zero
    pixels (its runs' end pixels) and one per hole in a blob (the blob's pixels around it).

    rapidocr only takes each contour's minAreaRect, which depends on the outline's convex hull alone, and these
    points have the hull of the border OpenCV traces; so the boxes are the same. Contours are listed from the
    bottom of the image up (by their first pixel), as OpenCV lists separate blobs."""
    mask = np.asarray(image) != 0
    if mask.ndim != 2 or not mask.any():
        return (), np.zeros((1, 0, 4), np.int32)
    found: list[tuple[tuple[int, int], np.ndarray]] = []
    ys, x0, x1 = _runs(mask)
    order, starts, ends = _grouped(_components(ys, x0, x1, mask.shape[1], reach=1))
    left, right = np.stack([x0[order], ys[order]], 1), np.stack([x1[order], ys[order]], 1)
    for s, e in zip(starts.tolist(), ends.tolist(), strict=True):
        first = order[s]  # the component's first run (its root)
        found.append(((int(ys[first]), int(x0[first])), np.concatenate([left[s:e], right[s:e]])))
    # Holes: 4-connected blobs of zeros that do not touch the image's edge; their border is the ring of pixels
    # next to them (left/right of each run, above/below it).
    hy, h0, h1 = _runs(~mask)
    order, starts, ends = _grouped(_components(hy, h0, h1, mask.shape[1], reach=0))
    row, a, b = hy[order], h0[order], h1[order]
    height, width = mask.shape
    inner = ((np.minimum.reduceat(row, starts) > 0) & (np.maximum.reduceat(row, starts) < height - 1)
             & (np.minimum.reduceat(a, starts) > 0) & (np.maximum.reduceat(b, starts) < width - 1))
    ring = [np.stack(pair, 1) for pair in ((a - 1, row), (b + 1, row), (a, row - 1), (b, row - 1),
                                           (a, row + 1), (b, row + 1))]
    for g in np.flatnonzero(inner).tolist():
        s, e = int(starts[g]), int(ends[g])
        first = order[s]
        found.append(((int(hy[first]) - 1, int(h0[first])), np.concatenate([side[s:e] for side in ring])))
    found.sort(key=lambda item: item[0], reverse=True)
    contours = tuple(pts.astype(np.int32).reshape(-1, 1, 2) for _first, pts in found)
    hierarchy = np.full((1, len(contours), 4), -1, np.int32)
    return contours, hierarchy


# --------------------------------------------------------------------------------------- raster ops
def fillPoly(img: np.ndarray, pts: Any, color: Any) -> np.ndarray:  # noqa: N802
    """Fill polygons (and their outlines) into `img` in place, like cv2.fillPoly."""
    from PIL import Image, ImageDraw

    value = color if np.isscalar(color) else color[0]
    canvas = Image.new("L", (img.shape[1], img.shape[0]), 0)
    draw = ImageDraw.Draw(canvas)
    for poly in pts:
        xy = [(float(x), float(y)) for x, y in np.asarray(poly).reshape(-1, 2)]
        draw.polygon(xy, fill=1, outline=1)
    img[np.asarray(canvas) > 0] = value
    return img


def mean(src: np.ndarray, mask: np.ndarray | None = None) -> tuple[float, float, float, float]:
    """Per-channel mean over `mask`'s non-zero pixels, as a 4-tuple (cv2.mean)."""
    src = np.asarray(src, np.float64)
    flat = src.reshape(src.shape[0], src.shape[1], -1)
    chosen = flat if mask is None else flat[np.asarray(mask) != 0]
    values = chosen.reshape(-1, flat.shape[2]).mean(axis=0) if chosen.size else np.zeros(flat.shape[2])
    out = [float(v) for v in values] + [0.0] * (4 - len(values))
    return out[0], out[1], out[2], out[3]


def dilate(src: np.ndarray, kernel: np.ndarray) -> np.ndarray:
    """Grey dilation with a rectangular kernel of ones anchored at its centre (pixels outside are ignored)."""
    kh, kw = np.asarray(kernel).shape
    ay, ax = kh // 2, kw // 2
    out = src.copy()
    height, width = src.shape[:2]
    for dy in range(-ay, kh - ay):
        for dx in range(-ax, kw - ax):
            # dst(y, x) = max(src(y + dy, x + dx))
            ys, yd = slice(max(dy, 0), height + min(dy, 0)), slice(max(-dy, 0), height + min(-dy, 0))
            xs, xd = slice(max(dx, 0), width + min(dx, 0)), slice(max(-dx, 0), width + min(-dx, 0))
            np.maximum(out[yd, xd], src[ys, xs], out=out[yd, xd])
    return out


def copyMakeBorder(src: np.ndarray, top: int, bottom: int, left: int, right: int,  # noqa: N802
                   border_type: int, value: Any = 0) -> np.ndarray:
    pad = [(top, bottom), (left, right)] + [(0, 0)] * (src.ndim - 2)
    if border_type == BORDER_REPLICATE:
        return np.pad(src, pad, mode="edge")
    if src.ndim == 3 and not np.isscalar(value):
        out = np.empty((src.shape[0] + top + bottom, src.shape[1] + left + right, src.shape[2]), src.dtype)
        out[...] = np.asarray(value, dtype=src.dtype)[: src.shape[2]]
        out[top:top + src.shape[0], left:left + src.shape[1]] = src
        return out
    return np.pad(src, pad, mode="constant", constant_values=value if np.isscalar(value) else value[0])


def rotate(src: np.ndarray, code: int) -> np.ndarray:
    turns = {ROTATE_90_CLOCKWISE: -1, ROTATE_180: 2, ROTATE_90_COUNTERCLOCKWISE: 1}[code]
    return np.ascontiguousarray(np.rot90(src, turns))


def cvtColor(src: np.ndarray, code: int) -> np.ndarray:  # noqa: N802
    if code == COLOR_GRAY2BGR:
        gray = src.reshape(src.shape[0], src.shape[1])
        return np.repeat(gray[:, :, None], 3, axis=2)
    if code in (COLOR_RGB2BGR, COLOR_RGBA2BGR):
        return np.ascontiguousarray(src[:, :, 2::-1])
    if code == COLOR_BGRA2BGR:
        return np.ascontiguousarray(src[:, :, :3])
    raise NotImplementedError(f"cvtColor code {code}")


def bitwise_not(src: np.ndarray) -> np.ndarray:
    return np.invert(src)


def bitwise_and(a: np.ndarray, b: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    out = np.bitwise_and(a, b)
    if mask is not None:
        out[np.asarray(mask) == 0] = 0
    return out


def add(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Saturating addition of two uint8 images."""
    return np.clip(a.astype(np.int16) + b.astype(np.int16), 0, 255).astype(np.uint8)


def imdecode(buf: np.ndarray, flags: int) -> np.ndarray | None:
    """A BGR array of an encoded image, or None when it cannot be decoded."""
    import io

    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(np.asarray(buf, np.uint8).tobytes())) as img:
            return np.ascontiguousarray(np.asarray(img.convert("RGB"))[:, :, ::-1])
    except (UnidentifiedImageError, OSError, ValueError):
        return None


# -------------------------------------------------------------------------------------- interpolation
def _linear_taps(src_len: int, dst_len: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Index pairs and weights of OpenCV's INTER_LINEAR along one axis (pixel centres aligned, no smoothing)."""
    f = (np.arange(dst_len) + 0.5) * (src_len / dst_len) - 0.5
    i0 = np.floor(f).astype(np.int64)
    w = f - i0
    w[i0 < 0] = 0.0
    i0 = np.clip(i0, 0, src_len - 1)
    w[i0 >= src_len - 1] = 0.0
    return i0, np.minimum(i0 + 1, src_len - 1), w


def _to_dtype(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return np.clip(np.floor(values + 0.5), info.min, info.max).astype(dtype)
    return values.astype(dtype)


def resize(src: np.ndarray, dsize: tuple[int, int], interpolation: int = INTER_LINEAR) -> np.ndarray:
    """Bilinear resize to dsize = (width, height), as cv2.resize with INTER_LINEAR."""
    if interpolation not in (INTER_LINEAR, INTER_CUBIC):
        raise NotImplementedError(f"resize interpolation {interpolation} (rapidocr uses INTER_LINEAR)")
    width, height = int(dsize[0]), int(dsize[1])
    if (height, width) == src.shape[:2]:
        return src.copy()
    y0, y1, wy = _linear_taps(src.shape[0], height)
    x0, x1, wx = _linear_taps(src.shape[1], width)
    data = src.astype(np.float32)
    extra = (slice(None),) + (None,) * (src.ndim - 2)
    wx_, wy_ = wx[extra].astype(np.float32), wy[extra].astype(np.float32)
    top = data[y0][:, x0] * (1 - wx_) + data[y0][:, x1] * wx_
    bottom = data[y1][:, x0] * (1 - wx_) + data[y1][:, x1] * wx_
    wy_col = wy_[:, None] if src.ndim == 2 else wy_[:, None, :]
    return _to_dtype(top * (1 - wy_col) + bottom * wy_col, src.dtype)


def _cubic_weights(t: np.ndarray) -> np.ndarray:
    """OpenCV's bicubic kernel (A = -0.75) for fractional offsets t: weights of pixels -1, 0, 1, 2."""
    a = -0.75
    t = t[..., None] + np.array([1.0, 0.0, -1.0, -2.0])
    d = np.abs(t)
    return np.where(d <= 1, ((a + 2) * d - (a + 3)) * d * d + 1,
                    np.where(d < 2, ((a * d - 5 * a) * d + 8 * a) * d - 4 * a, 0.0))


def warpPerspective(src: np.ndarray, matrix: np.ndarray, dsize: tuple[int, int], flags: int = INTER_LINEAR,  # noqa: N802
                    borderMode: int = BORDER_REPLICATE) -> np.ndarray:  # noqa: N803 - OpenCV's keyword
    """Warp `src` by the homography `matrix` (src -> dst) into a (height, width) = dsize[::-1] image, bicubic
    (INTER_CUBIC) or bilinear, with the border replicated (the only border rapidocr uses)."""
    if borderMode != BORDER_REPLICATE:
        raise NotImplementedError(f"warpPerspective border {borderMode} (rapidocr uses BORDER_REPLICATE)")
    width, height = int(dsize[0]), int(dsize[1])
    inverse = np.linalg.inv(np.asarray(matrix, np.float64))
    gx, gy = np.meshgrid(np.arange(width, dtype=np.float64), np.arange(height, dtype=np.float64))
    den = inverse[2, 0] * gx + inverse[2, 1] * gy + inverse[2, 2]
    den = np.where(den == 0, 1e-12, den)
    sx = (inverse[0, 0] * gx + inverse[0, 1] * gy + inverse[0, 2]) / den
    sy = (inverse[1, 0] * gx + inverse[1, 1] * gy + inverse[1, 2]) / den
    data = src.astype(np.float64)
    h, w = src.shape[:2]
    ix, iy = np.floor(sx).astype(np.int64), np.floor(sy).astype(np.int64)
    fx, fy = sx - ix, sy - iy
    offsets: tuple[int, ...]
    if flags & 0xF == INTER_CUBIC:
        offsets, wxs, wys = (-1, 0, 1, 2), _cubic_weights(fx), _cubic_weights(fy)
    else:
        offsets = (0, 1)
        wxs, wys = np.stack([1 - fx, fx], -1), np.stack([1 - fy, fy], -1)
    out = np.zeros((height, width) + src.shape[2:], np.float64)
    extra = (...,) + (None,) * (src.ndim - 2)
    for j, dy in enumerate(offsets):
        rows = np.clip(iy + dy, 0, h - 1)
        for i, dx in enumerate(offsets):
            cols = np.clip(ix + dx, 0, w - 1)
            out += data[rows, cols] * (wys[..., j] * wxs[..., i])[extra]
    return _to_dtype(out, src.dtype)


# ------------------------------------------------------------------------------------ not provided
def _not_provided(name: str):
    def missing(*_args: Any, **_kwargs: Any) -> Any:
        raise NotImplementedError(f"cv2.{name} is not available in Trove's OpenCV-free OCR (imageops)")
    missing.__name__ = name
    return missing


imwrite = _not_provided("imwrite")
imencode = _not_provided("imencode")
putText = _not_provided("putText")  # noqa: N816 - OpenCV's name
polylines = _not_provided("polylines")


class Polygon:
    """What rapidocr's detector asks of shapely's Polygon (a box's area and perimeter when it grows the box), so
    shapely and GEOS (7 MB) stay out of the app too."""

    def __init__(self, points: Any) -> None:
        self.points = np.asarray(points, np.float64).reshape(-1, 2)

    @property
    def area(self) -> float:
        x, y = self.points[:, 0], self.points[:, 1]
        return float(abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) / 2)

    @property
    def length(self) -> float:
        return float(np.hypot(*(np.roll(self.points, -1, axis=0) - self.points).T).sum())


def use_in_rapidocr() -> Any:
    """Import rapidocr's pipeline with this module as its `cv2` (and its `Polygon` as shapely's) and return
    `rapidocr`.

    While rapidocr's modules are imported, `cv2` and `shapely.geometry` name this module (so they import where
    OpenCV and shapely are absent, as in the app); afterwards every loaded rapidocr module that holds a `cv2` or
    a `Polygon` is pointed here too (in case rapidocr was imported before), and `sys.modules` is put back."""
    this = sys.modules[__name__]
    names = ("cv2", "shapely", "shapely.geometry")
    saved = {name: sys.modules.get(name) for name in names}
    for name in names:
        sys.modules[name] = this
    try:
        import rapidocr
        import rapidocr.main  # noqa: F401 - imports every rapidocr module that uses cv2
    finally:
        for name, module in saved.items():
            if module is None:
                del sys.modules[name]
            else:
                sys.modules[name] = module
    for name, module in list(sys.modules.items()):
        if name.split(".")[0] == "rapidocr":
            if isinstance(getattr(module, "cv2", None), ModuleType):
                module.cv2 = this  # type: ignore[attr-defined]
            if getattr(module, "Polygon", None) is not None:
                module.Polygon = Polygon  # type: ignore[attr-defined]
    return rapidocr
