# SPDX-License-Identifier: BSD-2-Clause
"""`hwloop`: the same transfer issued by the host loop and by the engine's hardware sequencer
(SATA-IP AN1 Table 6-1)."""

from ecpsata.host import argtypes, plots
from ecpsata.host.experiments import Experiment
from ecpsata.host.experiments._loops import CIRCUITS, compare_loops, loop_params
from ecpsata.host.results import result
from ecpsata.host.session import flush_figures, write_notes
from ecpsata.host.tables import standard


def hwloop(s, loops=4, sectors=None, write=False):
    """The same transfer issued by the host loop and by the engine's sequencer (Table 6-1)."""
    lba, sectors = loop_params(s, "hwloop", loops, sectors, write)
    res = compare_loops(s, "hwloop", lba, sectors, loops, write)
    rows = []
    for circuit, process, _ in CIRCUITS:
        r, w = res[circuit, "read"], res.get((circuit, "write"))
        rows.append({"circuit": circuit, "loop_process": process, "bytes": r["bytes"],
                     "write_cycles": w and w["cycles"], "write_mbps": w and w["mbps"],
                     **flush_figures(s, w, "write_"),
                     "read_cycles": r["cycles"], "read_mbps": r["mbps"]})
    return result("hwloop", {"lba": lba, "loops": loops, "sectors": sectors, "write": write,
                             "lba28": s.lba28, "command_set": s.mode()}, rows,
                  notes=write_notes(s, write))


def plot(axes, res):
    """MB/s of each circuit, write and read bars side by side."""
    ax = axes[0]
    rows = res["rows"]
    x = range(len(rows))
    for i, op in enumerate(("write", "read")):
        vals = [r[f"{op}_mbps"] for r in rows]
        if any(v is not None for v in vals):
            bars = ax.bar([a + 0.4 * i - 0.2 for a in x], [v or 0 for v in vals], width=0.38,
                          label=op, color=plots.SERIES[op][0])
            ax.bar_label(bars, labels=[f"{v:.1f}" if v is not None else "" for v in vals],
                         fontsize=8, padding=2)
    ax.set_xticks(list(x), [f"{r['circuit']}\n({r['loop_process']})" for r in rows])
    ax.set_ylabel(plots.MBPS)
    ax.grid(False, axis="x")
    plots.legend(ax)


def add_arguments(p):
    p.add_argument("--loops", type=argtypes.int_in(1, argtypes.U32), default=4,
                   help="commands (default 4)")
    p.add_argument("--sectors", type=argtypes.sectors,
                   help="sectors per command (default: the largest)")
    argtypes.write_flag(p)


EXPERIMENT = Experiment(
    name="hwloop", order=30,
    console=(
        ("hwloop", "lba= loops= [sectors=] [write]",
         "hardware sequencer vs firmware loop (Table 6-1)"),
    ),
    help="hardware sequencer vs host loop (Table 6-1)",
    title="hardware sequencer vs host loop",
    document="SATA-IP AN1", where="Table 6-1",
    description="The same transfer issued back to back by the engine's hardware sequencer, "
                "beside the host loop.",
    run=hwloop, add_arguments=add_arguments, kwargs=("loops", "sectors", "write"),
    readme=(("hwloop [--loops N]",
             "the engine's sequencer against a host loop: MB/s (SATA-IP AN1 Table 6-1)"),),
    tables=standard([("circuit", "circuit", "{}"), ("loop process", "loop_process", "{}"),
                     ("xfer bytes", "bytes", "{}"), ("write MB/s", "write_mbps", "{:.2f}"),
                     ("read MB/s", "read_mbps", "{:.2f}")]),
    plot=plot,
    suite=lambda s, sectors, write: dict(loops=4, sectors=sectors, write=write))
