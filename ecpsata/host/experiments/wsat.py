# SPDX-License-Identifier: BSD-2-Clause
"""`wsat`: write saturation as SNIA's Solid State Storage Performance Test Specification (PTS)
runs it: 4 KiB random writes at queue depth 32 on the queued engine, continuously, from the drive
as found (or right after `--purge SERIAL`) until `--until` times the range has been written; the
IOPS of each interval against the bytes written so far, as a multiple of the range. It shows the
drive's fresh-out-of-box speed, its fall as the spare blocks run out, and where it settles.

Each interval is one run of the queued engine of `--commands` commands (by default an eighth of
the range's 4 KiB pages, so eight points per range written), the next started as soon as the host
has read the last one's counters: the host's restart between intervals is the only pause. No FLUSH
CACHE EXT between intervals (it would let the drive empty its write cache and catch up); one after
the last, outside every interval, unless --no-flush. Whether the last five intervals hold the PTS
steady-state rule (steady.py) is reported as `settled`.

Destroys the data of its range (with --purge, of the whole drive): needs --allow-write and
--range. Not part of the suite.

Ref: SNIA Solid State Storage (SSS) Performance Test Specification (PTS), version 2.0.x: Write
Saturation test (WSAT).
"""

import math

from ecpsata.core import common as sc
from ecpsata.engines import common as bc
from ecpsata.host import argtypes, plots, sata
from ecpsata.host import steady as pts
from ecpsata.host.engine import iops
from ecpsata.host.experiments import Experiment, _pts
from ecpsata.host.results import SEED, avg, result
from ecpsata.host.target import TargetError

POINTS_PER_RANGE = 8             # intervals per range written, by default
PAGE_BYTES = _pts.PAGE_SECTORS * bc.SECTOR_BYTES
COLUMNS = [("interval", "interval", "{}"), ("written x range", "range_multiple", "{:.3f}"),
           ("written MiB", "written_mib", "{:.1f}"), ("IOPS", "iops", "{:.0f}"),
           ("MB/s", "mbps", "{:.2f}"), ("avg lat us", "lat_us", "{:.2f}"),
           ("max lat us", "lat_max_us", "{:.1f}")]


def wsat(s, until=2.0, commands=None, qd=32, purge=None, seed=SEED):
    lba, span = _pts.page_span(s, "wsat")
    s.check_span("wsat", lba, span, write=True)
    _pts.check_serial(s, purge, "wsat")
    qe = s.queued([qd], write=True)
    pages = span // _pts.PAGE_SECTORS
    per = commands or max(1, pages // POINTS_PER_RANGE)
    total = math.ceil(until * pages)              # 4 KiB writes in all
    purged = _pts.purge_first(s, purge, "wsat")
    rows, done = [], 0
    while done < total:
        n = len(rows) + 1
        r = qe.run("write", lba=lba, sectors=_pts.PAGE_SECTORS, commands=min(per, total - done),
                   qd=qd, lba_range=span, random=True, seed=seed + n,
                   label=f"wsat interval {n}, {done / pages:.2f}x of {until:g}x written")
        if not r["completed"]:
            raise TargetError(f"wsat: interval {n} completed no command")
        done += r["completed"]
        lat = r["lat"]
        rows.append({"interval": n, "range_multiple": done / pages,
                     "written_mib": done * PAGE_BYTES / 2**20,
                     "written_bytes": done * PAGE_BYTES,
                     "iops": iops(r["completed"], r["cycles"], s.f), "mbps": r["mbps"],
                     "lat_us": s.us(avg(lat)) if lat["count"] else None,
                     "lat_max_us": s.us(lat["max"]) if lat["count"] else None})
    if s.flush:
        sata.nodata(s.target, sc.ATA_FLUSH_CACHE_EXT, timeout=s.timeout,
                    what="FLUSH CACHE EXT after the last interval")
    values = [row["iops"] for row in rows]
    window = (pts.evaluate_window(values[-pts.WINDOW_ROUNDS:], len(values) - pts.WINDOW_ROUNDS + 1)
              if len(values) >= pts.WINDOW_ROUNDS else None)
    summary = {"intervals": len(rows), "written_bytes": done * PAGE_BYTES,
               "range_multiple": done / pages, "first_iops": values[0], "last_iops": values[-1],
               "min_iops": min(values), "max_iops": max(values),
               "first_to_last": values[0] / values[-1] if values[-1] else None,
               "settled": window.held if window else None,
               "purge": purged["method"] if purged else None}
    params = {"lba": lba, "range": span, "until": until, "commands": per, "queue_depth": qd,
              "sectors": _pts.PAGE_SECTORS, "purge": purged is not None, "seed": seed}
    notes = []
    if purged:
        notes.append(_pts.purge_note(purged))
    else:
        notes.append("not purged (--purge SERIAL): the first intervals show the drive as found, "
                     "fresh only if it was")
    notes.append(f"4 KiB random writes at QD {qd} on the queued engine, {per} commands an "
                 f"interval, back to back (the host's restart between intervals the only pause, "
                 f"no FLUSH between them); IOPS of each interval from the engine's counters")
    if window is None:
        notes.append(f"fewer than {pts.WINDOW_ROUNDS} intervals: nothing said about settling")
    else:
        w = window
        notes.append(f"intervals {w.first}-{w.last} {'hold' if w.held else 'do NOT hold'} the "
                     f"PTS steady-state rule: average {w.average:.0f} IOPS, range "
                     f"{w.percent(w.range):.1f} % of it (limit {100 * pts.RANGE_LIMIT:.0f} %), "
                     f"slope excursion {w.percent(w.slope_excursion):.1f} % (limit "
                     f"{100 * pts.SLOPE_LIMIT:.0f} %)")
    if s.flush:
        notes.append("FLUSH CACHE EXT after the last interval, outside every interval")
    return result("wsat", params, rows, summary, notes)


def tables(res, sys_clk_hz=None):
    su = res["summary"]
    ratio = f"{su['first_to_last']:.2f}" if su["first_to_last"] is not None else "-"
    head = (f"{su['range_multiple']:.2f}x the range written in {su['intervals']} intervals: "
            f"first {su['first_iops']:.0f} IOPS, last {su['last_iops']:.0f} IOPS (first / last "
            f"{ratio}), lowest {su['min_iops']:.0f}")
    if su["settled"] is not None:
        head += ", settled" if su["settled"] else ", NOT settled over the last five"
    return [(head, COLUMNS, res["rows"])]


def plot(axes_row, res):
    ax = axes_row[0]
    rows = res["rows"]
    plots.line(ax, [r["range_multiple"] for r in rows], [r["iops"] for r in rows],
               "IOPS per interval, 4 KiB random writes", "write")
    ax.set_xlabel("bytes written / range")
    ax.set_ylabel("IOPS")
    ax.set_xlim(left=0)
    ax.set_ylim(bottom=0)
    plots.legend(ax)


def title_of(res, text):
    p = res["parameters"]
    return f"{text}, QD {p['queue_depth']}, to {p['until']:g}x the range"


def add_arguments(p):
    p.add_argument("--until", type=argtypes.multiple(1000), default=2.0, metavar="MULTIPLE",
                   help="write this multiple of the range, e.g. 2x (default), 4x (the PTS's "
                        "minimum on a real drive)")
    p.add_argument("--commands", type=argtypes.int_in(1, 2**31), default=None,
                   help="4 KiB writes per interval (default: an eighth of the range)")
    p.add_argument("--qd", type=argtypes.int_in(1, 32), default=32, help="queue depth (32)")
    _pts.add_purge_argument(p)
    p.add_argument("--seed", type=argtypes.integer, default=SEED, help="LBA sequence seed")


EXPERIMENT = Experiment(
    name="wsat", order=125,
    help="SSD write saturation (SNIA PTS WSAT): 4 KiB random writes at QD 32, continuously, "
         "until a multiple of the range is written; IOPS against bytes written (needs "
         "--allow-write --range)",
    title="write saturation: IOPS against bytes written",
    document="SNIA PTS", where="Write Saturation test",
    description="4 KiB random writes at queue depth 32 on the queued engine, back to back in "
                "intervals, from the drive as found or right after a purge, until --until times "
                "the range is written; each interval's IOPS from the engine's counters against "
                "the bytes written so far, as a multiple of the range.",
    run=wsat, add_arguments=add_arguments,
    kwargs=("until", "commands", "qd", "purge", "seed"),
    readme=(("wsat --allow-write --range LBA:COUNT [--until 2x] [--purge SERIAL]",
             "SSD write saturation as SNIA's PTS measures it: 4 KiB random writes at QD 32 until "
             "a multiple of the range is written, IOPS against bytes written, table and plot"),),
    tables=tables, plot=plot, title_of=title_of, writes=lambda args: True)
