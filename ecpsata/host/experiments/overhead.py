# SPDX-License-Identifier: BSD-2-Clause
"""`overhead`: the gap from one command's status to the next command's first data, for the host
loop and the hardware loop (SATA-IP AN1 Table 6-2); latency statistics and histograms of the gaps
from the engine's histogram."""

from ecpsata.host import argtypes, measure, plots, runlatency
from ecpsata.host import latency as latency_stats
from ecpsata.host.experiments import Experiment
from ecpsata.host.experiments._loops import CIRCUITS, compare_loops, loop_params
from ecpsata.host.results import avg as _avg, opt_us as _opt_us, result
from ecpsata.host.tables import standard
from ecpsata.host.target import TargetError


def overhead(s, loops=4, sectors=None, write=False):
    """Status of one command to first data of the next, host and hardware loop (Table 6-2)."""
    if loops < 2:
        raise TargetError("overhead: needs --loops >= 2 (the gap is between commands)")
    lba, sectors = loop_params(s, "overhead", loops, sectors, write)
    gaps = {}
    res = compare_loops(s, "overhead", lba, sectors, loops, write, gaps)
    rows, entries = [], []
    for circuit, _, _ in CIRCUITS:
        for op in ("write", "read"):
            if (circuit, op) not in res:
                continue
            g = res[circuit, op]["gap"]
            avg = _avg(g)
            entries.append(runlatency.entry(gaps[circuit, op], s.f, latency_stats.GAP,
                                            circuit=circuit, op=op))
            rows.append({"circuit": circuit, "op": op, "gaps": g["count"],
                         "min_cycles": g["min"], "avg_cycles": avg, "max_cycles": g["max"],
                         "min_us": s.us(g["min"]), "avg_us": _opt_us(s, avg),
                         "max_us": s.us(g["max"]),
                         **measure.percentile_keys(entries[-1]["latency"])})
    return result("overhead", {"lba": lba, "loops": loops, "sectors": sectors, "write": write,
                               "lba28": s.lba28, "command_set": s.mode()}, rows,
                  {"gap_latency": entries}, runlatency.notes(entries, runlatency.GAP_NOTE))


def plot(axes, res):
    """The gaps of each circuit and direction: one histogram each, their means as lines."""
    series, marks = plots.gap_series(res)
    plots.histograms(axes[0], series, "status to the next command's first data", "gaps", marks)


def add_arguments(p):
    p.add_argument("--loops", type=argtypes.int_in(2, argtypes.U32), default=4,
                   help="commands (default 4)")
    p.add_argument("--sectors", type=argtypes.sectors,
                   help="sectors per command (default: the largest)")
    argtypes.write_flag(p)


EXPERIMENT = Experiment(
    name="overhead", order=40,
    console=(
        ("overhead", "lba= loops= [sectors=] [write]",
         "status to next first data, both loops (Table 6-2)"),
    ),
    help="status to next first data, both loops (Table 6-2)",
    title="status of one command to first data of the next",
    document="SATA-IP AN1", where="Table 6-2",
    description="The gap from one command's status to the next command's first data, for the "
                "host loop and the hardware loop; latency statistics and histograms of the gaps "
                "from the engine's histogram.",
    run=overhead, add_arguments=add_arguments, kwargs=("loops", "sectors", "write"),
    readme=(("overhead [--loops N]", "the gap from a command's status to the next command's "
             "first data, host loop and sequencer (SATA-IP AN1 Table 6-2)"),),
    tables=standard([("circuit", "circuit", "{}"), ("op", "op", "{}"),
                     ("min us", "min_us", "{:.2f}"), ("avg us", "avg_us", "{:.2f}"),
                     ("max us", "max_us", "{:.2f}"), ("gaps", "gaps", "{}")]),
    plot=plot,
    suite=lambda s, sectors, write: dict(loops=4, sectors=sectors, write=write))
