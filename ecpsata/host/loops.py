# SPDX-License-Identifier: BSD-2-Clause
"""`--loops N`: the same measurement repeated N times, and the spread of its figures.

Each loop's figure comes from the engine's counters of that loop's run. The mean, sample standard
deviation (n - 1), minimum and maximum over the loops are arithmetic on those N measured figures:
they describe how repeatable the measurement is, they are not measured themselves. With one loop
nothing is added, so results without --loops keep their keys.
"""

import statistics

SPREAD = ("stdev", "min", "max")      # suffixes added after each rate key, in this order

NOTE = ("--loops: every figure was measured once per loop from the engine's counters; a rate key "
        "holds the mean over the loops and K_stdev / K_min / K_max the sample standard deviation "
        "(n - 1), minimum and maximum of the loops' figures (arithmetic on measured figures, "
        "not further measurements); counts and times are means over the loops")


def stats(values):
    """{mean, stdev, min, max} of measured figures; None entries (not measured) are left out,
    stdev is None with fewer than two figures."""
    v = [x for x in values if x is not None]
    if not v:
        return {"mean": None, "stdev": None, "min": None, "max": None}
    return {"mean": sum(v) / len(v), "stdev": statistics.stdev(v) if len(v) > 1 else None,
            "min": min(v), "max": max(v)}


def is_rate(key):
    """Rates get the spread keys: MB/s and IOPS figures."""
    return key.endswith(("mbps", "iops", "mbps_before_flush"))


def merge(rows):
    """One row from the same row of each loop: keys equal in every loop are kept, a rate becomes
    its mean followed by K_stdev, K_min, K_max, another number its mean (a depth reached: its
    maximum). A single loop's row is returned unchanged."""
    if len(rows) == 1:
        return dict(rows[0])
    out = {}
    for key, first in rows[0].items():
        values = [r.get(key) for r in rows]
        numeric = all(isinstance(x, (int, float)) and not isinstance(x, bool)
                      for x in values if x is not None)
        if is_rate(key) and numeric:
            st = stats(values)
            out[key] = st["mean"]
            out.update({f"{key}_{k}": st[k] for k in SPREAD})
        elif all(x == first for x in values) or not numeric:
            out[key] = first
        elif key.endswith("depth"):
            out[key] = max(values)
        else:
            out[key] = stats(values)["mean"]
    return out


def check(what, loops):
    from ecpsata.host.target import TargetError
    if not 1 <= loops <= 1000:
        raise TargetError(f"{what}: --loops must be 1..1000")
