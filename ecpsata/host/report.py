# SPDX-License-Identifier: BSD-2-Clause
"""Results of the experiments (ecpsata/host/experiments/) as terminal tables in the style of the
public reports, JSON (doc/bench-json.md), CSV and PNG plots (each experiment's tables and plot
from the registry, in the style of tables.py and plots.py); the HTML page in htmlreport.py.

A result is {"experiment", "parameters", "rows", "summary", "notes"}; document() adds the target,
drive and link it was measured on.
"""

import csv
import datetime
import json
import os

from ecpsata.host import experiments, plots, runlatency
from ecpsata.host import latency as latency_stats
from ecpsata.host.tables import table

TOOL = "ecpsata-bench"
SCHEMA_VERSION = 3

def title(res, reference=True):
    """What an experiment measured; reference=True adds the short name of the public document
    it reproduces, as the help text."""
    exp = experiments.get(res["experiment"])
    text = exp.short_title() if reference else exp.title
    return exp.title_of(res, text) if exp.title_of else text


UNITS = ("MB/s = 10^6 bytes/s; us = microseconds, from the gateware's sys-clock cycle counts; "
         "KiB = 1,024 bytes; sectors of 512 bytes")

def tables(res, sys_clk_hz=None):
    """(caption, columns, rows) of every table of a result, for the terminal and the HTML page:
    the experiment's own, then the latency statistics of its runs (runlatency.py). sys_clk_hz
    derives the latency statistics of a result written before they were stored."""
    return experiments.get(res["experiment"]).tables(res, sys_clk_hz) + runlatency.tables(res)


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
                                        "auto_activate_enabled", "trim") if k in drive},
        "link": {"gen": link["gen"], "time_to_link_us": link["time_to_link_us"]},
        "drive_state": session.drive_state(),
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


# plots --------------------------------------------------------------------------------------------

def can_plot(name):
    return experiments.get(name).plot is not None


def plot_title(res):
    """'name: what is measured' and, below, the public document it reproduces (by title)."""
    name = res["experiment"]
    ref = experiments.get(name).reference()
    return f"{name}: {title(res, reference=False)}" + (f"\nreproduces: {ref}" if ref else "")


def write_plot(path, res):
    """PNG of one result, drawn by its experiment on one axes, or two side by side when the
    experiment says the result needs them (a second panel of histograms, queued runs)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    exp = experiments.get(res["experiment"])
    _mkdir(path)
    wide = bool(exp.wide and exp.wide(res))
    with matplotlib.rc_context(plots.STYLE):
        fig, axes = plt.subplots(1, 2 if wide else 1,
                                 figsize=plots.FIGSIZE_WIDE if wide else plots.FIGSIZE,
                                 squeeze=False, layout="constrained")
        try:
            exp.plot(list(axes[0]), res)
            fig.suptitle(plot_title(res), fontsize=10)
            fig.savefig(path, dpi=plots.DPI)
        finally:
            plt.close(fig)
