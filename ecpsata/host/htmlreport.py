# SPDX-License-Identifier: BSD-2-Clause
"""One self-contained HTML page per results folder (`index.html`), and one over several folders.

The page is built from the folder's JSON files only (doc/bench-json.md) and the PNG plots beside
them, embedded as data URIs: no script, no style sheet or font from the network, so it opens from
a disk or a mail attachment. It shows the drive and the gateware the figures were measured with,
every experiment's parameters, tables and plots, what each experiment measures and the public
document it reproduces, and the failed runs, failed checks and notes of the run.
"""

import base64
import glob
import json
import os
from html import escape

from ecpsata.engines import common as bc
from ecpsata.host import drivestate, experiments, latency, report

INDEX = "index.html"
# Drive settings the tools switch between experiments (not a different drive).
DRIVE_SETTINGS = ("write_cache_enabled", "auto_activate_enabled")
STYLE = """
body { font-family: sans-serif; font-size: 15px; line-height: 1.4; color: #222;
       max-width: 1100px; margin: 1em auto; padding: 0 1em; }
h1 { font-size: 1.5em; } h2 { font-size: 1.25em; border-bottom: 1px solid #ccc; margin-top: 2em; }
h3 { font-size: 1em; margin-bottom: 0.3em; }
table { border-collapse: collapse; margin: 0.4em 0 1em; font-size: 13px; }
th, td { border: 1px solid #ccc; padding: 2px 7px; vertical-align: top; }
th { background: #f0f0f0; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
table.kv th { width: 11em; }
img { max-width: 100%; height: auto; border: 1px solid #ddd; }
.ref { color: #444; font-style: italic; }
.error { background: #fde8e8; border-left: 4px solid #c00; padding: 0.4em 0.8em; }
.warn { background: #fff6dd; border-left: 4px solid #d90; padding: 0.4em 0.8em; }
.muted { color: #666; font-size: 13px; }
nav a { margin-right: 0.8em; }
"""


def load(folder):
    """[(experiment, document, json file name)] of a results folder, in the suite's order (other
    JSON records of this tool after them, by name)."""
    found = []
    for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
        try:
            with open(path) as f:
                doc = json.load(f)
        except (OSError, ValueError):
            continue
        if isinstance(doc, dict) and doc.get("tool") == report.TOOL and "experiment" in doc:
            found.append((doc["experiment"], doc, os.path.basename(path)))
    order = {name: i for i, name in enumerate(experiments.NAMES)}
    return sorted(found, key=lambda x: (order.get(x[0], len(order)), x[2]))


def unreadable(folder):
    """[(file name, why)] of the folder's JSON files that are not valid JSON: the page lists them as
    errors instead of leaving them out without a word."""
    out = []
    for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
        try:
            with open(path) as f:
                json.load(f)
        except (OSError, ValueError) as e:
            out.append((os.path.basename(path), str(e)))
    return out


def _cell(fmt, value):
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    try:
        return fmt.format(value)
    except (ValueError, TypeError):
        return str(value)


def html_table(columns, rows, caption=""):
    text = [any(isinstance(r.get(key), str) for r in rows) for _, key, _ in columns]
    out = ["<table>"]
    if caption:
        out.append(f"<caption>{escape(caption)}</caption>")
    out.append("<tr>" + "".join(f"<th>{escape(h)}</th>" for h, _, _ in columns) + "</tr>")
    for r in rows:
        out.append("<tr>" + "".join(
            f"<td{'' if t else ' class=num'}>{escape(_cell(fmt, r.get(key)))}</td>"
            for (_, key, fmt), t in zip(columns, text)) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


def kv_table(pairs):
    return ("<table class=kv>" + "".join(f"<tr><th>{escape(str(k))}</th><td>{escape(_cell('{}', v))}"
                                          f"</td></tr>" for k, v in pairs) + "</table>")


def image(path, alt):
    with open(path, "rb") as f:
        data = base64.b64encode(f.read()).decode("ascii")
    return f'<img src="data:image/png;base64,{data}" alt="{escape(alt)}">'


# problems -----------------------------------------------------------------------------------------

def problems(entries):
    """(errors, warnings): failed runs and failed checks; records measured on another gateware or
    drive than the first; experiments of the suite that are not in the folder."""
    errors, warnings = [], []
    first = next((d for _, d, _ in entries if "target" in d), None)
    for name, doc, fname in entries:
        if "error" in doc:
            errors.append((name, f"{fname}: the run failed: {doc['error'].get('message', '?')}"))
            continue
        if name == "verify" and doc["summary"].get("passed") is False:
            errors.append((name, "verify: the data read back differs from the data written "
                                  "(result FAIL)"))
        failed = sum(r.get("failed_commands") or 0 for r in doc["rows"])
        if failed:
            errors.append((name, f"{failed} commands failed"))
        if first is None:
            continue
        if doc.get("target") != first.get("target"):
            warnings.append((name, f"{fname} was measured on another gateware than "
                                   f"{entries[0][2]}: compare with care"))
        this, ref = doc.get("drive") or {}, first.get("drive") or {}
        if {k: v for k, v in this.items() if k not in DRIVE_SETTINGS} != \
                {k: v for k, v in ref.items() if k not in DRIVE_SETTINGS}:
            warnings.append((name, f"{fname} was measured on another drive than "
                                   f"{entries[0][2]}: compare with care"))
        else:
            for key in DRIVE_SETTINGS:
                if key in this and key in ref and this[key] != ref[key]:
                    warnings.append((name, f"{key.replace('_', ' ')} was "
                                           f"{_cell('{}', ref[key])} for {entries[0][2]} and "
                                           f"{_cell('{}', this[key])} for {fname} (a drive setting "
                                           f"the tools change)"))
    present = {name for name, _, _ in entries}
    missing = [n for n in experiments.NAMES if n not in present and experiments.get(n).suite]
    if entries and missing:
        warnings.append(("", "not in this folder: " + ", ".join(missing) +
                         (" (verify runs only with --allow-write)" if "verify" in missing else "")))
    return errors, warnings


# one folder ---------------------------------------------------------------------------------------

def folder_state(entries):
    """The drive's state before the folder's first run and after its last (its records with
    `drive_state`, in the order they were written: a suite's runs follow each other, each one's
    before the last one's after), with the change and the number of runs; None without any."""
    docs = [d for _, d, _ in entries if (d.get("drive_state") or {}).get("after")]
    if not docs:
        return None
    docs = sorted(docs, key=lambda d: d.get("created_utc", ""))    # stable: ties keep the suite's
    before, after = docs[0]["drive_state"]["before"], docs[-1]["drive_state"]["after"]
    return {"before": before, "after": after, "change": drivestate.change(before, after),
            "runs": len(docs)}


def _identity(doc, state=None):
    """The drive (with its state over the folder's runs, or this run's) and the gateware."""
    out = ["<h3>Drive</h3>", kv_table(report.drive_lines(doc["drive"]).items())]
    if state is None:
        state, what = doc.get("drive_state") or {}, "this run"
    else:
        what = (f"the first of this folder's {state['runs']} runs and after the last"
                if state["runs"] > 1 else "this folder's run")
    lines = drivestate.lines(state)
    if lines:
        out += [f"<p class=muted>The drive's own state before {what} (device statistics, SMART, "
                f"SATA Phy event counters):</p>", kv_table(lines)]
    link = doc.get("link") or {}
    if link:
        out.append(kv_table([("link", f"Gen{link['gen']} ({1.5 * link['gen']:g} Gb/s), up in "
                                      f"{link['time_to_link_us']:.2f} us")]))
    out += ["<h3>Gateware</h3>", kv_table(report.target_lines(doc["target"]))]
    return "\n".join(out)


def tables(doc, sys_clk_hz):
    """(caption, columns, rows) of every table of an experiment's record (report.tables)."""
    return report.tables(doc, sys_clk_hz)


def _experiment(folder, name, doc, fname):
    base = fname[:-5]
    out = [f'<h2 id="{escape(name)}">{escape(name)}</h2>']
    if "error" in doc:
        err = doc["error"]
        out.append(f'<p class=error>{escape(err.get("message", "the run failed"))}</p>')
        out.append(kv_table([(k, json.dumps(v) if not isinstance(v, str) else v)
                             for k, v in err.items() if k != "message"]))
        return "\n".join(out)
    if name in experiments.NAMES:
        out.append(f"<p><b>{escape(report.title(doc, reference=False))}.</b> "
                   f"{escape(experiments.get(name).description)}</p>")
        ref = experiments.get(name).reference()
        out.append(f'<p class=ref>Reproduces: {escape(ref)}.</p>' if ref else
                   '<p class=ref>A check, not a reproduction of a published figure.</p>')
    sys_clk = doc["target"]["sys_clk_hz"]
    out.append("<h3>Parameters</h3>")
    out.append(kv_table(doc["parameters"].items()))
    if name in experiments.NAMES:
        for caption, cols, rows in tables(doc, sys_clk):
            out.append(html_table(cols, rows, caption))
    else:
        keys = list(dict.fromkeys(k for r in doc["rows"] for k in r))
        out.append(html_table([(k, k, "{}") for k in keys], doc["rows"]))
    for note in doc.get("notes", []):
        out.append(f"<p class=warn>note: {escape(note)}</p>")
    state = dict(drivestate.lines(doc.get("drive_state") or {}))
    if state:
        out.append(f"<p class=muted>The drive during this run: temperature "
                   f"{escape(state['temperature'])}; sectors written "
                   f"{escape(state['sectors written'])}.</p>")
    png = os.path.join(folder, base + ".png")
    if os.path.exists(png):
        out.append(f"<p>{image(png, f'{name} plot')}</p>")
    files = [f for f in sorted(os.listdir(folder)) if f.startswith(base + ".") or
             f.startswith(base + "-")]
    out.append("<p class=muted>files: " + ", ".join(
        f'<a href="{escape(f)}">{escape(f)}</a>' for f in files) +
        f"; written {escape(doc.get('created_utc', '?'))}</p>")
    return "\n".join(out)


def page(folder, title=None):
    """The HTML text of a results folder's report."""
    entries = load(folder)
    title = title or f"ecpsata benchmark results: {os.path.basename(os.path.abspath(folder))}"
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           f"<title>{escape(title)}</title><style>{STYLE}</style></head><body>",
           f"<h1>{escape(title)}</h1>"]
    if not entries:
        out.append("<p class=error>no result files (&lt;experiment&gt;.json) in this folder</p>")
        return "\n".join(out + ["</body></html>"])
    measured = [d for _, d, _ in entries if "target" in d]
    stamps = sorted(d["created_utc"] for _, d, _ in entries if "created_utc" in d)
    if stamps:
        out.append(f"<p class=muted>{len(entries)} result files written {escape(stamps[0])} to "
                   f"{escape(stamps[-1])} by {escape(report.TOOL)} (schema version "
                   f"{entries[0][1].get('version')}).</p>")
    out.append(f"<p><b>Units.</b> {escape(report.UNITS)}. Every time and rate comes from the "
               f"gateware's counters, none from a host clock.</p>")
    errors, warnings = problems(entries)
    errors += [("", f"{fname}: not readable as JSON ({why}); left out")
               for fname, why in unreadable(folder)]
    out.append("<h2 id=problems>Errors and warnings</h2>")
    if not errors and not warnings:
        out.append("<p>No failed run, no failed check.</p>")
    for cls, items in (("error", errors), ("warn", warnings)):
        for name, text in items:
            where = f'<a href="#{escape(name)}">{escape(name)}</a>: ' if name else ""
            out.append(f"<p class={cls}>{where}{escape(text)}</p>")
    notes = [(n, note) for n, d, _ in entries for note in d.get("notes", [])]
    if notes:
        out.append(f"<p class=muted>{len(notes)} notes on how to read the figures are shown with "
                   f"their experiments.</p>")
    if measured:
        out.append("<h2 id=identity>Drive and gateware</h2>")
        out.append(_identity(measured[0], folder_state(entries)))
    out.append("<nav><b>Experiments:</b> " + " ".join(
        f'<a href="#{escape(n)}">{escape(n)}</a>' for n, _, _ in entries) + "</nav>")
    for name, doc, fname in entries:
        out.append(_experiment(folder, name, doc, fname))
    out.append("</body></html>")
    return "\n".join(out)


def write_index(folder, title=None):
    """Write FOLDER/index.html from the folder's results; returns its path."""
    path = os.path.join(folder, INDEX)
    with open(path, "w", encoding="utf-8") as f:
        f.write(page(folder, title))
    return path


# several folders ----------------------------------------------------------------------------------

def result_folders(parent):
    """The subfolders of `parent` that hold result files, by name."""
    return [d for d in sorted(os.listdir(parent))
            if os.path.isdir(os.path.join(parent, d)) and load(os.path.join(parent, d))]


def headline(entries):
    """A few figures of a folder for the overview: {column: value}."""
    docs = {n: d for n, d, _ in entries if "error" not in d}
    out = {}
    for op in ("read", "write"):
        row = next((r for r in (docs.get("single") or {}).get("rows", []) if r["op"] == op), None)
        out[f"single {op} MB/s"] = row and row["mbps"]
    row = next((r for r in (docs.get("random") or {}).get("rows", [])
                if r["sectors"] * bc.SECTOR_BYTES == 4096), None)
    out["random read IOPS, 4 KiB"] = row.get("random_iops") if row else None
    acc = docs.get("access")
    lat = latency.of_result(acc, acc["target"]["sys_clk_hz"]) if acc else None
    out["access mean us"] = lat and lat["mean_us"]
    out["verify"] = (docs.get("verify") or {}).get("rows", [{}])[0].get("result")
    errors, warnings = problems(entries)
    out["errors"] = len(errors)
    out["warnings"] = len(warnings)
    return out


def top_page(parent, title=None):
    folders = result_folders(parent)
    title = title or f"ecpsata benchmark results: {os.path.basename(os.path.abspath(parent))}"
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           f"<title>{escape(title)}</title><style>{STYLE}</style></head><body>",
           f"<h1>{escape(title)}</h1>",
           f"<p><b>Units.</b> {escape(report.UNITS)}.</p>"]
    if not folders:
        out.append("<p class=error>no result folders here</p>")
        return "\n".join(out + ["</body></html>"])
    rows = []
    for d in folders:
        entries = load(os.path.join(parent, d))
        doc = next((x for _, x, _ in entries if "target" in x), {})
        rows.append(dict(headline(entries), folder=d,
                         drive=(doc.get("drive") or {}).get("model"),
                         gateware=(doc.get("target") or {}).get("git_rev")))
    cols = [("results", "folder", "{}"), ("drive", "drive", "{}"), ("gateware", "gateware", "{}")]
    cols += [(k, k, "{:.2f}" if "MB/s" in k or " us" in k else
              "{:.0f}" if "IOPS" in k else "{}") for k in headline([])]
    table = html_table(cols, rows)
    for d in folders:      # each folder's name links to its page
        table = table.replace(f"<td>{escape(d)}</td>",
                              f'<td><a href="{escape(d)}/{INDEX}">{escape(d)}</a></td>', 1)
    out.append(table)
    out.append("<p class=muted>Each link opens that folder's full report: drive, gateware, every "
               "experiment's tables and plots.</p>")
    for d in folders:
        entries = load(os.path.join(parent, d))
        errors, warnings = problems(entries)
        out.append(f'<h2><a href="{escape(d)}/{INDEX}">{escape(d)}</a></h2>')
        doc = next((x for _, x, _ in entries if "target" in x), None)
        if doc:
            out.append(_identity(doc, folder_state(entries)))
        for cls, items in (("error", errors), ("warn", warnings)):
            for name, text in items:
                out.append(f"<p class={cls}>{escape(name + ': ' if name else '')}{escape(text)}</p>")
    out.append("</body></html>")
    return "\n".join(out)


def write_top_index(parent, title=None):
    """Write PARENT/index.html over the result folders below it (one per persona of `make
    bench`); returns its path."""
    path = os.path.join(parent, INDEX)
    with open(path, "w", encoding="utf-8") as f:
        f.write(top_page(parent, title))
    return path


def rebuild(folder, plots=False):
    """`ecpsata report DIR`: a folder of <experiment>.json files gets its page; a folder of such
    folders (make bench's personas) gets each folder's page and one over them. plots=True draws
    every plot again from the JSON files first. Returns the pages written."""
    from ecpsata.host.target import TargetError
    if not os.path.isdir(folder):
        raise TargetError(f"report: {folder} is not a folder")
    top = not load(folder)
    folders = [os.path.join(folder, d) for d in result_folders(folder)] if top else [folder]
    if not folders:
        raise TargetError(f"report: no result files (<experiment>.json) in {folder} or its "
                          f"subfolders")
    written = []
    for d in folders:
        if plots:
            for name, doc, fname in load(d):
                if "error" not in doc and report.can_plot(name):
                    report.write_plot(os.path.join(d, fname[:-5] + ".png"), doc)
        written.append(write_index(d))
    if top:
        written.append(write_top_index(folder))
    return written
