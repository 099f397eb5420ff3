# SPDX-License-Identifier: BSD-2-Clause
"""`lba28`: READ DMA / WRITE DMA (28-bit LBA), 256 sectors per command (SATA-IP AN1 Table 7-1);
by default over the whole capacity below 2^28, as the firmware."""

from ecpsata.engines import common as bc
from ecpsata.host import argtypes
from ecpsata.host.experiments import Experiment
from ecpsata.host.results import result
from ecpsata.host.session import flush_figures, write_notes
from ecpsata.host.tables import standard


def lba28(s, count=None, write=False):
    """28-bit READ/WRITE DMA, 256 sectors per command (Table 7-1); by default over the whole
    capacity below 2^28, as the firmware."""
    lba = s.base()
    cap = min(s.capacity, bc.LBA28_LIMIT)
    if count is None:
        count = s.range_count(max(cap - lba, 0))
    s.check_span("lba28", lba, count, write=write, lba28=True)
    rows = []
    for op in (["write"] if write else []) + ["read"]:
        r = s.run_span(op, lba, count, lba28=True, label=f"lba28 {op}")
        rows.append({"op": op, "sectors": r["bytes"] // bc.SECTOR_BYTES, "commands": r["completed"],
                     "cycles": r["cycles"], "mbps": r["mbps"], **flush_figures(s, r)})
    return result("lba28", {"lba": lba, "count": count, "write": write, "lba28": True,
                            "command_set": s.mode(True)}, rows, notes=write_notes(s, write))


def add_arguments(p):
    p.add_argument("--count", type=argtypes.int_in(1),
                   help="sectors (default: the capacity below 2^28)")
    argtypes.write_flag(p)


EXPERIMENT = Experiment(
    name="lba28", order=50,
    console=(
        ("lba28", "[lba=] [count=] [write]",
         "28-bit READ/WRITE DMA over the capacity (Table 7-1)"),
    ),
    help="28-bit READ/WRITE DMA over the capacity (Table 7-1)",
    title="28-bit READ/WRITE DMA, 256 sectors per command",
    document="SATA-IP AN1", where="Table 7-1",
    description="READ DMA / WRITE DMA (28-bit LBA), 256 sectors per command.",
    run=lba28, add_arguments=add_arguments, kwargs=("count", "write"),
    readme=(("lba28 [--count N] [--write]", "28-bit READ/WRITE DMA in 256-sector commands "
             "(automatic for a drive without 48-bit LBA)"),),
    tables=standard([("op", "op", "{}"), ("sectors", "sectors", "{}"),
                     ("commands", "commands", "{}"), ("cycles", "cycles", "{}"),
                     ("MB/s", "mbps", "{:.2f}")]),
    suite=lambda s, sectors, write: dict(count=4 * bc.MAX_SECTORS28, write=write))
