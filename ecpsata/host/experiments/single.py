# SPDX-License-Identifier: BSD-2-Clause
"""`single`: one READ or WRITE DMA EXT of up to 65,536 sectors, MB/s from the engine's cycle
counter (SATA-IP AN1 §3.2); --loops repeats it and reports the spread (loops.py)."""

from ecpsata.host import argtypes
from ecpsata.host import loops as loops_stats
from ecpsata.host.experiments import Experiment
from ecpsata.host.results import SEED, result
from ecpsata.host.session import flush_figures, write_notes
from ecpsata.host.tables import standard


def single(s, sectors=None, write=False, seed=SEED, loops=1):
    """One command of up to 65,536 sectors (SATA-IP AN1 §3.2): MB/s from the engine's cycles;
    loops > 1 repeats it (write then read) and reports the spread (loops.py)."""
    lba = s.base()
    if sectors is None:
        sectors = min(s.max_command, s.range_count(s.max_command))
    s.check_size("single", sectors)
    loops_stats.check("single", loops)
    s.check_span("single", lba, sectors, write=write)
    ops = (["write"] if write else []) + ["read"]
    per_op = {op: [] for op in ops}
    for i in range(loops):
        for op in ops:
            r = s.engine.run(op, lba, sectors, 1, lba28=s.lba28, seed=seed, flush=s.flush,
                             label=f"single {op}" + (f" {i + 1}/{loops}" if loops > 1 else ""))
            per_op[op].append({"op": op, "lba": lba, "sectors": sectors, "bytes": r["bytes"],
                               "cycles": r["cycles"], "us": s.us(r["cycles"]),
                               # issue to the first dword the core takes (a write: after DMA
                               # Activate)
                               "first_data_us": s.us(r["first_data"]["min"]),
                               "mbps": r["mbps"], **flush_figures(s, r)})
    params = {"lba": lba, "sectors": sectors, "write": write, "seed": seed, "lba28": s.lba28,
              "command_set": s.mode()}
    if loops != 1:
        params["loops"] = loops
    return result("single", params, [loops_stats.merge(per_op[op]) for op in ops],
                  notes=write_notes(s, write) + ([loops_stats.NOTE] if loops != 1 else []))


def add_arguments(p):
    p.add_argument("--sectors", type=argtypes.sectors,
                   help="sectors (default: the largest command)")
    p.add_argument("--seed", type=argtypes.seed, default=SEED, help="pattern seed of written data")
    argtypes.write_flag(p)
    argtypes.loops_flag(p)


EXPERIMENT = Experiment(
    name="single", order=10,
    console=(
        ("single", "[write] lba= sectors=",
         "one command, MB/s from the engine's cycle counter"),
    ),
    help="one command of up to 65,536 sectors: MB/s",
    title="one command, MB/s from the engine's cycle counter",
    document="SATA-IP AN1", where="§3.2",
    description="One READ or WRITE DMA EXT of up to 65,536 sectors, timed from its issue to its "
                "status (a write to the end of its FLUSH CACHE EXT unless the run says no flush).",
    run=single, add_arguments=add_arguments, kwargs=("sectors", "write", "seed", "loops"),
    readme=(("single [--sectors N] [--write]",
             "one command of up to 65,536 sectors: MB/s, first-data latency"),),
    tables=standard([("op", "op", "{}"), ("LBA", "lba", "{}"), ("sectors", "sectors", "{}"),
                     ("bytes", "bytes", "{}"), ("cycles", "cycles", "{}"),
                     ("time us", "us", "{:.2f}"), ("1st data us", "first_data_us", "{:.2f}"),
                     ("MB/s", "mbps", "{:.2f}")]),
    suite=lambda s, sectors, write: dict(sectors=sectors, loops=2, write=write))
