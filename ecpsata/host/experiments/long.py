# SPDX-License-Identifier: BSD-2-Clause
"""`long`: a host loop of commands at consecutive LBAs, loop counts 1..--loops; the run timer
covers the whole loop, so the loop's own overhead is in the figure (SATA-IP AN1 Tables 5-1, 5-2);
the gaps between commands (status to the next first data) from the engine's histogram."""

from ecpsata.engines import common as bc
from ecpsata.host import argtypes, measure, plots, runlatency
from ecpsata.host import latency as latency_stats
from ecpsata.host.experiments import Experiment
from ecpsata.host.experiments._loops import loop_counts, loop_params
from ecpsata.host.results import result
from ecpsata.host.session import flush_figures, write_notes
from ecpsata.host.tables import main_table, spread_tables

COLUMNS = [("loop count", "loop_count", "{}"), ("xfr bytes", "bytes", "{}"),
           ("write MB/s", "write_mbps", "{:.2f}"), ("read MB/s", "read_mbps", "{:.2f}")]


def long(s, loops=512, sectors=None, write=False):
    """Host loop of commands at consecutive LBAs, loop counts 1..loops; the run timer covers the
    whole loop, so command overhead is included (SATA-IP AN1 Tables 5-1, 5-2)."""
    lba, sectors = loop_params(s, "long", loops, sectors, write)
    rows, ops = [], (["write"] if write else []) + ["read"]
    gaps = {op: measure.Tally() for op in ops}
    for n in loop_counts(loops):
        w = s.fw_loop("write", lba, sectors, n, label=f"long write x{n}",
                      gaps=gaps["write"]) if write else None
        r = s.fw_loop("read", lba, sectors, n, label=f"long read x{n}", gaps=gaps["read"])
        rows.append({"loop_count": n, "sectors": n * sectors, "bytes": r["bytes"],
                     "write_cycles": w and w["cycles"], "write_mbps": w and w["mbps"],
                     **flush_figures(s, w, "write_"),
                     "read_cycles": r["cycles"], "read_mbps": r["mbps"]})
    summary = {"average_write_mbps": (sum(x["write_mbps"] for x in rows) / len(rows)) if write else None,
               "average_read_mbps": sum(x["read_mbps"] for x in rows) / len(rows),
               "gap_latency": [runlatency.entry(gaps[op], s.f, latency_stats.GAP, op=op)
                               for op in ops]}
    return result("long", {"lba": lba, "loops": loops, "sectors": sectors, "write": write,
                           "lba28": s.lba28, "command_set": s.mode()}, rows, summary,
                  ["firmware loop = this host CLI issuing each command through litex_server"] +
                  write_notes(s, write) + runlatency.notes(
                      summary["gap_latency"], runlatency.GAP_NOTE, runlatency.LONG_NOTE))


def tables(res, sys_clk_hz=None):
    """The loop counts' rates, then their average."""
    return [main_table(COLUMNS, res["rows"]),
            ("", [("", "label", "{}"), ("write MB/s", "average_write_mbps", "{:.2f}"),
                  ("read MB/s", "average_read_mbps", "{:.2f}")],
             [dict(res["summary"], label="average")])] + spread_tables(res)


def _rates(ax, res):
    rows = res["rows"]
    x = [r["loop_count"] for r in rows]
    plots.line(ax, x, [r["write_mbps"] for r in rows], "write", "write")
    plots.line(ax, x, [r["read_mbps"] for r in rows], "read", "read")
    plots.log2_ticks(ax, x)
    each = plots.size_text(res["parameters"]["sectors"] * bc.SECTOR_BYTES)
    ax.set_xlabel(f"commands in the loop ({each} each)")
    ax.set_ylabel(plots.MBPS)
    ax.set_ylim(bottom=0)
    plots.legend(ax)


def _gaps(ax, res):
    """Beside long's MB/s: the host loop's gaps between commands, all loop counts."""
    series, marks = plots.gap_series(res)
    plots.histograms(ax, series, "status to the next command's first data", "gaps", marks)
    ax.set_title("gaps between commands, host loop (engine histogram)")


def plot(axes, res):
    """MB/s against the loop count; beside it, when the result has them, the gaps' histogram."""
    plots.panels(axes, res, _rates, _gaps)


def add_arguments(p):
    p.add_argument("--loops", type=argtypes.int_in(1, argtypes.U32), default=512,
                   help="commands (default 512)")
    p.add_argument("--sectors", type=argtypes.sectors,
                   help="sectors per command (default: the largest)")
    argtypes.write_flag(p)


EXPERIMENT = Experiment(
    name="long", order=20,
    console=(
        ("long", "lba= loops= [sectors=] [write]",
         "firmware loop of commands, 1..loops (Tables 5-1/5-2)"),
    ),
    help="host loop of commands, loop counts 1..--loops (Tables 5-1/5-2)",
    title="host loop of commands at consecutive LBAs",
    document="SATA-IP AN1", where="Tables 5-1, 5-2",
    description="A loop of such commands issued one by one by the host at consecutive LBAs, the "
                "loop's own overhead included in the time; latency statistics of the gaps "
                "between commands (status to the next first data) from the engine's histogram.",
    run=long, add_arguments=add_arguments, kwargs=("loops", "sectors", "write"),
    readme=(("long [--loops N] [--sectors N] [--write]",
             "1..N commands issued one by one from the host (SATA-IP AN1 Tables 5-1/5-2)"),),
    tables=tables, plot=plot, wide=lambda res: bool(plots.entries(res)),
    suite=lambda s, sectors, write: dict(loops=4, sectors=sectors, write=write))
