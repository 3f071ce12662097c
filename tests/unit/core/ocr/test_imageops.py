"""imageops (rapidocr's image operations without OpenCV) against OpenCV itself, which the venv still has as
rapidocr's dependency: the app ships without it, so these are the numbers OCR's results rest on."""

from __future__ import annotations

import sys

import cv2  # installed with rapidocr in the dev environment; the frozen app has only imageops
import numpy as np
import pytest

from desktop_app.core.ocr import imageops


@pytest.fixture
def rng():
    return np.random.default_rng(7)


@pytest.mark.parametrize("shape,size", [((37, 53, 3), (64, 48)), ((200, 120, 3), (48, 736)), ((48, 300), (320, 48)),
                                        ((31, 31, 3), (31, 31))])
def test_resize_matches_opencv_within_one_level(rng, shape, size):
    img = rng.integers(0, 256, shape, dtype=np.uint8)
    ours, theirs = imageops.resize(img, size), cv2.resize(img, size)
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
    assert np.abs(ours.astype(int) - theirs.astype(int)).max() <= 1


def test_perspective_crop_matches_opencv(rng):
    img = cv2.GaussianBlur(rng.integers(0, 256, (120, 200, 3), dtype=np.uint8), (5, 5), 0)
    src = np.array([[20.5, 30.0], [170.0, 22.0], [176.0, 70.0], [18.0, 80.5]], np.float32)
    dst = np.array([[0, 0], [150, 0], [150, 50], [0, 50]], np.float32)
    matrix = imageops.getPerspectiveTransform(src, dst)
    assert np.allclose(matrix, cv2.getPerspectiveTransform(src, dst), atol=1e-9)
    args = dict(borderMode=cv2.BORDER_REPLICATE, flags=cv2.INTER_CUBIC)
    ours = imageops.warpPerspective(img, matrix, (150, 50), **args)
    theirs = cv2.warpPerspective(img, matrix, (150, 50), **args)
    assert ours.shape == theirs.shape
    assert np.abs(ours.astype(int) - theirs.astype(int)).max() <= 3  # OpenCV rounds coordinates to 1/32 pixel
    assert np.abs(ours.astype(int) - theirs.astype(int)).mean() < 0.5


def _rect_corners(rect):
    return [v for corner in sorted(map(tuple, np.asarray(rect, np.float64).tolist())) for v in corner]


@pytest.mark.parametrize("seed", range(12))
def test_min_area_rect_matches_opencv(seed):
    points = np.random.default_rng(seed).normal(0, [40, 8], (30, 2)) @ np.array([[0.9, 0.3], [-0.3, 0.9]]) + 100
    points = points.astype(np.float32)
    ours, theirs = imageops.minAreaRect(points), cv2.minAreaRect(points)
    assert sorted(ours[1]) == pytest.approx(sorted(theirs[1]), abs=1e-3)
    assert ours[0] == pytest.approx(theirs[0], abs=1e-3)
    assert _rect_corners(imageops.boxPoints(ours)) == pytest.approx(_rect_corners(cv2.boxPoints(theirs)), abs=2e-3)


def test_contours_give_opencv_boxes_for_text_blobs(rng):
    """What rapidocr takes from findContours: the minAreaRect of each contour (8-connected blobs, and holes)."""
    bitmap = np.zeros((160, 300), np.uint8)
    bitmap[10:30, 20:200] = 1
    bitmap[50:70, 40:260] = 1
    bitmap[52:60, 120:140] = 0  # a hole: RETR_LIST's inner contour is not a text line
    bitmap[100:102, 5:9] = 1
    bitmap[102:104, 9:13] = 1  # touches the row above only diagonally: one blob
    cols = np.arange(120)
    bitmap[110 + cols // 12, 150 + cols] = 1  # a thin slanted stroke
    bitmap[130:150, 10:60] = 1
    bitmap[135:140, 20:25] = 0  # two holes in one blob
    bitmap[140:145, 40:50] = 0
    bitmap[150:160, 280:300] = 1  # at the image's edge
    bitmap = cv2.dilate(bitmap, np.ones((2, 2)))
    assert np.array_equal(imageops.dilate(bitmap, np.ones((2, 2))), cv2.dilate(bitmap, np.ones((2, 2))))
    ours, _ = imageops.findContours(bitmap * 255, imageops.RETR_LIST, imageops.CHAIN_APPROX_SIMPLE)
    theirs, _ = cv2.findContours(bitmap * 255, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    assert len(ours) == len(theirs) == 9

    def key(rect):
        return tuple(np.round(sorted(rect[1]) + list(rect[0]), 2))

    assert sorted(key(imageops.minAreaRect(c)) for c in ours) == sorted(key(cv2.minAreaRect(c)) for c in theirs)


def test_contours_of_a_dithered_map_give_opencv_boxes():
    """A detector map of a blank band can be dithered: tens of thousands of blobs and holes on a real page (1,676
    in this patch). Every one is found, with OpenCV's box, in numpy's time rather than a scan of the map per blob
    (a page's band took 35 s, now 2)."""
    bitmap = np.zeros((80, 120), np.uint8)
    bitmap[10:50, 10:100] = 255 * (np.indices((40, 90)).sum(0) % 2)  # blobs touching only diagonally, and holes
    bitmap[60:70, 10:60] = 255
    bitmap[62:66, 20:30] = 0
    bitmap[72:78, 70:110] = 255
    ours, _ = imageops.findContours(bitmap, imageops.RETR_LIST, imageops.CHAIN_APPROX_SIMPLE)
    theirs, _ = cv2.findContours(bitmap, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    assert len(ours) == len(theirs) == 1676

    def key(rect):
        return tuple(np.round(sorted(rect[1]) + list(rect[0]), 2))

    assert sorted(key(imageops.minAreaRect(c)) for c in ours) == sorted(key(cv2.minAreaRect(c)) for c in theirs)


def test_box_score_matches_opencv(rng):
    pred = rng.random((40, 60)).astype(np.float32)
    box = np.array([[[3, 4], [50, 6], [48, 30], [2, 28]]], np.int32)
    ours = imageops.mean(pred, imageops.fillPoly(np.zeros((40, 60), np.uint8), box, 1))[0]
    theirs = cv2.mean(pred, cv2.fillPoly(np.zeros((40, 60), np.uint8), box, 1))[0]
    assert ours == pytest.approx(theirs, abs=0.01)


def test_small_ops_match_opencv(rng):
    img = rng.integers(0, 256, (9, 7, 3), dtype=np.uint8)
    gray = img[:, :, 0].copy()
    assert np.array_equal(imageops.rotate(img, imageops.ROTATE_180), cv2.rotate(img, cv2.ROTATE_180))
    assert np.array_equal(imageops.cvtColor(gray, imageops.COLOR_GRAY2BGR), cv2.cvtColor(gray, cv2.COLOR_GRAY2BGR))
    assert np.array_equal(imageops.cvtColor(img, imageops.COLOR_RGB2BGR), cv2.cvtColor(img, cv2.COLOR_RGB2BGR))
    assert np.array_equal(imageops.copyMakeBorder(img, 1, 2, 3, 4, imageops.BORDER_CONSTANT, value=(0, 0, 0)),
                          cv2.copyMakeBorder(img, 1, 2, 3, 4, cv2.BORDER_CONSTANT, value=(0, 0, 0)))
    assert np.array_equal(imageops.add(img, img), cv2.add(img, img))


def test_rapidocr_runs_on_imageops_and_the_process_keeps_opencv():
    rapidocr = imageops.use_in_rapidocr()
    from rapidocr.ch_ppocr_det import utils as det_utils
    from rapidocr.utils import process_img

    assert rapidocr.__name__ == "rapidocr"
    assert det_utils.cv2 is imageops and process_img.cv2 is imageops and det_utils.Polygon is imageops.Polygon
    assert sys.modules["cv2"] is cv2


def test_polygon_matches_shapely():
    from shapely import geometry  # installed with rapidocr in the dev environment
    box = np.array([[3.5, 4.0], [50.0, 6.25], [48.0, 30.0], [2.0, 28.5]])
    ours, theirs = imageops.Polygon(box), geometry.Polygon(box)
    assert ours.area == pytest.approx(theirs.area) and ours.length == pytest.approx(theirs.length)


def test_decoding_and_masks_match_opencv(rng):
    gray_alpha = rng.integers(0, 256, (6, 5, 2), dtype=np.uint8)
    ours = imageops.add(imageops.bitwise_and(imageops.cvtColor(gray_alpha[..., 0], imageops.COLOR_GRAY2BGR),
                                             imageops.cvtColor(gray_alpha[..., 0], imageops.COLOR_GRAY2BGR),
                                             mask=gray_alpha[..., 1]),
                        imageops.cvtColor(imageops.bitwise_not(gray_alpha[..., 1]), imageops.COLOR_GRAY2BGR))
    bgr = cv2.cvtColor(gray_alpha[..., 0], cv2.COLOR_GRAY2BGR)
    theirs = cv2.add(cv2.bitwise_and(bgr, bgr, mask=gray_alpha[..., 1]),
                     cv2.cvtColor(cv2.bitwise_not(gray_alpha[..., 1]), cv2.COLOR_GRAY2BGR))
    assert np.array_equal(ours, theirs)
    png = cv2.imencode(".png", rng.integers(0, 256, (8, 9, 3), dtype=np.uint8))[1]
    assert np.array_equal(imageops.imdecode(png, imageops.IMREAD_COLOR), cv2.imdecode(png, cv2.IMREAD_COLOR))
    assert imageops.imdecode(np.frombuffer(b"not an image", np.uint8), imageops.IMREAD_COLOR) is None


def test_what_is_not_provided_says_so(tmp_path):
    img = np.zeros((4, 4, 3), np.uint8)
    calls = [lambda: imageops.imwrite(str(tmp_path / "x.png"), img), lambda: imageops.imencode(".png", img),
             lambda: imageops.putText(img, "x", (0, 0), imageops.FONT_HERSHEY_SIMPLEX, 1, (0, 0, 0)),
             lambda: imageops.polylines(img, [], True, (0, 0, 0)),
             lambda: imageops.resize(img, (2, 2), interpolation=3),
             lambda: imageops.warpPerspective(img, np.eye(3), (2, 2), borderMode=imageops.BORDER_CONSTANT)]
    for call in calls:
        with pytest.raises(NotImplementedError):
            call()
