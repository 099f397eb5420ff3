# SPDX-License-Identifier: BSD-2-Clause
"""Latency statistics in the manner of fio (min, mean, stdev, max, percentiles) from the benchmark
engine's counters: its log2 histogram (ecpsata/engines/counters.py `Log2Histogram`, bucket k holds
[2^k, 2^(k+1)) cycles, bucket 0 also 0, the last bucket everything above) and, where an experiment
keeps them, the per-command samples it read from the engine's sum counter.

A percentile read from a log2 histogram is only known to lie in its bucket: it is reported as an
upper bound (the bucket's top, or the run's maximum when that is lower) with the lower bound beside
it. A percentile p is given only when at least 1 / (1 - p) samples were taken, so that at least one
sample lies above it (p99.99: 10,000 samples); below that it is None (JSON null) and printed as
"n/a (N samples)". Nothing here reads a host clock.
"""

import math
import statistics
from fractions import Fraction

from ecpsata.engines import common as bc

PERCENTILES = ("50", "90", "99", "99.9", "99.99")     # as fio's default list, in text for exactness


def bucket_bounds(k):
    """(first cycle count, first count above) of log2 bucket k; the top is None for the last
    bucket, which also holds everything above."""
    return ((1 << k) if k else 0), (None if k == bc.HIST_BUCKETS - 1 else 2 << k)


def buckets(counts, f):
    """The non-empty buckets of an engine histogram (a list of HIST_BUCKETS counts), as the JSON's
    `histogram` list (doc/bench-json.md)."""
    out = []
    for k, n in enumerate(counts):
        if n:
            lo, hi = bucket_bounds(k)
            out.append({"bucket": k, "from_cycles": lo, "below_cycles": hi,
                        "from_us": lo * 1e6 / f, "below_us": None if hi is None else hi * 1e6 / f,
                        "count": n})
    return out


def needs_samples(p):
    """Samples a percentile needs before one of them lies above it: ceil(1 / (1 - p))."""
    return math.ceil(1 / (1 - Fraction(p) / 100))


def percentile_bucket(counts, p):
    """The bucket holding the nearest-rank p-th percentile of {bucket: count}."""
    total = sum(counts.values())
    rank = math.ceil(Fraction(p) / 100 * total)
    seen = 0
    for k in sorted(counts):
        seen += counts[k]
        if seen >= rank:
            return k
    raise ValueError("empty histogram")


def summarize(counts, f, interval, lo=None, hi=None, total=None, samples=None):
    """The `latency` object of doc/bench-json.md from {bucket: count} (the engine's histogram), the
    engine's min / max / sum of the same samples (lo, hi, total; None when not kept) and the
    per-command samples (cycles) when the experiment kept them. None for an empty histogram."""
    counts = {k: n for k, n in counts.items() if n}
    n = sum(counts.values())
    if not n:
        return None
    if samples is not None and len(samples) != n:
        samples = None                   # not the histogram's samples: do not mix them
    if samples:
        lo = min(samples) if lo is None else lo
        hi = max(samples) if hi is None else hi
        total = sum(samples) if total is None else total
    mean = None if total is None else total / n
    stdev = statistics.stdev(samples) if samples and n > 1 else None

    def us(c):
        return None if c is None else c * 1e6 / f

    pct = []
    for p in PERCENTILES:
        row = {"percentile": float(p), "needs_samples": needs_samples(p), "bucket": None,
               "at_least_cycles": None, "at_most_cycles": None}
        if n >= row["needs_samples"]:
            k = percentile_bucket(counts, p)
            b_lo, b_hi = bucket_bounds(k)
            top = hi if b_hi is None else (b_hi - 1 if hi is None else min(b_hi - 1, hi))
            row.update(bucket=k, at_least_cycles=b_lo if lo is None else max(b_lo, lo),
                       at_most_cycles=top)
        row["at_least_us"] = us(row["at_least_cycles"])
        row["at_most_us"] = us(row["at_most_cycles"])
        pct.append(row)
    return {"interval": interval, "samples": n,
            "min_cycles": lo, "mean_cycles": mean, "stdev_cycles": stdev, "max_cycles": hi,
            "min_us": us(lo), "mean_us": us(mean), "stdev_us": us(stdev), "max_us": us(hi),
            "percentiles": pct}


FIRST_DATA = "issue to first data dword"
# the engine's gap counter (hist_source gap): the status of one command to the first data dword
# of the next, so it holds what issues the next command (host loop or sequencer) and that
# command's first-data latency
GAP = "status of one command to first data of the next"


def of_result(res, f):
    """The `latency` object of a result (or JSON document): the stored one, else derived from its
    histogram and samples (results written before the object existed); None when it has none."""
    summary = res.get("summary") or {}
    if summary.get("latency"):
        return summary["latency"]
    hist = summary.get("histogram")
    if not hist or not f:
        return None
    samples = [r["first_data_cycles"] for r in res.get("rows", []) if "first_data_cycles" in r]
    return summarize({b["bucket"]: b["count"] for b in hist}, f, FIRST_DATA,
                     samples=samples or None)


def pname(p):
    return f"p{p['percentile']:g}"


def table_rows(lat):
    """One row per statistic, {statistic, value_cycles, value_us, at_least_cycles, at_least_us,
    bound}: the terminal, HTML and CSV tables."""
    exact = "exact, from the per-command samples" if lat["stdev_cycles"] is not None else "exact"
    rows = [{"statistic": "min", "value_cycles": lat["min_cycles"], "value_us": lat["min_us"],
             "bound": "exact (engine minimum)"},
            {"statistic": "mean", "value_cycles": lat["mean_cycles"], "value_us": lat["mean_us"],
             "bound": "exact (engine sum / count)"},
            {"statistic": "stdev", "value_cycles": lat["stdev_cycles"], "value_us": lat["stdev_us"],
             "bound": exact if lat["stdev_cycles"] is not None else
             "not derivable: no per-command samples (min/max/sum/count and a log2 histogram only)"},
            {"statistic": "max", "value_cycles": lat["max_cycles"], "value_us": lat["max_us"],
             "bound": "exact (engine maximum)"}]
    for p in lat["percentiles"]:
        if p["at_most_cycles"] is None:
            bound = f"too few samples: needs at least {p['needs_samples']}"
        else:
            lo, hi = bucket_bounds(p["bucket"])
            span = f"{lo}..{hi - 1}" if hi is not None else f"{lo} and above"
            bound = (f"upper bound: top of log2 bucket {p['bucket']} ({span} cycles), or the "
                     f"max if lower")
        rows.append({"statistic": pname(p), "value_cycles": p["at_most_cycles"],
                     "value_us": p["at_most_us"], "at_least_cycles": p["at_least_cycles"],
                     "at_least_us": p["at_least_us"], "bound": bound})
    for r in rows:
        r.setdefault("at_least_cycles", None)
        r.setdefault("at_least_us", None)
    return rows


def value_text(row, samples, fmt="{:.3f}"):
    """A statistic's value for people: a percentile with too few samples is 'n/a (N samples)'."""
    if row["value_us"] is None:
        return f"n/a ({samples} samples)"
    prefix = "<= " if row["statistic"].startswith("p") else ""
    return prefix + fmt.format(row["value_us"])


NOTE = ("latency percentiles come from the engine's log2 histogram: each is an upper bound, the top "
        "of the bucket that holds it (buckets are a factor of 2 wide: [2^k, 2^(k+1)) cycles), "
        "lowered to the run's maximum when that is smaller; a percentile p needs at least "
        "1/(1-p) samples (p99.99: 10,000) and is null below that")
