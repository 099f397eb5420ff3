# SPDX-License-Identifier: BSD-2-Clause
"""`access`: single-sector reads at random LBAs, one at a time, timed from issue to the first data
dword (the Quantum SSD paper's access time); latency statistics and the histogram from the
engine's counters; --loops reads the same LBAs again per loop."""

from ecpsata.engines import common as bc
from ecpsata.host import argtypes, plots
from ecpsata.host import latency as latency_stats
from ecpsata.host import loops as loops_stats
from ecpsata.host.experiments import Experiment
from ecpsata.host.results import SEED, avg as _avg, result
from ecpsata.host.tables import (HISTOGRAM_COLUMNS, LATENCY_COLUMNS, latency_rows, main_table,
                                 spread_tables)
from ecpsata.host.target import TargetError

COLUMNS = [("min us", "min_us", "{:.2f}"), ("median us", "median_us", "{:.2f}"),
           ("p99 us", "p99_us", "{:.2f}"), ("max us", "max_us", "{:.2f}"),
           ("avg us", "avg_us", "{:.2f}")]


def xorshift_lbas(seed, lba, span, n):
    """The firmware's random LBAs for `access`: xorshift64 from 0x9e3779b97f4a7c15 ^ seed."""
    x, out = (0x9E3779B97F4A7C15 ^ seed) & bc.M64, []
    for _ in range(n):
        x = bc.xorshift64(x)
        out.append(lba + x % span)
    return out


def _nearest_rank(v, q):
    """The nearest-rank q-th percentile (q in 1..100) of sorted samples."""
    return v[(len(v) * q + 99) // 100 - 1]


def access(s, n=100, seed=SEED, loops=1):
    """Single-sector reads at random LBAs, issue to first data dword (Quantum SSD paper); loops > 1
    reads the same LBAs again per loop, the summary over every sample and `spread` over the
    loops' figures."""
    if not 1 <= n <= 100_000:
        raise TargetError("access: -n must be 1..100000")
    loops_stats.check("access", loops)
    lba = s.base()
    span = s.range_count(s.capacity - lba)
    s.check_span("access", lba, span)
    e = s.engine
    lbas = xorshift_lbas(seed, lba, span, n)
    rows, hist, fd, per_loop = [], None, None, []
    for k in range(loops):
        e.fw_begin("read", sectors=1, total_commands=n, lba28=s.lba28, seed=seed,
                   hist_source="first_data",
                   label="access" + (f" loop {k + 1}/{loops}" if loops > 1 else ""))
        before, first = 0, len(rows)
        for at in lbas:
            e.fw_command(at)
            total = e.stat("first_data", "sum")
            rows.append({"sample": len(rows), "lba": at, "first_data_cycles": total - before,
                         "first_data_us": s.us(total - before)})
            before = total
        r, h = e.collect(), e.histogram()
        v = sorted(x["first_data_cycles"] for x in rows[first:])
        per_loop.append({"min_us": s.us(v[0]), "median_us": s.us(v[(n - 1) // 2]),
                         "p99_us": s.us(_nearest_rank(v, 99)), "max_us": s.us(v[-1]),
                         "avg_us": s.us(_avg(r["first_data"]))})
        x = r["first_data"]
        fd = dict(x) if fd is None else {"min": min(fd["min"], x["min"]),
                                         "max": max(fd["max"], x["max"]),
                                         "sum": fd["sum"] + x["sum"],
                                         "count": fd["count"] + x["count"]}
        hist = h if hist is None or h is None else [a + b for a, b in zip(hist, h)]
    v = sorted(x["first_data_cycles"] for x in rows)
    summary = {"min_us": s.us(v[0]), "median_us": s.us(v[(len(v) - 1) // 2]),
               "p99_us": s.us(_nearest_rank(v, 99)), "max_us": s.us(v[-1]),
               "avg_us": s.us(_avg(fd)),
               "histogram": None if hist is None else latency_stats.buckets(hist, s.f),
               "latency": None if hist is None else latency_stats.summarize(
                   dict(enumerate(hist)), s.f, latency_stats.FIRST_DATA, lo=fd["min"],
                   hi=fd["max"], total=fd["sum"], samples=v)}
    params = {"lba": lba, "range": span, "n": n, "seed": seed, "lba28": s.lba28,
              "command_set": s.mode()}
    notes = [latency_stats.NOTE] if hist is not None else []
    if loops != 1:
        params["loops"] = loops
        summary["spread"] = {k: loops_stats.stats([p[k] for p in per_loop]) for k in per_loop[0]}
        notes.append(loops_stats.NOTE)
    return result("access", params, rows, summary, notes)


def tables(res, sys_clk_hz=None):
    """The latency statistics (or, for a result written before them, the summary's row), the
    spread over --loops, the histogram. sys_clk_hz derives the statistics of such a result."""
    summary = res["summary"]
    lat = latency_stats.of_result(res, sys_clk_hz)
    if lat:
        out = [(f"latency, {lat['interval']}: {lat['samples']} samples (engine counters)",
                LATENCY_COLUMNS, latency_rows(lat))]
    else:
        out = [main_table(COLUMNS, [summary])]
    out += spread_tables(res)
    if summary.get("histogram"):
        out.append(("histogram (issue to first data), the engine's log2 buckets",
                    HISTOGRAM_COLUMNS, summary["histogram"]))
    return out


def plot(axes, res):
    """The engine's log2 histogram of first-data times: one bar per bucket on a log2 time axis,
    the run's min, mean and max (engine counters) as lines."""
    s = res["summary"]
    plots.histograms(axes[0], [("commands per log2 bucket", s.get("histogram"), "tab:blue")],
                "issue to first data dword",
                marks=[(s.get(key), label, ls, "tab:gray") for key, label, ls in
                       (("min_us", "min", ":"), ("avg_us", "mean", "--"), ("max_us", "max", "-."))])


def add_arguments(p):
    p.add_argument("-n", type=argtypes.int_in(1, 100_000), default=100, help="reads")
    p.add_argument("--seed", type=argtypes.seed, default=SEED, help="random LBA seed")
    argtypes.loops_flag(p)


EXPERIMENT = Experiment(
    name="access", order=80,
    console=(
        ("access", "[n=] [lba=] [range=]",
         "single-sector random read access time (Quantum SSD paper)"),
    ),
    help="single-sector random read access time, latency percentiles and histogram (Quantum SSD "
         "paper)",
    title="single-sector reads at random LBAs, issue to first data dword",
    document="Quantum SSD paper", where="",
    description="Single-sector reads at random LBAs, one at a time, timed from issue to the "
                "first data dword; latency statistics from the engine's histogram.",
    run=access, add_arguments=add_arguments, kwargs=("n", "seed", "loops"),
    readme=(("access [-n N]", "random single-sector access time: latency statistics and the "
             "engine's histogram"),),
    tables=tables, plot=plot,
    suite=lambda s, sectors, write: dict(n=20))
