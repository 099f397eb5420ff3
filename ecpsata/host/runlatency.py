# SPDX-License-Identifier: BSD-2-Clause
"""Latency statistics (latency.py, in the manner of fio) of the experiments that run the
non-queued engine (`sata_bench_*`) a command or a host loop at a time: `long`, `overhead` and
`latency` (ecpsata/host/experiments/), with their tables for the terminal and the HTML page.

Each run keeps the histogram source it always had, so the experiments' figures are unchanged and
no run is added; the statistics are of the interval that histogram counts:

- `long` and `overhead` run with hist_source=gap: the gap from one command's status to the first
  data dword of the next (latency.GAP). A loop of n commands has n - 1 gaps; `long` adds up the
  gaps of all its loops per direction, `overhead` keeps one set per circuit and direction.
- `latency` runs one command per run with hist_source=latency: issue to status (measure.DMA), one
  sample per run, added up per transfer size. Each run's latency sum is its one command's time,
  so the standard deviation is exact from those per-command samples.

Every figure comes from the engine's counters (measure.Tally adds them up over the runs); with
few runs most percentiles are "n/a (N samples)" (latency.needs_samples), as they should be.
"""

from ecpsata.host import latency as latency_stats
from ecpsata.host import measure

GAP_NOTE = ("gap_latency: the runs' histogram counts the gap from one command's status to the "
            "first data dword of the next (what issues the next command, then its first-data "
            "latency), not issue to status; a loop of n commands has n - 1 gaps; no per-command "
            "samples are kept, so the standard deviation is not derivable")
LONG_NOTE = ("gap_latency adds up the gaps of every loop count per direction (the host loop's "
             "gap does not depend on the loop's length)")
READ_NOTE = ("read_latency: per size, every run's one command, issue to status (the min and max "
             "runs included, unlike avg_us); stdev from those per-command samples")

# experiment -> (summary key, label columns, caption) of its latency table
TABLES = {
    "long": ("gap_latency", [("op", "op", "{}")],
             "gap between commands in the host loop, all loop counts"),
    "overhead": ("gap_latency", [("circuit", "circuit", "{}"), ("op", "op", "{}")],
                 "gap between commands"),
    "latency": ("read_latency", [("KiB", "kib", "{}")], "read time per size, all runs"),
}


def entry(tally, f, interval, samples=None, **what):
    """An entry of a summary's latency list: what was run (what), its latency object (null
    without a histogram or without samples) and the histogram it comes from (the JSON's
    `histogram` list; null on a gateware without one)."""
    return dict(what, latency=tally.latency(f, interval, samples), histogram=tally.buckets(f))


def notes(entries, *extra):
    """latency.NOTE and the experiment's own notes, when there are statistics to read."""
    return [latency_stats.NOTE, *extra] if any(e["latency"] for e in entries) else []


def tables(res):
    """[(caption, columns, rows)] of a result's latency table (latency.py statistics per entry,
    percentiles as upper bounds); [] for another experiment or a result without statistics."""
    if res["experiment"] not in TABLES:
        return []
    key, labels, caption = TABLES[res["experiment"]]
    entries = res["summary"].get(key) or []
    interval = next((e["latency"]["interval"] for e in entries if e["latency"]), None)
    if interval is None:              # no histogram, or no sample in it (long with one command)
        return []
    return [(f"latency, {interval}: {caption} (engine counters and log2 histogram: percentiles "
             f"are upper bounds)",
             labels + measure.latency_columns(entries), measure.latency_table_rows(entries))]
