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
from ecpsata.host import argtypes, measure, plots
from ecpsata.host import loops as loops_stats
from ecpsata.host.engine import iops
from ecpsata.host.experiments import Experiment
from ecpsata.host.results import SEED, result
from ecpsata.host.tables import main_table, spread_columns, spread_tables
from ecpsata.host.target import TargetError

COLUMNS = [("sectors", "sectors", "{}"), ("random IOPS", "random_iops", "{:.0f}"),
           ("MB/s", "random_mbps", "{:.2f}"), ("seq IOPS", "seq_iops", "{:.0f}"),
           ("MB/s", "seq_mbps", "{:.2f}")]
QD_PLOT_SECTORS = 8     # IOPS against queue depth at 4 KiB requests (Quantum SSD paper Fig. 6)
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

# tables --------------------------------------------------------------------------------------------

def queued_columns(p):
    cols = [("sectors", "sectors", "{}"), ("QD", "qd", "{}"), ("IOPS", "iops", "{:.0f}"),
            ("MB/s", "mbps", "{:.2f}"), ("avg lat us", "lat_us", "{:.2f}"),
            ("depth", "depth", "{}")]
    if p.get("queued_sequential"):
        cols += [("seq IOPS", "seq_iops", "{:.0f}"), ("seq MB/s", "seq_mbps", "{:.2f}")]
    return cols


MIX_COLUMNS = [("reads", "reads", "{}"), ("writes", "writes", "{}"),
               ("% reads", "read_percent", "{:.1f}")]


def queued_rows(res, op="read"):
    """The qd<N>_* keys (op write: qd<N>_write_*, mix: qd<N>_mix_*) of a random result as one
    row per (request size, queue depth)."""
    out = []
    infix = "" if op == "read" else f"{op}_"
    keys = ("iops", "iops_stdev", "iops_min", "iops_max", "mbps", "lat_us", "depth", "seq_iops",
            "seq_mbps") + (("reads", "writes", "read_percent") if op == "mix" else ())
    for r in res["rows"]:
        for n in res["parameters"]["queue_depths"]:
            out.append({"sectors": r["sectors"], "qd": n} |
                       {k: r.get(f"qd{n}_{infix}{k}") for k in keys})
    return out


QUEUED_LATENCY_COLUMNS = [("op", "op", "{}"), ("LBAs", "lbas", "{}"), ("sectors", "sectors", "{}"),
                          ("QD", "queue_depth", "{}")] + measure.LATENCY_COLUMNS

def tables(res, sys_clk_hz=None):
    """Queue depth 1's rates (unless --queued-only), then per queued direction its rates per
    request size and depth, the mix's, the queued latency, and the spread over --loops."""
    p, summary = res["parameters"], res["summary"]
    out = [] if p.get("queued_only") else [main_table(COLUMNS, res["rows"])]
    if p.get("queue_depths"):
        for op in p.get("queued_ops", ["read"]):
            qrows = queued_rows(res, op)
            out.append((f"queued random {op}s ({op.upper()} FPDMA QUEUED), per request size and "
                        f"queue depth", spread_columns(queued_columns(p), qrows), qrows))
        if p.get("mix_read_percent") is not None:
            qrows = queued_rows(res, "mix")
            out.append((f"queued random mix, {p['mix_read_percent']} % reads asked (READ and "
                        f"WRITE FPDMA QUEUED; reads and writes counted by the engine)",
                        spread_columns(queued_columns(p), qrows) + MIX_COLUMNS, qrows))
        if summary.get("queued_latency"):
            out.append(("queued latency, issue to completion (engine histogram: percentiles are "
                        "upper bounds)", QUEUED_LATENCY_COLUMNS,
                        measure.latency_table_rows(summary["queued_latency"])))
    return out + spread_tables(res)


def title_of(res, text):
    if res["parameters"].get("queue_depths"):
        return text.replace("queue depth 1", "queue depth 1 and queued (NCQ)")
    return text


# plots ---------------------------------------------------------------------------------------------

def _sizes(ax, res):
    rows = res["rows"]
    x = [r["sectors"] * bc.SECTOR_BYTES for r in rows]
    plots.line(ax, x, [r["random_iops"] for r in rows], "IOPS, random LBAs (left)", "random")
    plots.line(ax, x, [r["seq_iops"] for r in rows], "IOPS, sequential LBAs (left)", "sequential",
          mfc="none")
    plots.log2_ticks(ax, x, plots.size_text)
    ax.set_xlabel("request size")
    ax.set_ylabel("IOPS (commands/s)")
    ax.set_ylim(bottom=0)
    plots.rate_axis(ax, x, [([r["random_mbps"] for r in rows], "MB/s, random (right)",
                        dict(color="tab:green", marker="o", ls=":")),
                       ([r["seq_mbps"] for r in rows], "MB/s, sequential (right)",
                        dict(color="tab:olive", marker="x", ls="-."))])


def qd_plot_row(rows):
    """The row at 4 KiB requests, or the size nearest to it."""
    return min(rows, key=lambda r: (abs(r["sectors"] - QD_PLOT_SECTORS), r["sectors"]))


def _queued(axes, res):
    """Left: IOPS vs request size, one line per queue depth and the non-queued random line.
    Right: IOPS vs queue depth at 4 KiB, the non-queued (QD 1) figure as a reference line."""
    import matplotlib.pyplot as plt
    rows, depths = res["rows"], res["parameters"]["queue_depths"]
    # --write-only: the queued figures are the writes' (qd<N>_write_*)
    q = "" if f"qd{depths[0]}_iops" in rows[0] else "write_"
    left, right = axes
    x = [r["sectors"] * bc.SECTOR_BYTES for r in rows]
    colors = plt.get_cmap("viridis")
    for i, n in enumerate(depths):
        ys = [r.get(f"qd{n}_{q}iops") for r in rows]
        left.plot(x, ys, marker="o", color=colors(i / max(len(depths) - 1, 1)),
                  label=f"QD {n} (NCQ)")
    if "random_iops" in rows[0]:
        left.plot(x, [r["random_iops"] for r in rows], color="tab:gray", marker="x", ls="--",
                  label="non-queued (READ DMA EXT)")
    plots.log2_ticks(left, x, plots.size_text)
    left.set_xlabel("request size")
    left.set_ylabel(f"IOPS (commands/s), random {'writes' if q else 'reads'}")
    left.set_ylim(bottom=0)
    plots.legend(left)
    at = qd_plot_row(rows)
    plots.line(right, depths, [at.get(f"qd{n}_{q}iops") for n in depths], "queued random",
               "random")
    if res["parameters"].get("queued_sequential"):
        plots.line(right, depths, [at.get(f"qd{n}_{q}seq_iops") for n in depths],
                   "queued sequential", "sequential")
    if "random_iops" in at:
        right.axhline(at["random_iops"], color="tab:gray", ls="--", label="non-queued, QD 1")
    plots.log2_ticks(right, depths)
    right.set_xlabel("queue depth (commands in flight)")
    right.set_ylabel("IOPS (commands/s)")
    right.set_ylim(bottom=0)
    right.set_title(f"IOPS vs queue depth, {plots.size_text(at['bytes_per_request'])} random reads")
    plots.legend(right)


def wide(res):
    return bool(res["parameters"].get("queue_depths"))


def plot(axes, res):
    """IOPS and MB/s against request size; with queue depths, IOPS against size per depth and
    against depth at 4 KiB, in two panels."""
    if wide(res):
        _queued(axes, res)
    else:
        _sizes(axes[0], res)


def add_arguments(p):
    p.add_argument("-n", type=argtypes.int_in(1, argtypes.U32), default=200,
                   help="requests per size")
    p.add_argument("--min", dest="min_sectors", type=argtypes.sectors, default=1,
                   help="smallest request, sectors (default 1); sizes double up to --max")
    p.add_argument("--max", dest="max_sectors", type=argtypes.sectors, default=256,
                   help="largest request, sectors")
    p.add_argument("--seed", type=argtypes.seed, default=SEED, help="random LBA seed")
    p.add_argument("--qd", type=argtypes.queue_depths, metavar="LIST",
                   help=f"also queued random reads (NCQ, READ FPDMA QUEUED) at these queue depths, "
                        f"a comma list of 1..{bc.QD_MAX}, e.g. 1,2,4,8,16,32")
    p.add_argument("--qd-seq", action="store_true",
                   help="with --qd: also queued sequential reads at each depth")
    p.add_argument("--queued-only", action="store_true",
                   help="with --qd: only the queued runs (no READ DMA EXT columns)")
    argtypes.write_flag(p, "with --qd: also queued writes (WRITE FPDMA QUEUED; needs "
                           "--allow-write --range)")
    p.add_argument("--write-only", action="store_true", help="with --qd: queued writes instead "
                   "of queued reads (needs --allow-write --range)")
    p.add_argument("--mix", type=argtypes.int_in(0, 100), metavar="READ_PERCENT", help="with --qd: "
                   "also a queued read/write mix, READ_PERCENT %% reads as fio's rwmixread "
                   "(writes: needs --allow-write --range)")
    argtypes.loops_flag(p)


def check(parser, args):
    if (args.qd_seq or args.queued_only) and not args.qd:
        parser.error("random: --qd-seq and --queued-only need --qd LIST (the queue depths)")
    if (args.write or args.write_only) and not args.qd:
        parser.error("random: --write and --write-only run queued writes: they need --qd LIST")
    if args.mix is not None and not args.qd:
        parser.error("random: --mix runs queued reads and writes: it needs --qd LIST")


EXPERIMENT = Experiment(
    name="random", order=90,
    console=(
        ("random", "[n=] [range=] [max=]",
         "IOPS and MB/s vs request size, random vs sequential"),
        ("qrandom", "[n=] [sectors=] [qd=1,2,...] [lba=] [range=] [seq] [write | mix=READ%]",
         "queued (NCQ) reads, writes or a mix (mix=70: 70 % reads, 30 % writes, as fio's "
         "rwmixread; writes ask first): IOPS vs queue depth (Quantum SSD paper Fig. 6)"),
    ),
    help="IOPS and MB/s vs request size, random vs sequential (Quantum SSD paper)",
    title="request throughput vs request size, queue depth 1",
    document="Quantum SSD paper", where="Fig. 5, 6",
    description="IOPS and MB/s against request size, random against sequential LBAs; with queue "
                "depths, IOPS against queue depth (NCQ).",
    run=random, add_arguments=add_arguments,
    kwargs=("n", "min_sectors", "max_sectors", "seed", "qd", "qd_seq", "queued_only", "write",
            "write_only", "loops", "mix"),
    readme=(("random [-n N] [--max N]", "IOPS and MB/s against request size, random and "
             "sequential LBAs"),
            ("random --qd LIST [--min N] [--qd-seq] [--queued-only] [--mix READ_PERCENT]",
             "also queued reads (READ FPDMA QUEUED) at each queue depth of LIST (1..32): IOPS, "
             "MB/s, average latency and the depth reached per request size; `--plot` draws IOPS "
             "against size per depth and against depth at 4 KiB, with the non-queued figures "
             "beside them. `--mix 70` adds a read/write mix at each depth (70 % reads as fio's "
             "`rwmixread`, each command drawn from the seed; needs `--allow-write --range`) with "
             "the reads and writes it achieved. Refused before anything is sent for a drive that "
             "does not advertise NCQ, a depth above its advertised one, or a gateware without "
             "the queued engine")),
    tables=tables, plot=plot, wide=wide, title_of=title_of, check=check,
    writes=lambda args: args.write or args.write_only or args.mix is not None,
    suite=lambda s, sectors, write: dict(n=20, max_sectors=min(64, sectors)))
