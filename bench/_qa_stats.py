"""95% intervals for bench/qa.py: Wilson for proportions, a question-level bootstrap for ratios of sums
(citation precision: several citations of one answer are not independent) and for paired differences (the same
question in two languages), and distribution-free
order-statistic intervals for quantiles (p50, p90 of seconds)."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

Z95 = 1.959963984540054
BOOTSTRAP_ROUNDS = 2000
BOOTSTRAP_SEED = 7


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion; (0, 1) when there are no trials."""
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def proportion(flags: Sequence[bool]) -> dict:
    """{"value", "lo", "hi", "n"}: the share of true flags with its Wilson interval."""
    k, n = sum(bool(f) for f in flags), len(flags)
    lo, hi = wilson(k, n)
    return {"value": k / n if n else 0.0, "lo": lo, "hi": hi, "n": n}


def ratio_of_sums(pairs: Sequence[tuple[int, int]]) -> dict:
    """sum(num) / sum(den) over questions, with a percentile bootstrap interval that resamples questions."""
    den = sum(d for _, d in pairs)
    value = sum(n for n, _ in pairs) / den if den else 0.0
    if not den:
        return {"value": 0.0, "lo": 0.0, "hi": 1.0, "n": 0}
    rng = random.Random(BOOTSTRAP_SEED)
    stats = []
    for _ in range(BOOTSTRAP_ROUNDS):
        sample = [pairs[rng.randrange(len(pairs))] for _ in pairs]
        d = sum(x for _, x in sample)
        if d:
            stats.append(sum(x for x, _ in sample) / d)
    stats.sort()
    lo = stats[int(0.025 * (len(stats) - 1))]
    hi = stats[int(math.ceil(0.975 * (len(stats) - 1)))]
    return {"value": value, "lo": lo, "hi": hi, "n": den}


def paired_difference(a: Sequence[float], b: Sequence[float]) -> dict:
    """mean(a) - mean(b) over paired questions (a[i] and b[i]: one question asked two ways, e.g. in Thai and in
    English, or searched two ways; flags count as 0 / 1), with a percentile bootstrap interval that resamples the
    pairs."""
    if len(a) != len(b):
        raise ValueError("paired_difference takes two sequences of the same length")
    n = len(a)
    if not n:
        return {"value": 0.0, "lo": -1.0, "hi": 1.0, "n": 0}
    diffs = [float(x) - float(y) for x, y in zip(a, b, strict=True)]
    rng = random.Random(BOOTSTRAP_SEED)
    stats = sorted(sum(diffs[rng.randrange(n)] for _ in range(n)) / n for _ in range(BOOTSTRAP_ROUNDS))
    return {"value": sum(diffs) / n, "lo": stats[int(0.025 * (len(stats) - 1))],
            "hi": stats[int(math.ceil(0.975 * (len(stats) - 1)))], "n": n}


def quantile(values: Sequence[float], q: float) -> dict:
    """The q-quantile (0..1, linear interpolation) and a distribution-free 95% interval from order statistics:
    ranks l < u with P(X(l) <= true quantile <= X(u)) >= 0.95 under a normal approximation of Binomial(n, q)."""
    xs = sorted(values)
    n = len(xs)
    if not n:
        return {"value": 0.0, "lo": 0.0, "hi": 0.0, "n": 0}
    pos = (n - 1) * q
    below, above = int(pos), min(int(pos) + 1, n - 1)
    value = xs[below] + (xs[above] - xs[below]) * (pos - below)
    spread = Z95 * math.sqrt(n * q * (1 - q))
    lo = max(0, math.floor(n * q - spread) - 1)  # 0-based ranks
    hi = min(n - 1, math.ceil(n * q + spread))
    return {"value": value, "lo": xs[lo], "hi": xs[hi], "n": n}


def fmt(stat: dict, digits: int = 3) -> str:
    """'0.613 [0.565, 0.660]'."""
    return f"{stat['value']:.{digits}f} [{stat['lo']:.{digits}f}, {stat['hi']:.{digits}f}]"
