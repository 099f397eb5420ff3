# SPDX-License-Identifier: BSD-2-Clause
"""The style and the drawing helpers of the experiments' PNG plots (each experiment draws its own,
ecpsata/host/experiments/; report.write_plot makes the figure), one style for all of them.

Sizes on the axes read as sizes (512 B, 4 KiB, 1 MiB), counts as integers and times with their
unit; every axis names its unit (MB/s is 10^6 bytes per second); legends sit outside the data;
titles name what was measured and the public document it reproduces, by its title.
"""

from ecpsata.host import runlatency

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


# axes ---------------------------------------------------------------------------------------------

def panels(axes, res, *draws):
    """Each draw(ax, res) on its axes, left to right: a figure has as many axes as its experiment
    asked for (Experiment.wide), so a second draw runs only on a two-panel figure."""
    for ax, draw in zip(axes, draws):
        draw(ax, res)


def log2_ticks(ax, values, text=str):
    """A log2 x axis with a tick at every measured value, labelled by `text`."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(FixedLocator(sorted(set(values))))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: text(int(round(v)))))
    ax.xaxis.set_minor_locator(NullLocator())


def legend(ax, extra=()):
    """One legend for an axes and its twins, below the data area."""
    handles, labels = ax.get_legend_handles_labels()
    for other in extra:
        h, lab = other.get_legend_handles_labels()
        handles, labels = handles + h, labels + lab
    if handles:
        ax.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, -0.2),
                  ncol=min(len(handles), 3), frameon=False)


def line(ax, x, ys, label, kind, **kw):
    pts = [(a, b) for a, b in zip(x, ys) if b is not None]
    if pts:
        color, marker, ls = SERIES[kind]
        ax.plot([a for a, _ in pts], [b for _, b in pts], color=color, marker=marker, ls=ls,
                label=label, **kw)


def integer_y(ax):
    from matplotlib.ticker import MaxNLocator
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))


def rate_axis(ax, x, series):
    """MB/s on a right-hand axis beside the left one: series of (values, label, line style); one
    legend for both axes."""
    ax2 = ax.twinx()
    for values, label, style in series:
        ax2.plot(x, values, label=label, **style)
    ax2.set_ylabel(MBPS)
    ax2.set_ylim(bottom=0)
    ax2.grid(False)
    legend(ax, [ax2])


def histograms(ax, series, xlabel, ylabel="commands", marks=()):
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
    log2_ticks(ax, [first] + edges + [last])
    from matplotlib.ticker import FuncFormatter
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: time_text(v)))
    ax.set_xlim(first, last)
    for x, label, ls, color in marks:
        if x is not None:
            ax.axvline(x, color=color, ls=ls, lw=1.2, label=f"{label} {time_text(x)}")
    ax.set_xlabel(xlabel + " (bucket edges, log2 scale)")
    ax.set_ylabel(ylabel)
    integer_y(ax)
    ax.margins(y=0.15)
    ax.grid(False, axis="x")
    legend(ax)


def entries(res):
    """The latency entries (runlatency.py) of a long, overhead or latency result that have a
    histogram with samples; [] for others and for results written before they existed."""
    key = runlatency.TABLES.get(res["experiment"], (None,))[0]
    return [e for e in res["summary"].get(key) or [] if e.get("histogram")]


def gap_series(res):
    """(label, histogram, colour) of the gap entries, and their means as marks."""
    series, marks = [], []
    for e in entries(res):
        label = " ".join(e[k] for k in ("circuit", "op") if k in e)
        color = GAP_COLORS.get((e.get("circuit", "host loop"), e["op"]), "tab:gray")
        series.append((f"{label}, {e['latency']['samples']} gaps", e["histogram"], color))
        marks.append((e["latency"]["mean_us"], f"{label} mean", "--", color))
    return series, marks
