# SPDX-License-Identifier: BSD-2-Clause
"""`cpu`: the same data once through the bridge and the host (every dword copied, 16-sector
commands through the sector buffer, timed by the SoC's uptime counter), once through the engine
(the FPGA Drive dd test: dd through an operating system against the hardware path)."""

from ecpsata.core import common as sc
from ecpsata.engines import common as bc
from ecpsata.host import argtypes, sata
from ecpsata.host.experiments import Experiment
from ecpsata.host.pattern import pattern_bytes
from ecpsata.host.results import SEED, result
from ecpsata.host.session import write_notes
from ecpsata.host.tables import standard
from ecpsata.host.target import TargetError


def cpu(s, count=256, write=False):
    """Data through the bridge and the host (every dword copied, 16-sector commands through the
    sector buffer, timed by the SoC's uptime counter) vs through the engine (FPGA Drive dd test)."""
    per = sata.DMA_SECTORS
    if count < per or count % per:
        raise TargetError(f"cpu: --count must be a multiple of {per} sectors")
    lba = s.base()
    s.check_span("cpu", lba, count, write=write)
    for reg in ("timer0_uptime_latch", "timer0_uptime_cycles"):
        if not s.target.has(reg):
            raise TargetError(f"cpu: no {reg} in {s.target.csr_csv}: the SoC has no uptime counter")
    io = sata.SectorIO(s.target, s.timeout)
    rows = []
    nbytes = count * bc.SECTOR_BYTES
    for op in (["write"] if write else []) + ["read"]:
        data = pattern_bytes(SEED, lba, count) if op == "write" else None
        t0 = s.uptime()
        for done in range(0, count, per):
            if op == "write":
                io.write(lba + done, data[done * bc.SECTOR_BYTES:(done + per) * bc.SECTOR_BYTES])
            else:
                io.read(lba + done, per)
        if op == "write" and s.flush:
            sata.nodata(s.target, sc.ATA_FLUSH_CACHE_EXT, timeout=s.timeout,
                        what="FLUSH CACHE EXT")
        bus_cycles = s.uptime() - t0
        r16 = s.hw_loop(op, lba, per, count // per, label=f"cpu engine {op} x{per}")
        rbig = s.run_span(op, lba, count, label=f"cpu engine {op}")
        bus = s.mbps(nbytes, bus_cycles)
        for path, cyc, m in (("bridge: host copies every dword, 16-sector commands", bus_cycles, bus),
                             ("engine, 16-sector commands", r16["cycles"], r16["mbps"]),
                             ("engine, largest commands", rbig["cycles"], rbig["mbps"])):
            rows.append({"op": op, "path": path, "bytes": nbytes, "cycles": cyc, "mbps": m,
                         "ratio": m / bus if bus else None})
    return result("cpu", {"lba": lba, "count": count, "write": write, "lba28": s.lba28,
                          "command_set": s.mode()}, rows, notes=[
        "the bridge path is timed by timer0's uptime counter, from before the first to after the "
        "last sector-buffer command (and the write's FLUSH CACHE EXT); write data is generated "
        "before the timer starts"] + write_notes(s, write))


def add_arguments(p):
    p.add_argument("--count", type=argtypes.sectors_of(sata.DMA_SECTORS), default=256,
                   help="sectors, a multiple of 16")
    argtypes.write_flag(p)


EXPERIMENT = Experiment(
    name="cpu", order=70,
    console=(
        ("cpu", "[lba=] [count=] [write]",
         "data through the CPU vs through the engine (FPGA Drive dd test)"),
    ),
    help="data through the bridge and host vs through the engine (FPGA Drive dd test)",
    title="data through the bridge and host vs through the engine",
    document="FPGA Drive dd test", where="",
    description="The same transfer once through the CPU path (every dword copied by the host, "
                "as dd does through an operating system) and once through the engine.",
    run=cpu, add_arguments=add_arguments, kwargs=("count", "write"),
    readme=(("cpu [--count N] [--write]",
             "data through the bus (bridge and sector buffer) against the engine"),),
    tables=standard([("op", "op", "{}"), ("path", "path", "{}"), ("MB/s", "mbps", "{:.2f}"),
                     ("ratio", "ratio", "{:.2f}")]),
    suite=lambda s, sectors, write: dict(count=64, write=write))
