# SPDX-License-Identifier: BSD-2-Clause
"""One figure set of a benchmark engine run, repeated over loops, with fio-style latency
statistics from the engine's log2 histogram (latency.py `summarize`).

Used by the queued rows of `random` and by `quick` (ecpsata/host/experiments/), for the queued
engine (`sata_qbench_*`, issue to the Set Device Bits that completed the command) and for the
non-queued engine (`sata_bench_*` with hist_source=latency, issue to status); `Tally` also by
`long`, `overhead` and `latency` (ecpsata/host/experiments/, runlatency.py). Every figure comes
from the engine's counters of each run; the loops' histograms and min/max/sum/count are added up
into one latency object over all the loops' commands (counts added, minimum of the minima,
maximum of the maxima), which is exact arithmetic on the counters, not an estimate.
"""

from ecpsata.core import common as sc
from ecpsata.host import latency as latency_stats
from ecpsata.host import loops as loops_stats
from ecpsata.host import sata
from ecpsata.host.engine import iops

QUEUED = "issue to completion (Set Device Bits), queued"
DMA = "issue to status, one command at a time"

# flat row keys of the latency statistics, after the `lat_us` (mean) key
PCT_KEYS = {"50": "p50_us", "90": "p90_us", "99": "p99_us", "99.9": "p99_9_us",
            "99.99": "p99_99_us"}
LAT_KEYS = ("lat_min_us", "lat_max_us") + tuple(PCT_KEYS.values())


class Tally:
    """One engine interval's counters added up over runs: its min/max/sum/count (the minimum of
    the minima, the maximum of the maxima, sums and counts added) and its log2 histogram (bucket
    counts added). Exact arithmetic on the counters, not an estimate."""

    def __init__(self):
        self.hist = None                 # None until a run brings a histogram
        self.stat = {"min": None, "max": 0, "sum": 0, "count": 0}

    def add(self, stat, hist):
        """One run's counter group (collect()'s "lat", "first_data" or "gap") and its histogram
        (engine.histogram(); None on a gateware without one)."""
        if hist is not None:
            self.hist = list(hist) if self.hist is None else [a + b for a, b in
                                                              zip(self.hist, hist)]
        x, lat = stat, self.stat
        if x["count"]:
            lat["min"] = x["min"] if lat["min"] is None else min(lat["min"], x["min"])
            lat["max"] = max(lat["max"], x["max"])
            lat["sum"] += x["sum"]
            lat["count"] += x["count"]

    def latency(self, f, interval, samples=None):
        """The latency object (latency.summarize) of everything added; None without a histogram
        or without samples in it."""
        if self.hist is None or not sum(self.hist):
            return None
        n = self.stat["count"]
        return latency_stats.summarize(dict(enumerate(self.hist)), f, interval,
                                       lo=self.stat["min"], hi=self.stat["max"] if n else None,
                                       total=self.stat["sum"] if n else None, samples=samples)

    def buckets(self, f):
        """The histogram as the JSON's `histogram` list; None without a histogram."""
        return None if self.hist is None else latency_stats.buckets(self.hist, f)


def repeat(s, engine, loops, interval, flush_after=False, **run):
    """`loops` runs of engine.run(**run); returns {"runs": [collect() dicts], "latency": the
    latency object over all of them (None when the engine has no histogram), "lat": the summed
    min/max/sum/count}. flush_after: each run is followed by a FLUSH CACHE EXT through the
    sector buffer, outside every timed interval (after a queued write: the next run starts with
    the drive's write cache empty)."""
    runs, tally = [], Tally()
    for i in range(loops):
        label = run.get("label")
        r = engine.run(**dict(run, label=f"{label} loop {i + 1}/{loops}" if label and loops > 1
                              else label))
        runs.append(r)
        h = engine.histogram()
        if flush_after:
            sata.nodata(s.target, sc.ATA_FLUSH_CACHE_EXT, timeout=s.timeout,
                        what="FLUSH CACHE EXT after a queued write run")
        tally.add(r["lat"], h)
    return {"runs": runs, "latency": tally.latency(s.f, interval), "lat": tally.stat}


def add_runs(a, b):
    """Sum two collect() results (cycles, bytes, counts; first bad LBA of the first)."""
    out = dict(a)
    for k in ("cycles", "bytes", "completed", "errors", "mismatch_dwords", "mismatch_sectors",
              "flush_cycles"):
        if k in a:
            out[k] = a[k] + b[k]
    if a["first_bad_lba"] is None:
        out["first_bad_lba"] = b["first_bad_lba"]
    out["last_lba"] = b["last_lba"]
    for stat in ("lat", "first_data", "gap"):
        x, y = a[stat], b[stat]
        mins = [s["min"] for s in (x, y) if s["count"]]
        out[stat] = {"min": min(mins) if mins else 0, "max": max(x["max"], y["max"]),
                     "sum": x["sum"] + y["sum"], "count": x["count"] + y["count"]}
    return out


def loop_figures(s, r):
    """IOPS, MB/s and mean latency of one run."""
    x = r["lat"]
    return {"iops": iops(r["completed"], r["cycles"], s.f), "mbps": r["mbps"],
            "lat_us": s.us(x["sum"] / x["count"]) if x["count"] else None}


def figures(s, m, prefix="", queued=True):
    """The row keys of a repeat(): prefix + iops, mbps, lat_us (mean over all loops' commands),
    depth (queued: most in flight), cycles, then lat_min_us, lat_max_us and the percentiles' upper
    bounds (null below the samples a percentile needs); with loops, the rates' spread."""
    runs = m["runs"]
    rows = [dict(loop_figures(s, r), cycles=r["cycles"]) |
            ({"depth": r["depth_max"]} if queued else {}) for r in runs]
    one = loops_stats.merge([{k: v for k, v in row.items() if k != "lat_us"} for row in rows])
    lat, obj = m["lat"], m["latency"]
    out = {k: one[k] for k in one if k.startswith(("iops", "mbps"))}
    out["lat_us"] = s.us(lat["sum"] / lat["count"]) if lat["count"] else None
    if queued:
        out["depth"] = one["depth"]
    out["cycles"] = one["cycles"]
    out["lat_min_us"] = s.us(lat["min"]) if lat["count"] else None
    out["lat_max_us"] = s.us(lat["max"]) if lat["count"] else None
    out.update(percentile_keys(obj))
    return {prefix + k: v for k, v in out.items()}


def percentile_keys(lat):
    """{p50_us, p90_us, p99_us, p99_9_us, p99_99_us}: the percentiles' upper bounds of a latency
    object, each None below the samples it needs (and all None for no object)."""
    by_p = {f"{p['percentile']:g}": p for p in (lat or {}).get("percentiles", [])}
    return {key: by_p[p]["at_most_us"] if p in by_p else None for p, key in PCT_KEYS.items()}


def latency_entry(m, **what):
    """An entry of a result's `latency` summary list: what was run, and its latency object."""
    return dict(what, latency=m["latency"])


def latency_table_rows(entries):
    """One table row per latency entry: its labels, samples, min / mean / stdev / max and the
    percentiles as people read them ('<= 12.30', 'n/a (20 samples)')."""
    rows = []
    for e in entries:
        lat = e["latency"]
        row = {k: v for k, v in e.items() if k not in ("latency", "histogram")}
        if lat is None:
            rows.append(row)
            continue
        row.update(samples=lat["samples"], min_us=lat["min_us"], mean_us=lat["mean_us"],
                   stdev_us=lat["stdev_us"], max_us=lat["max_us"])
        for p in lat["percentiles"]:
            row[latency_stats.pname(p)] = (f"<= {p['at_most_us']:.2f}" if p["at_most_us"] is not None
                                           else f"n/a ({lat['samples']} samples)")
        rows.append(row)
    return rows


LATENCY_COLUMNS = ([("samples", "samples", "{}"), ("min us", "min_us", "{:.2f}"),
                    ("mean us", "mean_us", "{:.2f}"), ("max us", "max_us", "{:.2f}")] +
                   [(f"p{p} us", f"p{p}", "{}") for p in latency_stats.PERCENTILES])
STDEV_COLUMN = ("stdev us", "stdev_us", "{:.2f}")


def latency_columns(entries):
    """LATENCY_COLUMNS, with the standard deviation after the mean when an entry has one (from
    per-command samples)."""
    if not any((e["latency"] or {}).get("stdev_us") is not None for e in entries):
        return list(LATENCY_COLUMNS)
    return LATENCY_COLUMNS[:3] + [STDEV_COLUMN] + LATENCY_COLUMNS[3:]
