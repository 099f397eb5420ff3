# SPDX-License-Identifier: BSD-2-Clause
"""`latency`: read time against transfer size, several runs per size, the fastest and slowest
dropped and the first access reported apart (e7SATA read test); latency statistics per size over
every run (issue to status) from the engine's histogram."""

from ecpsata.engines import common as bc
from ecpsata.host import argtypes, measure, plots, runlatency
from ecpsata.host.experiments import Experiment
from ecpsata.host.results import SEED, result
from ecpsata.host.tables import standard
from ecpsata.host.target import TargetError


def latency(s, min_kib=16, max_kib=4096, runs=10):
    """Read time vs size: `runs` reads per size, min and max dropped, the rest averaged; the first
    read of each size reported apart (e7SATA read test)."""
    if not 3 <= runs <= 64 or not 1 <= min_kib <= max_kib:
        raise TargetError("latency: --runs 3..64 and 1 <= --min <= --max KiB")
    lba = s.base()
    s.check_size("latency", max_kib * 2)
    s.check_span("latency", lba, max_kib * 2)
    rows, entries = [], []
    kib = min_kib
    while kib <= max_kib:
        cycles, fd, tally, samples = [], 0, measure.Tally(), []
        for i in range(runs):
            r = s.engine.run("read", lba, kib * 2, 1, lba28=s.lba28, seed=SEED,
                             label=f"latency {kib} KiB {i + 1}/{runs}")
            cycles.append(r["cycles"])
            fd += r["first_data"]["sum"]
            tally.add(r["lat"], s.engine.histogram())      # hist_source latency: issue to status
            if r["lat"]["count"] == 1:          # one command per run: the sum is its latency
                samples.append(r["lat"]["sum"])
        entries.append(runlatency.entry(tally, s.f, measure.DMA, samples=samples, kib=kib))
        lat = entries[-1]["latency"] or {}
        avg = (sum(cycles) - min(cycles) - max(cycles)) / (runs - 2)
        nbytes = kib * 1024
        rows.append({"kib": kib, "sectors": kib * 2, "bytes": nbytes, "runs": runs,
                     "first_cycles": cycles[0], "first_us": s.us(cycles[0]),
                     "avg_cycles": avg, "avg_us": s.us(avg), "min_cycles": min(cycles),
                     "max_cycles": max(cycles), "mbps": s.mbps(nbytes, avg),
                     "first_data_us": s.us(fd / runs), "stdev_us": lat.get("stdev_us"),
                     **measure.percentile_keys(lat)})
        kib *= 2
    return result("latency", {"lba": lba, "min_kib": min_kib, "max_kib": max_kib, "runs": runs,
                              "lba28": s.lba28, "command_set": s.mode()}, rows,
                  {"read_latency": entries}, runlatency.notes(entries, runlatency.READ_NOTE))


def _times(ax, res):
    rows = res["rows"]
    x = [r["kib"] * 1024 for r in rows]
    plots.line(ax, x, [r["avg_us"] for r in rows], "time, mean of the middle runs (left)", "read")
    plots.line(ax, x, [r["first_us"] for r in rows], "time, first access (left)", "first")
    ax.set_yscale("log")
    from matplotlib.ticker import FuncFormatter, LogLocator, NullLocator
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1, 2, 5)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: plots.time_text(v)))
    ax.yaxis.set_minor_locator(NullLocator())
    plots.log2_ticks(ax, x, plots.size_text)
    ax.set_xlabel("transfer size")
    ax.set_ylabel("time, issue to status")
    plots.rate_axis(ax, x, [([r["mbps"] for r in rows], "rate from the mean time (right)",
                        dict(color="tab:green", marker="s", ls=":"))])


def _histogram(ax, res):
    """Beside latency's sweep: each size's runs, issue to status, one colour per size."""
    import matplotlib.pyplot as plt
    entries = plots.entries(res)
    colors = plt.get_cmap("viridis")
    plots.histograms(ax, [(f"{plots.size_text(e['kib'] * 1024)}, {e['latency']['samples']} runs",
                      e["histogram"], colors(i / max(len(entries) - 1, 1)))
                     for i, e in enumerate(entries)], "issue to status", "runs")
    ax.set_title("time of each run (engine histogram)")


def plot(axes, res):
    """Time and rate against size; beside it, when the result has them, each size's runs."""
    plots.panels(axes, res, _times, _histogram)


def add_arguments(p):
    kib = argtypes.int_in(1, bc.MAX_SECTORS // 2)
    p.add_argument("--min", dest="min_kib", type=kib, default=16, help="smallest size, KiB")
    p.add_argument("--max", dest="max_kib", type=kib, default=4096, help="largest size, KiB")
    p.add_argument("--runs", type=argtypes.int_in(3, 64), default=10, help="runs per size (3..64)")


def check(parser, args):
    if args.min_kib > args.max_kib:
        parser.error(f"latency: --min {args.min_kib} is above --max {args.max_kib} (KiB)")


EXPERIMENT = Experiment(
    name="latency", order=60,
    console=(
        ("latency", "[lba=] [min=] [max=] [runs=]",
         "read time vs size, KiB (e7SATA read test)"),
    ),
    help="read time vs size, 10 runs, min/max dropped (e7SATA read test)",
    title="read time vs transfer size, min and max run dropped",
    document="e7SATA read test", where="",
    description="Reads of 16 KiB upwards, several runs per size, the fastest and slowest "
                "dropped, the first access reported apart; latency statistics per size over "
                "every run (issue to status) from the engine's histogram.",
    run=latency, add_arguments=add_arguments, kwargs=("min_kib", "max_kib", "runs"),
    readme=(("latency [--min KiB] [--max KiB] [--runs N]",
             "read time against size, first-data latency"),),
    tables=standard([("KiB", "kib", "{}"), ("first us", "first_us", "{:.2f}"),
                     ("avg cycles", "avg_cycles", "{:.0f}"), ("avg us", "avg_us", "{:.2f}"),
                     ("MB/s", "mbps", "{:.2f}"), ("1st data us", "first_data_us", "{:.2f}")]),
    plot=plot, wide=lambda res: bool(plots.entries(res)), check=check,
    suite=lambda s, sectors, write: dict(min_kib=16, max_kib=max(16, sectors // 2), runs=5))
