# SPDX-License-Identifier: BSD-2-Clause
"""Results of ecpsata/host/suite.py as terminal tables in the style of the public reports, JSON (doc/bench-json.md), CSV and PNG.

A result is {"experiment", "parameters", "rows", "summary", "notes"}; document() adds the target,
drive and link it was measured on.
"""

import csv
import datetime
import json
import os

TOOL = "ecpsata-bench"
SCHEMA_VERSION = 1

TITLES = {
    "single":   "one command, MB/s from the engine's cycle counter (SATA-IP AN1 §3.2)",
    "long":     "host loop of commands at consecutive LBAs (SATA-IP AN1 Tables 5-1, 5-2)",
    "hwloop":   "hardware sequencer vs host loop (SATA-IP AN1 Table 6-1)",
    "overhead": "status of one command to first data of the next (SATA-IP AN1 Table 6-2)",
    "lba28":    "28-bit READ/WRITE DMA, 256 sectors per command (SATA-IP AN1 Table 7-1)",
    "latency":  "read time vs transfer size, min and max run dropped (e7SATA read test)",
    "cpu":      "data through the bridge and host vs through the engine (FPGA Drive dd test)",
    "access":   "single-sector reads at random LBAs, issue to first data dword (Quantum SSD paper)",
    "random":   "request throughput vs request size, queue depth 1 (Quantum SSD paper Fig. 5, 6)",
    "verify":   "pattern written, read back and checked",
}

# (header, row key, format) per experiment; None values print as "-".
COLUMNS = {
    "single":   [("op", "op", "{}"), ("LBA", "lba", "{}"), ("sectors", "sectors", "{}"),
                 ("bytes", "bytes", "{}"), ("cycles", "cycles", "{}"), ("time us", "us", "{:.2f}"),
                 ("1st data us", "first_data_us", "{:.2f}"), ("MB/s", "mbps", "{:.2f}")],
    "long":     [("loop count", "loop_count", "{}"), ("xfr bytes", "bytes", "{}"),
                 ("write MB/s", "write_mbps", "{:.2f}"), ("read MB/s", "read_mbps", "{:.2f}")],
    "hwloop":   [("circuit", "circuit", "{}"), ("loop process", "loop_process", "{}"),
                 ("xfer bytes", "bytes", "{}"), ("write MB/s", "write_mbps", "{:.2f}"),
                 ("read MB/s", "read_mbps", "{:.2f}")],
    "overhead": [("circuit", "circuit", "{}"), ("op", "op", "{}"), ("min us", "min_us", "{:.2f}"),
                 ("avg us", "avg_us", "{:.2f}"), ("max us", "max_us", "{:.2f}"),
                 ("gaps", "gaps", "{}")],
    "lba28":    [("op", "op", "{}"), ("sectors", "sectors", "{}"), ("commands", "commands", "{}"),
                 ("cycles", "cycles", "{}"), ("MB/s", "mbps", "{:.2f}")],
    "latency":  [("KiB", "kib", "{}"), ("first us", "first_us", "{:.2f}"),
                 ("avg cycles", "avg_cycles", "{:.0f}"), ("avg us", "avg_us", "{:.2f}"),
                 ("MB/s", "mbps", "{:.2f}"), ("1st data us", "first_data_us", "{:.2f}")],
    "cpu":      [("op", "op", "{}"), ("path", "path", "{}"), ("MB/s", "mbps", "{:.2f}"),
                 ("ratio", "ratio", "{:.2f}")],
    "access":   [("min us", "min_us", "{:.2f}"), ("median us", "median_us", "{:.2f}"),
                 ("p99 us", "p99_us", "{:.2f}"), ("max us", "max_us", "{:.2f}"),
                 ("avg us", "avg_us", "{:.2f}")],
    "random":   [("sectors", "sectors", "{}"), ("random IOPS", "random_iops", "{:.0f}"),
                 ("MB/s", "random_mbps", "{:.2f}"), ("seq IOPS", "seq_iops", "{:.0f}"),
                 ("MB/s", "seq_mbps", "{:.2f}")],
    "verify":   [("LBA", "lba", "{}"), ("sectors", "sectors", "{}"), ("commands", "commands", "{}"),
                 ("failed", "failed_commands", "{}"), ("bad sectors", "bad_sectors", "{}"),
                 ("bad dwords", "bad_dwords", "{}"), ("first bad LBA", "first_bad_lba", "{}"),
                 ("result", "result", "{}")],
}


def flush_columns(rows):
    """The flush's columns, for results whose write runs ended with FLUSH CACHE EXT."""
    cols = []
    for prefix, label in (("", ""), ("write_", "write ")):
        if any(r.get(f"{prefix}flush_us") is not None for r in rows):
            cols.append((f"{label}flush us", f"{prefix}flush_us", "{:.1f}"))
        if any(r.get(f"{prefix}mbps_before_flush") is not None for r in rows):
            cols.append((f"{label}MB/s before flush", f"{prefix}mbps_before_flush", "{:.2f}"))
    return cols


def queued_columns(p):
    cols = [("sectors", "sectors", "{}"), ("QD", "qd", "{}"), ("IOPS", "iops", "{:.0f}"),
            ("MB/s", "mbps", "{:.2f}"), ("avg lat us", "lat_us", "{:.2f}"),
            ("depth", "depth", "{}")]
    if p.get("queued_sequential"):
        cols += [("seq IOPS", "seq_iops", "{:.0f}"), ("seq MB/s", "seq_mbps", "{:.2f}")]
    return cols


def queued_rows(res):
    """The qd<N>_* keys of a random result as one row per (request size, queue depth)."""
    out = []
    for r in res["rows"]:
        for n in res["parameters"]["queue_depths"]:
            out.append({"sectors": r["sectors"], "qd": n} |
                       {k: r.get(f"qd{n}_{k}") for k in ("iops", "mbps", "lat_us", "depth",
                                                         "seq_iops", "seq_mbps")})
    return out


def _cell(fmt, value):
    return "-" if value is None else fmt.format(value)


def table(columns, rows):
    """Right-aligned text table (left-aligned for text columns)."""
    cells = [[_cell(fmt, r.get(key)) for _, key, fmt in columns] for r in rows]
    widths = [max([len(h)] + [len(c[i]) for c in cells]) for i, (h, _, _) in enumerate(columns)]
    text = [any(isinstance(r.get(key), str) for r in rows) for _, key, _ in columns]
    def line(values):
        return "  ".join(v.ljust(w) if t else v.rjust(w) for v, w, t in zip(values, widths, text)).rstrip()
    return "\n".join([line([h for h, _, _ in columns])] + [line(c) for c in cells])


def title(res):
    name, p = res["experiment"], res["parameters"]
    if name == "random" and p.get("queue_depths"):
        return TITLES[name].replace("queue depth 1", "queue depth 1 and queued (NCQ)")
    if name == "verify" and p.get("check"):
        return "pattern of an earlier write read back and checked (--check: nothing written)"
    return TITLES[name]


def render(res):
    """The terminal report of one experiment."""
    name, p = res["experiment"], res["parameters"]
    out = [f"{name}: {title(res)}"]
    if "command_set" in p:
        out.append(f"commands  {p['command_set']}")
    shown = {k: v for k, v in p.items() if k not in ("command_set", "lba28")}
    out.append("params    " + ", ".join(f"{k}={v}" for k, v in shown.items()))
    rows = [res["summary"]] if name == "access" else res["rows"]
    if not p.get("queued_only"):
        cols = COLUMNS[name]
        tail = [c for c in cols if c[1] == "result"]        # the verdict stays last
        out.append(table([c for c in cols if c not in tail] + flush_columns(rows) + tail, rows))
    if name == "random" and p.get("queue_depths"):
        out.append("queued random reads (READ FPDMA QUEUED), per request size and queue depth:")
        out.append(table(queued_columns(p), queued_rows(res)))
    if name == "long":
        s = res["summary"]
        out.append(table([("", "label", "{}"), ("write MB/s", "average_write_mbps", "{:.2f}"),
                          ("read MB/s", "average_read_mbps", "{:.2f}")], [dict(s, label="average")]))
    if name == "access" and res["summary"].get("histogram"):
        out.append("histogram (issue to first data):")
        out.append(table([("from us", "from_us", "{:.2f}"), ("below us", "below_us", "{:.2f}"),
                          ("count", "count", "{}")], res["summary"]["histogram"]))
    out += [f"note: {n}" for n in res.get("notes", [])]
    return "\n".join(out)


# JSON --------------------------------------------------------------------------------------------

def document(res, session):
    """The JSON record of doc/bench-json.md."""
    ident, drive, link = session.identity, session.ident, session.link
    return {
        "tool": TOOL,
        "version": SCHEMA_VERSION,
        "experiment": res["experiment"],
        "created_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "target": {k: ident[k] for k in ("ident", "board", "git_rev", "git_dirty", "build_time",
                                         "sys_clk_hz", "features")},
        "drive": {k: drive[k] for k in ("model", "serial", "firmware", "sectors", "bytes", "lba48",
                                        "ncq", "queue_depth", "gens", "write_cache",
                                        "write_cache_enabled", "auto_activate",
                                        "auto_activate_enabled") if k in drive},
        "link": {"gen": link["gen"], "time_to_link_us": link["time_to_link_us"]},
        "parameters": dict(res["parameters"], **session.settings()),
        "rows": res["rows"],
        "summary": res["summary"],
        "notes": res.get("notes", []),
    }


def error_document(experiment, message, details):
    """The JSON record of a run that failed (doc/bench-json.md, "A failed run")."""
    return {
        "tool": TOOL,
        "version": SCHEMA_VERSION,
        "experiment": experiment,
        "created_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "error": dict(details, message=message),
    }


def write_json(path, doc):
    _mkdir(path)
    with open(path, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")


def write_csv(path, res):
    """One line per row; columns in first-seen order over all rows."""
    _mkdir(path)
    keys = []
    for r in res["rows"]:
        keys += [k for k in r if k not in keys]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        for r in res["rows"]:
            w.writerow({k: "" if r.get(k) is None else r.get(k) for k in keys})


def _mkdir(path):
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)


# plots -------------------------------------------------------------------------------------------

def can_plot(name):
    return name in PLOTS


def write_plot(path, res):
    """PNG of a sweep (long, hwloop, latency, random; random with queue depths in two panels)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    _mkdir(path)
    queued = res["experiment"] == "random" and res["parameters"].get("queue_depths")
    fig, axes = plt.subplots(1, 2 if queued else 1, figsize=(12 if queued else 7, 4.5),
                             squeeze=False)
    try:
        if queued:
            _plot_queued(axes[0], res)
        else:
            PLOTS[res["experiment"]](axes[0][0], res["rows"])
        axes[0][0].set_title(f"{res['experiment']}: {title(res)}", fontsize=9)
        for ax in axes[0]:
            ax.grid(True, alpha=0.3)
        fig.tight_layout()
        fig.savefig(path, dpi=100)
    finally:
        plt.close(fig)


def _lines(ax, x, series, xlabel, ylabel, logx=True):
    for label, ys in series:
        pts = [(a, b) for a, b in zip(x, ys) if b is not None]
        if pts:
            ax.plot([a for a, _ in pts], [b for _, b in pts], marker="o", label=label)
    if logx:
        from matplotlib.ticker import ScalarFormatter
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_formatter(ScalarFormatter())   # 16, 32, ... rather than 2^4, 2^5
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=8)


def _plot_long(ax, rows):
    _lines(ax, [r["loop_count"] for r in rows],
           [("write", [r["write_mbps"] for r in rows]), ("read", [r["read_mbps"] for r in rows])],
           "loop count (commands)", "MB/s")


def _plot_hwloop(ax, rows):
    labels = [r["circuit"] for r in rows]
    x = range(len(rows))
    for i, (op, key) in enumerate((("write", "write_mbps"), ("read", "read_mbps"))):
        vals = [r[key] or 0 for r in rows]
        ax.bar([a + 0.4 * i - 0.2 for a in x], vals, width=0.4, label=op)
    ax.set_xticks(list(x))
    ax.set_xticklabels(labels)
    ax.set_ylabel("MB/s")
    ax.legend(fontsize=8)


def _plot_latency(ax, rows):
    x = [r["kib"] for r in rows]
    _lines(ax, x, [("avg time", [r["avg_us"] for r in rows]),
                   ("first access", [r["first_us"] for r in rows])], "transfer size (KiB)", "us")
    ax.set_yscale("log")
    ax2 = ax.twinx()
    ax2.plot(x, [r["mbps"] for r in rows], color="tab:green", marker="s", label="MB/s (avg)")
    ax2.set_ylabel("MB/s")
    ax2.legend(fontsize=8, loc="lower right")


def _plot_random(ax, rows):
    x = [r["sectors"] for r in rows]
    _lines(ax, x, [("random IOPS", [r["random_iops"] for r in rows]),
                   ("sequential IOPS", [r["seq_iops"] for r in rows])], "request size (sectors)", "IOPS")
    ax2 = ax.twinx()
    ax2.plot(x, [r["random_mbps"] for r in rows], color="tab:green", marker="s", ls="--", label="random MB/s")
    ax2.plot(x, [r["seq_mbps"] for r in rows], color="tab:red", marker="s", ls="--", label="sequential MB/s")
    ax2.set_ylabel("MB/s")
    ax2.legend(fontsize=8, loc="center right")


QD_PLOT_SECTORS = 8     # IOPS against queue depth at 4 KiB requests (Quantum SSD paper Fig. 6)


def qd_plot_row(rows):
    """The row at 4 KiB requests, or the size nearest to it."""
    return min(rows, key=lambda r: (abs(r["sectors"] - QD_PLOT_SECTORS), r["sectors"]))


def _plot_queued(axes, res):
    """Left: IOPS vs request size, one line per queue depth and the non-queued random line.
    Right: IOPS vs queue depth at 4 KiB, the non-queued (QD 1) figure as a reference line."""
    rows, depths = res["rows"], res["parameters"]["queue_depths"]
    left, right = axes
    _lines(left, [r["sectors"] for r in rows],
           [(f"QD {n} (NCQ)", [r.get(f"qd{n}_iops") for r in rows]) for n in depths] +
           ([] if "random_iops" not in rows[0] else
            [("non-queued (READ DMA EXT)", [r["random_iops"] for r in rows])]),
           "request size (sectors)", "IOPS (random reads)")
    at = qd_plot_row(rows)
    series = [("queued random", [at.get(f"qd{n}_iops") for n in depths])]
    if res["parameters"].get("queued_sequential"):
        series.append(("queued sequential", [at.get(f"qd{n}_seq_iops") for n in depths]))
    _lines(right, depths, series, "queue depth (commands in flight)", "IOPS")
    if "random_iops" in at:
        right.axhline(at["random_iops"], color="tab:gray", ls="--", label="non-queued, QD 1")
    right.legend(fontsize=8)
    for ax, ticks in ((left, [r["sectors"] for r in rows]), (right, depths)):
        ax.set_xticks(ticks, [str(t) for t in ticks])
    right.set_title(f"IOPS vs queue depth, {at['sectors']}-sector "
                    f"({at['bytes_per_request'] / 1024:g} KiB) random reads", fontsize=9)


PLOTS = {"long": _plot_long, "hwloop": _plot_hwloop, "latency": _plot_latency, "random": _plot_random}
