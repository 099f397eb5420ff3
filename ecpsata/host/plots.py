# SPDX-License-Identifier: BSD-2-Clause
"""PNG plots of the experiments (ecpsata/host/suite.py results), one style for all of them.

Sizes on the axes read as sizes (512 B, 4 KiB, 1 MiB), counts as integers and times with their
unit; every axis names its unit (MB/s is 10^6 bytes per second); legends sit outside the data;
titles name what was measured and the public document it reproduces, by its title.
"""

import os

from ecpsata.engines import common as bc
from ecpsata.host import catalogue, runlatency

FIGSIZE = (8.0, 4.6)              # inches; at DPI, 960 x 552 pixels: readable at its own size
FIGSIZE_WIDE = (12.0, 4.8)
DPI = 120
STYLE = {
    "font.size": 10, "axes.titlesize": 10, "axes.labelsize": 10, "legend.fontsize": 9,
    "xtick.labelsize": 9, "ytick.labelsize": 9, "axes.grid": True, "grid.alpha": 0.3,
    "axes.spines.top": False, "axes.spines.right": False, "lines.linewidth": 1.6, "lines.markersize": 5,
}
MBPS = "MB/s (10⁶ bytes/s)"
# read/write/random/sequential keep one colour and marker on every plot
SERIES = {"read": ("tab:blue", "o", "-"), "write": ("tab:orange", "s", "-"),
          "random": ("tab:blue", "o", "-"), "sequential": ("tab:red", "x", "--"),
          "first": ("tab:purple", "^", "--")}
QD_PLOT_SECTORS = 8     # IOPS against queue depth at 4 KiB requests (Quantum SSD paper Fig. 6)
# overhead's gap histograms: one colour per circuit and direction
GAP_COLORS = {("host loop", "read"): "tab:blue", ("host loop", "write"): "tab:orange",
              ("state machine", "read"): "tab:green", ("state machine", "write"): "tab:red"}


def size_text(nbytes):
    """512 B, 4 KiB, 1 MiB, 1.5 MiB."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if nbytes >= scale:
            return f"{nbytes / scale:g} {unit}"
    return f"{nbytes:g} B"


def time_text(us):
    """A time given in microseconds with a unit that keeps 1 to 3 digits before the point."""
    for unit, scale in (("s", 1e6), ("ms", 1e3), ("µs", 1.0)):
        if us >= scale:
            return f"{us / scale:.3g} {unit}"
    return f"{us * 1e3:.3g} ns"


def can_plot(name):
    return name in PLOTS


def write_plot(path, res):
    """PNG of one result: the sweeps (long, hwloop, latency, random; random with queue depths in
    two panels; long and latency with their latency histograms beside) and the histograms of
    access and overhead."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    queued = res["experiment"] == "random" and res["parameters"].get("queue_depths")
    beside = BESIDE.get(res["experiment"]) if _entries(res) else None
    wide = queued or beside
    with matplotlib.rc_context(STYLE):
        fig, axes = plt.subplots(1, 2 if wide else 1, figsize=FIGSIZE_WIDE if wide else FIGSIZE,
                                 squeeze=False, layout="constrained")
        try:
            if queued:
                _plot_queued(axes[0], res)
            else:
                PLOTS[res["experiment"]](axes[0][0], res)
                if beside:
                    beside(axes[0][1], res)
            fig.suptitle(plot_title(res), fontsize=10)
            fig.savefig(path, dpi=DPI)
        finally:
            plt.close(fig)


def plot_title(res):
    """'name: what is measured' and, below, the public document it reproduces (by title)."""
    from ecpsata.host.report import title
    name = res["experiment"]
    ref = catalogue.reference(name)
    return f"{name}: {title(res, reference=False)}" + (f"\nreproduces: {ref}" if ref else "")


# axes ---------------------------------------------------------------------------------------------

def _log2_ticks(ax, values, text=str):
    """A log2 x axis with a tick at every measured value, labelled by `text`."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(FixedLocator(sorted(set(values))))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: text(int(round(v)))))
    ax.xaxis.set_minor_locator(NullLocator())


def _legend(ax, extra=()):
    """One legend for an axes and its twins, below the data area."""
    handles, labels = ax.get_legend_handles_labels()
    for other in extra:
        h, lab = other.get_legend_handles_labels()
        handles, labels = handles + h, labels + lab
    if handles:
        ax.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, -0.2),
                  ncol=min(len(handles), 3), frameon=False)


def _line(ax, x, ys, label, kind, **kw):
    pts = [(a, b) for a, b in zip(x, ys) if b is not None]
    if pts:
        color, marker, ls = SERIES[kind]
        ax.plot([a for a, _ in pts], [b for _, b in pts], color=color, marker=marker, ls=ls,
                label=label, **kw)


def _integer_y(ax):
    from matplotlib.ticker import MaxNLocator
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))


# per experiment -----------------------------------------------------------------------------------

def _plot_long(ax, res):
    rows = res["rows"]
    x = [r["loop_count"] for r in rows]
    _line(ax, x, [r["write_mbps"] for r in rows], "write", "write")
    _line(ax, x, [r["read_mbps"] for r in rows], "read", "read")
    _log2_ticks(ax, x)
    ax.set_xlabel(f"commands in the loop ({size_text(res['parameters']['sectors'] * bc.SECTOR_BYTES)}"
                  " each)")
    ax.set_ylabel(MBPS)
    ax.set_ylim(bottom=0)
    _legend(ax)


def _plot_hwloop(ax, res):
    rows = res["rows"]
    x = range(len(rows))
    for i, op in enumerate(("write", "read")):
        vals = [r[f"{op}_mbps"] for r in rows]
        if any(v is not None for v in vals):
            bars = ax.bar([a + 0.4 * i - 0.2 for a in x], [v or 0 for v in vals], width=0.38,
                          label=op, color=SERIES[op][0])
            ax.bar_label(bars, labels=[f"{v:.1f}" if v is not None else "" for v in vals],
                         fontsize=8, padding=2)
    ax.set_xticks(list(x), [f"{r['circuit']}\n({r['loop_process']})" for r in rows])
    ax.set_ylabel(MBPS)
    ax.grid(False, axis="x")
    _legend(ax)


def _rate_axis(ax, x, series):
    """MB/s on a right-hand axis beside the left one: series of (values, label, line style); one
    legend for both axes."""
    ax2 = ax.twinx()
    for values, label, style in series:
        ax2.plot(x, values, label=label, **style)
    ax2.set_ylabel(MBPS)
    ax2.set_ylim(bottom=0)
    ax2.grid(False)
    _legend(ax, [ax2])


def _plot_latency(ax, res):
    rows = res["rows"]
    x = [r["kib"] * 1024 for r in rows]
    _line(ax, x, [r["avg_us"] for r in rows], "time, mean of the middle runs (left)", "read")
    _line(ax, x, [r["first_us"] for r in rows], "time, first access (left)", "first")
    ax.set_yscale("log")
    from matplotlib.ticker import FuncFormatter, LogLocator, NullLocator
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1, 2, 5)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: time_text(v)))
    ax.yaxis.set_minor_locator(NullLocator())
    _log2_ticks(ax, x, size_text)
    ax.set_xlabel("transfer size")
    ax.set_ylabel("time, issue to status")
    _rate_axis(ax, x, [([r["mbps"] for r in rows], "rate from the mean time (right)",
                        dict(color="tab:green", marker="s", ls=":"))])


def _plot_random(ax, res):
    rows = res["rows"]
    x = [r["sectors"] * bc.SECTOR_BYTES for r in rows]
    _line(ax, x, [r["random_iops"] for r in rows], "IOPS, random LBAs (left)", "random")
    _line(ax, x, [r["seq_iops"] for r in rows], "IOPS, sequential LBAs (left)", "sequential",
          mfc="none")
    _log2_ticks(ax, x, size_text)
    ax.set_xlabel("request size")
    ax.set_ylabel("IOPS (commands/s)")
    ax.set_ylim(bottom=0)
    _rate_axis(ax, x, [([r["random_mbps"] for r in rows], "MB/s, random (right)",
                        dict(color="tab:green", marker="o", ls=":")),
                       ([r["seq_mbps"] for r in rows], "MB/s, sequential (right)",
                        dict(color="tab:olive", marker="x", ls="-."))])


def _histograms(ax, series, xlabel, ylabel="commands", marks=()):
    """The engine's log2 histograms (the JSON's `histogram` lists) on one log2 time axis: series
    of (label, histogram, colour), one bar per bucket and series (the series with samples in a
    bucket share its width, side by side); marks of (time us, label, line style, colour) as
    vertical lines."""
    series = [x for x in series if x[1]]
    if not series:
        ax.text(0.5, 0.5, "no histogram in this result", ha="center", transform=ax.transAxes)
        return
    shared = {}                      # bucket -> the series with samples in it
    for i, (_, hist, _) in enumerate(series):
        for b in hist:
            shared.setdefault(b["bucket"], []).append(i)
    edges = []
    for i, (label, hist, color) in enumerate(series):
        lo, hi = [], []
        for b in hist:
            # bucket 0 starts at 0 cycles, which a log axis cannot show: drawn from half its top
            a = b["from_us"] or b["below_us"] / 2
            z = b["below_us"] if b["below_us"] is not None else 2 * b["from_us"]
            edges += [a, z]
            j, n = shared[b["bucket"]].index(i), len(shared[b["bucket"]])
            lo.append(a * (z / a) ** (j / n))         # equal widths on the log axis
            hi.append(a * (z / a) ** ((j + 1) / n))
        bars = ax.bar(lo, [b["count"] for b in hist], width=[h - l for l, h in zip(lo, hi)],
                      align="edge", color=color, edgecolor="white", label=label)
        ax.bar_label(bars, fontsize=8, padding=2)
    edges = sorted(set(edges))
    first, last = edges[0] / 2, edges[-1] * 2        # an empty bucket either side
    _log2_ticks(ax, [first] + edges + [last])
    from matplotlib.ticker import FuncFormatter
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: time_text(v)))
    ax.set_xlim(first, last)
    for x, label, ls, color in marks:
        if x is not None:
            ax.axvline(x, color=color, ls=ls, lw=1.2, label=f"{label} {time_text(x)}")
    ax.set_xlabel(xlabel + " (bucket edges, log2 scale)")
    ax.set_ylabel(ylabel)
    _integer_y(ax)
    ax.margins(y=0.15)
    ax.grid(False, axis="x")
    _legend(ax)


def _plot_access(ax, res):
    """The engine's log2 histogram of first-data times: one bar per bucket on a log2 time axis,
    the run's min, mean and max (engine counters) as lines."""
    s = res["summary"]
    _histograms(ax, [("commands per log2 bucket", s.get("histogram"), "tab:blue")],
                "issue to first data dword",
                marks=[(s.get(key), label, ls, "tab:gray") for key, label, ls in
                       (("min_us", "min", ":"), ("avg_us", "mean", "--"), ("max_us", "max", "-."))])


def _entries(res):
    """The latency entries (runlatency.py) of a long, overhead or latency result that have a
    histogram with samples; [] for others and for results written before they existed."""
    key = runlatency.TABLES.get(res["experiment"], (None,))[0]
    return [e for e in res["summary"].get(key) or [] if e.get("histogram")]


def _gap_series(res):
    """(label, histogram, colour) of the gap entries, and their means as marks."""
    series, marks = [], []
    for e in _entries(res):
        label = " ".join(e[k] for k in ("circuit", "op") if k in e)
        color = GAP_COLORS.get((e.get("circuit", "host loop"), e["op"]), "tab:gray")
        series.append((f"{label}, {e['latency']['samples']} gaps", e["histogram"], color))
        marks.append((e["latency"]["mean_us"], f"{label} mean", "--", color))
    return series, marks


def _plot_long_gaps(ax, res):
    """Beside long's MB/s: the host loop's gaps between commands, all loop counts."""
    series, marks = _gap_series(res)
    _histograms(ax, series, "status to the next command's first data", "gaps", marks)
    ax.set_title("gaps between commands, host loop (engine histogram)")


def _plot_overhead(ax, res):
    """The gaps of each circuit and direction: one histogram each, their means as lines."""
    series, marks = _gap_series(res)
    _histograms(ax, series, "status to the next command's first data", "gaps", marks)


def _plot_latency_histogram(ax, res):
    """Beside latency's sweep: each size's runs, issue to status, one colour per size."""
    import matplotlib.pyplot as plt
    entries = _entries(res)
    colors = plt.get_cmap("viridis")
    _histograms(ax, [(f"{size_text(e['kib'] * 1024)}, {e['latency']['samples']} runs",
                      e["histogram"], colors(i / max(len(entries) - 1, 1)))
                     for i, e in enumerate(entries)], "issue to status", "runs")
    ax.set_title("time of each run (engine histogram)")


def qd_plot_row(rows):
    """The row at 4 KiB requests, or the size nearest to it."""
    return min(rows, key=lambda r: (abs(r["sectors"] - QD_PLOT_SECTORS), r["sectors"]))


def _plot_queued(axes, res):
    """Left: IOPS vs request size, one line per queue depth and the non-queued random line.
    Right: IOPS vs queue depth at 4 KiB, the non-queued (QD 1) figure as a reference line."""
    import matplotlib.pyplot as plt
    rows, depths = res["rows"], res["parameters"]["queue_depths"]
    # --write-only: the queued figures are the writes' (qd<N>_write_*)
    q = "" if f"qd{depths[0]}_iops" in rows[0] else "write_"
    left, right = axes
    x = [r["sectors"] * bc.SECTOR_BYTES for r in rows]
    colors = plt.get_cmap("viridis")
    for i, n in enumerate(depths):
        ys = [r.get(f"qd{n}_{q}iops") for r in rows]
        left.plot(x, ys, marker="o", color=colors(i / max(len(depths) - 1, 1)),
                  label=f"QD {n} (NCQ)")
    if "random_iops" in rows[0]:
        left.plot(x, [r["random_iops"] for r in rows], color="tab:gray", marker="x", ls="--",
                  label="non-queued (READ DMA EXT)")
    _log2_ticks(left, x, size_text)
    left.set_xlabel("request size")
    left.set_ylabel(f"IOPS (commands/s), random {'writes' if q else 'reads'}")
    left.set_ylim(bottom=0)
    _legend(left)
    at = qd_plot_row(rows)
    _line(right, depths, [at.get(f"qd{n}_{q}iops") for n in depths], "queued random", "random")
    if res["parameters"].get("queued_sequential"):
        _line(right, depths, [at.get(f"qd{n}_{q}seq_iops") for n in depths], "queued sequential",
              "sequential")
    if "random_iops" in at:
        right.axhline(at["random_iops"], color="tab:gray", ls="--", label="non-queued, QD 1")
    _log2_ticks(right, depths)
    right.set_xlabel("queue depth (commands in flight)")
    right.set_ylabel("IOPS (commands/s)")
    right.set_ylim(bottom=0)
    right.set_title(f"IOPS vs queue depth, {size_text(at['bytes_per_request'])} random reads")
    _legend(right)


PLOTS = {"long": _plot_long, "hwloop": _plot_hwloop, "overhead": _plot_overhead,
         "latency": _plot_latency, "random": _plot_random, "access": _plot_access}
# the second panel of a result with latency entries (runlatency.py)
BESIDE = {"long": _plot_long_gaps, "latency": _plot_latency_histogram}
