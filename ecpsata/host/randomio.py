# SPDX-License-Identifier: BSD-2-Clause
"""The `random` experiment (Quantum SSD paper, Fig. 5 and 6): IOPS and MB/s against request size,
random against sequential LBAs, one command at a time on the non-queued engine; with queue depths,
READ and WRITE FPDMA QUEUED on the queued engine at each depth, random and (qd_seq) sequential,
with latency statistics from the queued engine's histogram (measure.py); with mix, also a
read/write mix at each depth (fio's rwmixread: the percentage of reads), each command drawn from
the seed by the engine, the achieved split from its counters.

Queued writes and mixes destroy data: Session.check_span refuses them without --allow-write
and --range before anything is sent, as every other write. The queued engine ends no run with
FLUSH CACHE EXT, so its write figures are the drive's acknowledgements: with the write cache on
they measure the cache for what it holds. Unless --no-flush, each queued write or mix run is
followed by an untimed FLUSH CACHE EXT (through the sector buffer), so that the next run does
not start behind a full cache; its time is not in any figure.
"""

from ecpsata.engines import common as bc
from ecpsata.host import loops as loops_stats
from ecpsata.host import measure
from ecpsata.host.engine import iops
from ecpsata.host.results import SEED, result
from ecpsata.host.target import TargetError

QUEUED_WRITE_NOTE = ("queued writes (WRITE FPDMA QUEUED) are timed to the drive's last Set Device "
                     "Bits, without FLUSH CACHE EXT (the queued engine has none): with the drive's "
                     "write cache on they measure the cache for what it holds (--write-cache off "
                     "measures the medium)")
FLUSHED_BETWEEN = ("after each queued write run an untimed FLUSH CACHE EXT emptied the drive's "
                   "write cache before the next run; its time is in no figure")


def queued_prefix(depth, op, seq):
    """Row-key prefix of a queued run: qd8_, qd8_seq_, qd8_write_, qd8_write_seq_, qd8_mix_,
    qd8_mix_seq_."""
    return f"qd{depth}_" + ("" if op == "read" else f"{op}_") + ("seq_" if seq else "")


def mix_figures(m, prefix):
    """The split a mix achieved, summed over its loops from the engine's counters: reads,
    writes and the percentage of reads."""
    reads = sum(r["reads"] for r in m["runs"])
    writes = sum(r["writes"] for r in m["runs"])
    return {prefix + "reads": reads, prefix + "writes": writes,
            prefix + "read_percent": 100 * reads / (reads + writes) if reads + writes else None}


def random(s, n=200, max_sectors=256, seed=SEED, qd=None, qd_seq=False, min_sectors=1,
           queued_only=False, write=False, write_only=False, loops=1, mix=None):
    """IOPS and MB/s vs request size, random vs sequential LBAs, queue depth 1 (Quantum SSD
    paper); with qd (a list of queue depths) also queued random reads at each depth (READ FPDMA
    QUEUED), with qd_seq queued sequential ones too, with write (or write_only: instead of the
    queued reads) the same as WRITE FPDMA QUEUED, with mix (percent reads, 0..100) also a
    read/write mix. loops repeats every run (loops.py)."""
    lba = s.base()
    span = s.range_count(s.capacity - lba)
    if not 1 <= n < 2**32 or max_sectors > span:
        raise TargetError("random: -n >= 1 and --max <= the range")
    if not 1 <= min_sectors <= max_sectors:
        raise TargetError(f"random: --min ({min_sectors}) must be 1..--max ({max_sectors})")
    loops_stats.check("random", loops)
    s.check_size("random", max_sectors)
    if (qd_seq or queued_only) and not qd:
        raise TargetError("random: --qd-seq and --queued-only need queue depths (--qd)")
    if (write or write_only) and not qd:
        raise TargetError("random: --write and --write-only run queued writes: they need queue "
                          "depths (--qd)")
    if mix is not None and not qd:
        raise TargetError("random: --mix runs queued reads and writes: it needs queue depths "
                          "(--qd)")
    if mix is not None and not 0 <= mix <= 100:
        raise TargetError(f"random: --mix {mix}: the percentage of reads must be 0..100")
    ops = ([] if write_only else ["read"]) + (["write"] if write or write_only else [])
    runs = ops + (["mix"] if mix is not None else [])
    writes = "write" in ops or mix is not None
    s.check_span("random", lba, span, write=writes)
    qe = s.queued(qd) if qd else None
    if mix is not None:
        qe.check_mix()                  # before the drive is set up for queued writes
    if writes:
        qe = s.queued(qd, write=True)
    rows, lat_entries, size = [], [], min_sectors
    while size <= max_sectors:
        rng = span // size * size
        per_loop = []
        for i in range(loops):
            row = {"sectors": size, "bytes_per_request": size * bc.SECTOR_BYTES}
            for key, rnd in () if queued_only else (("random", True), ("seq", False)):
                r = s.engine.run("read", lba, size, n, lba_range=rng, random=rnd,
                                 lba28=s.lba28, seed=seed, label=f"random {key} {size} sectors"
                                 + (f" loop {i + 1}/{loops}" if loops > 1 else ""))
                row[f"{key}_iops"] = iops(r["completed"], r["cycles"], s.f)
                row[f"{key}_mbps"] = r["mbps"]
                row[f"{key}_cycles"] = r["cycles"]
            per_loop.append(row)
        row = loops_stats.merge(per_loop)
        for depth in qd or ():
            for op in runs:
                asked = {"read_percent": mix} if op == "mix" else {}
                for seq in (False, True) if qd_seq else (False,):
                    prefix = queued_prefix(depth, op, seq)
                    m = measure.repeat(s, qe, loops, measure.QUEUED, op=op, lba=lba,
                                       sectors=size, commands=n, qd=depth, lba_range=rng,
                                       random=not seq, seed=seed,
                                       flush_after=op != "read" and s.flush,
                                       label=f"random qd{depth} {op} "
                                             f"{'seq' if seq else 'random'} {size} sectors",
                                       **asked)
                    row.update(measure.figures(s, m, prefix))
                    entry = measure.latency_entry(m, op=op, lbas="sequential" if seq else "random",
                                                  sectors=size, queue_depth=depth)
                    if op == "mix":
                        row.update(mix_figures(m, prefix))
                        entry["mix_read_percent"] = mix
                    lat_entries.append(entry)
        rows.append(row)
        size *= 2
    params = {"lba": lba, "range": span, "n": n, "max_sectors": max_sectors, "seed": seed,
              "queue_depth": 1, "lba28": s.lba28, "command_set": s.mode()}
    if min_sectors != 1:
        params["min_sectors"] = min_sectors
    if queued_only:
        params["queued_only"] = True
    if loops != 1:
        params["loops"] = loops
    notes, summary = [], {}
    if qd:
        params.update(queue_depths=list(qd), queued_sequential=qd_seq, queued_ops=ops)
        notes = ["random_* / seq_*: READ DMA EXT, one command at a time (queue depth 1); "
                 "qd<N>_*: READ FPDMA QUEUED (qd<N>_write_*: WRITE FPDMA QUEUED) with N commands "
                 "kept in flight (the queued engine), depth = the most in flight at once; "
                 "latency from issue to the Set Device Bits that completed each command"]
        if mix is not None:
            params.update(mix_read_percent=mix, mix_writes_per_256=bc.mix_value(mix))
            notes.append(f"qd<N>_mix_*: a read/write mix, {mix} % reads asked (fio's rwmixread): "
                         f"the engine makes each command a write with probability "
                         f"{bc.mix_value(mix)}/256, drawn from the seed; reads / writes / "
                         f"read_percent are what its counters achieved")
        summary = {"queued_latency": lat_entries}
        if any(e["latency"] for e in lat_entries):
            notes.append(measure.latency_stats.NOTE)
        if writes:
            notes.append(QUEUED_WRITE_NOTE)
            if s.flush:
                notes.append(FLUSHED_BETWEEN)
    if loops != 1:
        notes.append(loops_stats.NOTE)
    return result("random", params, rows, summary, notes)


def queued_figures(s, key, r):
    """IOPS, MB/s, average latency (issue to completion) and depth reached of one queued run."""
    return measure.figures(s, {"runs": [r], "latency": None, "lat": r["lat"]}, key)
