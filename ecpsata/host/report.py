# SPDX-License-Identifier: BSD-2-Clause
"""Results of ecpsata/host/suite.py as terminal tables in the style of the public reports, JSON
(doc/bench-json.md) and CSV; PNG plots in ecpsata/host/plots.py, the HTML page in htmlreport.py.

A result is {"experiment", "parameters", "rows", "summary", "notes"}; document() adds the target,
drive and link it was measured on.
"""

import csv
import datetime
import json
import os

from ecpsata.host import catalogue
from ecpsata.host import latency as latency_stats
from ecpsata.host import measure, quick, runlatency

TOOL = "ecpsata-bench"
SCHEMA_VERSION = 1

TITLES = {name: catalogue.short_title(name) for name in catalogue.EXPERIMENTS}

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


MIX_COLUMNS = [("reads", "reads", "{}"), ("writes", "writes", "{}"),
               ("% reads", "read_percent", "{:.1f}")]


def queued_rows(res, op="read"):
    """The qd<N>_* keys (op write: qd<N>_write_*, mix: qd<N>_mix_*) of a random result as one
    row per (request size, queue depth)."""
    out = []
    infix = "" if op == "read" else f"{op}_"
    keys = ("iops", "iops_stdev", "iops_min", "iops_max", "mbps", "lat_us", "depth", "seq_iops",
            "seq_mbps") + (("reads", "writes", "read_percent") if op == "mix" else ())
    for r in res["rows"]:
        for n in res["parameters"]["queue_depths"]:
            out.append({"sectors": r["sectors"], "qd": n} |
                       {k: r.get(f"qd{n}_{infix}{k}") for k in keys})
    return out


QUEUED_LATENCY_COLUMNS = [("op", "op", "{}"), ("LBAs", "lbas", "{}"), ("sectors", "sectors", "{}"),
                          ("QD", "queue_depth", "{}")] + measure.LATENCY_COLUMNS


def spread_columns(cols, rows):
    """After each rate column whose rows carry --loops spread keys, its stdev, min and max."""
    out = []
    for col in cols:
        out.append(col)
        head, key, fmt = col
        if any(r.get(f"{key}_stdev") is not None for r in rows):
            out += [(f"{head} sd", f"{key}_stdev", fmt), (f"{head} min", f"{key}_min", fmt),
                    (f"{head} max", f"{key}_max", fmt)]
    return out


SPREAD_COLUMNS = [("figure", "figure", "{}"), ("mean", "mean", "{:.2f}"),
                  ("stdev", "stdev", "{:.2f}"), ("min", "min", "{:.2f}"), ("max", "max", "{:.2f}")]


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


def title(res, reference=True):
    """What an experiment measured; reference=True adds the short name of the public document
    it reproduces, as the help text."""
    name, p = res["experiment"], res["parameters"]
    text = TITLES[name] if reference else catalogue.EXPERIMENTS[name][0]
    if name == "random" and p.get("queue_depths"):
        return text.replace("queue depth 1", "queue depth 1 and queued (NCQ)")
    if name == "verify" and p.get("check"):
        return "pattern of an earlier write read back and checked (--check: nothing written)"
    return text


UNITS = ("MB/s = 10^6 bytes/s; us = microseconds, from the gateware's sys-clock cycle counts; "
         "KiB = 1,024 bytes; sectors of 512 bytes")

LATENCY_COLUMNS = [("statistic", "statistic", "{}"), ("value us", "value", "{}"),
                   ("cycles", "value_cycles", "{:.7g}"), ("at least us", "at_least_us", "{:.3f}"),
                   ("how it is known", "bound", "{}")]
HISTOGRAM_COLUMNS = [("bucket", "bucket", "{}"), ("from cycles", "from_cycles", "{}"),
                     ("below cycles", "below_cycles", "{}"), ("from us", "from_us", "{:.3f}"),
                     ("below us", "below_us", "{:.3f}"), ("count", "count", "{}")]


def latency_rows(lat):
    """latency.table_rows with the value as people read it ('<= 1.707', 'n/a (20 samples)')."""
    return [dict(r, value=latency_stats.value_text(r, lat["samples"]))
            for r in latency_stats.table_rows(lat)]


def tables(res, sys_clk_hz=None):
    """(caption, columns, rows) of every table of a result, for the terminal and the HTML page.
    sys_clk_hz derives the latency statistics of a result written before they were stored."""
    name, p, summary = res["experiment"], res["parameters"], res["summary"]
    if name == "quick":
        return quick.tables(res)
    out = []
    lat = latency_stats.of_result(res, sys_clk_hz) if name == "access" else None
    if lat:
        out.append((f"latency, {lat['interval']}: {lat['samples']} samples (engine counters)",
                    LATENCY_COLUMNS, latency_rows(lat)))
    elif not p.get("queued_only"):
        rows = [summary] if name == "access" else res["rows"]
        cols = COLUMNS[name]
        tail = [c for c in cols if c[1] == "result"]        # the verdict stays last
        cols = spread_columns([c for c in cols if c not in tail], rows)
        out.append(("", cols + flush_columns(rows) + tail, rows))
    if name == "random" and p.get("queue_depths"):
        for op in p.get("queued_ops", ["read"]):
            qrows = queued_rows(res, op)
            out.append((f"queued random {op}s ({op.upper()} FPDMA QUEUED), per request size and "
                        f"queue depth", spread_columns(queued_columns(p), qrows), qrows))
        if p.get("mix_read_percent") is not None:
            qrows = queued_rows(res, "mix")
            out.append((f"queued random mix, {p['mix_read_percent']} % reads asked (READ and "
                        f"WRITE FPDMA QUEUED; reads and writes counted by the engine)",
                        spread_columns(queued_columns(p), qrows) + MIX_COLUMNS, qrows))
        if summary.get("queued_latency"):
            out.append(("queued latency, issue to completion (engine histogram: percentiles are "
                        "upper bounds)", QUEUED_LATENCY_COLUMNS,
                        measure.latency_table_rows(summary["queued_latency"])))
    if name == "long":
        out.append(("", [("", "label", "{}"), ("write MB/s", "average_write_mbps", "{:.2f}"),
                         ("read MB/s", "average_read_mbps", "{:.2f}")],
                    [dict(summary, label="average")]))
    if summary.get("spread"):
        out.append((f"spread over {p.get('loops')} loops (each loop's figure from the engine's "
                    f"counters)", SPREAD_COLUMNS,
                    [dict(v, figure=k) for k, v in summary["spread"].items()]))
    if name == "access" and summary.get("histogram"):
        out.append(("histogram (issue to first data), the engine's log2 buckets",
                    HISTOGRAM_COLUMNS, summary["histogram"]))
    return out + runlatency.tables(res)


def render(res):
    """The terminal report of one experiment."""
    name, p = res["experiment"], res["parameters"]
    out = [f"{name}: {title(res)}"]
    if "command_set" in p:
        out.append(f"commands  {p['command_set']}")
    shown = {k: v for k, v in p.items() if k not in ("command_set", "lba28")}
    out.append("params    " + ", ".join(f"{k}={v}" for k, v in shown.items()))
    out.append(f"units     {UNITS}")
    for caption, cols, rows in tables(res):
        if caption:
            out.append(caption + ":")
        out.append(table(cols, rows))
    out += [f"note: {n}" for n in res.get("notes", [])]
    return "\n".join(out)


# identity ----------------------------------------------------------------------------------------

def yes_text(supported, enabled):
    return "not supported" if not supported else ("supported, enabled" if enabled else
                                                  "supported, disabled")


def target_lines(ident):
    """(label, text) of the gateware's identity, as `ecpsata info` prints it."""
    import time
    built = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(ident["build_time"]))
    return [("ident", ident["ident"]), ("board", ident["board"]),
            ("git", f"{ident['git_rev']}{' (dirty)' if ident['git_dirty'] else ''}"),
            ("built", built), ("sys_clk", f"{ident['sys_clk_hz'] / 1e6:.3f} MHz"),
            ("features", " ".join(ident["features"]) or "-")]


def drive_lines(d):
    """{label: text} of an IDENTIFY summary, as `ecpsata identify` prints it (the keys of the JSON
    `drive` object; absent keys are left out)."""
    out = {"model": d.get("model"), "serial": d.get("serial"), "firmware": d.get("firmware")}
    if "sectors" in d:
        out["capacity"] = (f"{d['sectors']} sectors ({d['bytes'] / 1e9:.2f} GB, "
                           f"{d['bytes'] / 2**30:.2f} GiB)")
    if "lba48" in d:
        out["lba48"] = "yes" if d["lba48"] else "no (28-bit commands)"
    if "ncq" in d:
        out["ncq"] = "yes, depth %d" % d["queue_depth"] if d["ncq"] else "no"
    if "gens" in d:
        out["gens"] = " ".join("Gen%d" % g for g in d["gens"])
    if "write_cache" in d:
        out["write cache"] = f"{yes_text(d['write_cache'], d['write_cache_enabled'])} (volatile)"
    if "auto_activate" in d:
        out["auto-activate"] = (f"{yes_text(d['auto_activate'], d['auto_activate_enabled'])} "
                                f"(DMA Setup FIS)")
    return {k: v for k, v in out.items() if v is not None}


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
    """One line per row; columns in first-seen order over all rows. A result with latency
    statistics also writes them beside it: PATH-latency.csv (one line per statistic) and
    PATH-histogram.csv (one line per non-empty bucket), doc/bench-json.md."""
    _csv(path, res["rows"])
    lat = res["summary"].get("latency")
    if lat:
        stem = path[:-4] if path.lower().endswith(".csv") else path
        _csv(stem + "-latency.csv", [dict(r, samples=lat["samples"]) for r in
                                     latency_stats.table_rows(lat)], LATENCY_CSV_KEYS)
        _csv(stem + "-histogram.csv", res["summary"]["histogram"])


LATENCY_CSV_KEYS = ["statistic", "samples", "value_cycles", "value_us", "at_least_cycles",
                    "at_least_us", "bound"]


def _csv(path, rows, keys=None):
    _mkdir(path)
    if keys is None:
        keys = []
        for r in rows:
            keys += [k for k in r if k not in keys]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        for r in rows:
            w.writerow({k: "" if r.get(k) is None else r.get(k) for k in keys})


def _mkdir(path):
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)


# plots (ecpsata/host/plots.py) -------------------------------------------------------------------

from ecpsata.host.plots import can_plot, qd_plot_row, write_plot  # noqa: E402,F401
