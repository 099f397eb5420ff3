# SPDX-License-Identifier: BSD-2-Clause
"""`quick`: a one-screen summary in the layout of CrystalDiskMark's default profile (SEQ 1 MiB Q8,
SEQ 1 MiB Q1, RND 4 KiB Q32, RND 4 KiB Q1; read and write; several loops), measured by the
benchmark engines: MB/s (10^6 bytes/s), IOPS and mean latency of each test, with the mean,
minimum and maximum over the loops.

A test at queue depth 1 runs on the non-queued engine (READ / WRITE DMA EXT, one command at a
time); a deeper one on the queued engine (READ / WRITE FPDMA QUEUED, that many commands kept in
flight). Where queuing is impossible (no queued engine in the gateware, a drive without NCQ,
28-bit commands) the deep tests fall back to the non-queued engine at queue depth 1 and their rows
say so (`fallback`); a drive that queues fewer commands than asked runs at its own depth
(`qd_run`). Writes only with --allow-write and --range (Session.check_span); without them the
read rows run and the result says the write rows were skipped.

Every figure comes from the engines' counters of each loop's run (cycles, bytes, completed
commands, latency sum/count and histogram); the mean / min / max over the loops are arithmetic
on those figures (loops.py). The test area is --range, else the first GiB of the drive: random
LBAs lie in it, sequential runs start at its first LBA (and wrap inside it).
"""

from ecpsata.engines import common as bc
from ecpsata.host import argtypes, measure
from ecpsata.host import latency as latency_stats
from ecpsata.host import loops as loops_stats
from ecpsata.host.experiments import Experiment
from ecpsata.host.experiments.random import FLUSHED_BETWEEN, QUEUED_WRITE_NOTE
from ecpsata.host.queued import PREFIX as QUEUED_PREFIX
from ecpsata.host.results import SEED, result
from ecpsata.host.target import TargetError

AREA_BYTES = 2**30            # the default test area, as CrystalDiskMark's default test size
SEQ_SECTORS = 2048            # 1 MiB
RND_SECTORS = 8               # 4 KiB
# (sequential, sectors key, queue depth) of CrystalDiskMark's default profile, in its order
TESTS = ((True, "seq_sectors", 8), (True, "seq_sectors", 1),
         (False, "rnd_sectors", 32), (False, "rnd_sectors", 1))


def size_text(sectors):
    """CrystalDiskMark's size label: 2048 sectors -> '1M', 8 -> '4K'."""
    nbytes = sectors * bc.SECTOR_BYTES
    for unit, scale in (("M", 2**20), ("K", 2**10)):
        if nbytes % scale == 0:
            return f"{nbytes // scale}{unit}"
    return f"{nbytes}B"


def test_name(seq, sectors, depth):
    return f"{'SEQ' if seq else 'RND'}{size_text(sectors)} Q{depth}T1"


def queued_unavailable(s):
    """Why the deep tests cannot queue here, or None."""
    if not s.target.has(QUEUED_PREFIX + "control"):
        return f"the gateware has no queued engine ({QUEUED_PREFIX}*)"
    if not s.ident["ncq"]:
        return "the drive does not advertise NCQ (IDENTIFY word 76 bit 8)"
    if s.lba28:
        return "28-bit commands (queued commands address 48-bit LBAs)"
    return None


def quick(s, loops=3, n=1000, seq_n=256, seq_sectors=SEQ_SECTORS, rnd_sectors=RND_SECTORS,
          seed=SEED):
    """The four tests of CrystalDiskMark's default profile, read then (when allowed) write, each
    `loops` times: n random commands, seq_n sequential commands per run."""
    loops_stats.check("quick", loops)
    if not 1 <= n < 2**32 or not 1 <= seq_n < 2**32:
        raise TargetError("quick: -n and --seq-n must be at least 1")
    s.check_size("quick", seq_sectors)
    s.check_size("quick", rnd_sectors)
    lba = s.base()
    area = s.range_count(min(s.capacity - lba, AREA_BYTES // bc.SECTOR_BYTES))
    if area < max(seq_sectors, rnd_sectors):
        raise TargetError(f"quick: the test area ({area} sectors) must hold one "
                          f"{seq_sectors}-sector command")
    write = bool(s.allow_write and s.user_range)
    s.check_span("quick", lba, area, write=write)
    why_not = queued_unavailable(s)
    sizes = {"seq_sectors": seq_sectors, "rnd_sectors": rnd_sectors}
    deep = sorted({min(d, s.ident["queue_depth"]) for _, _, d in TESTS if d > 1})
    ops = ["read"] + (["write"] if write else [])
    qe = s.queued(deep, write=write) if why_not is None else None
    rows, notes = [], []
    for op in ops:
        for seq, size_key, depth in TESTS:
            sectors = sizes[size_key]
            rows.append(_test(s, qe, op, seq, sectors, depth, why_not, lba, area, loops,
                              seq_n if seq else n, seed))
    fell_back = [r["test"] for r in rows if r["fallback"] and r["op"] == "read"]
    if fell_back:
        notes.append(f"{', '.join(fell_back)}: run on the non-queued engine at queue depth 1 "
                     f"(fallback: {why_not}), not at the depth in their name")
    shallow = sorted({(r["queue_depth"], r["qd_run"]) for r in rows
                      if not r["fallback"] and r["qd_run"] != r["queue_depth"]})
    for asked, ran in shallow:
        notes.append(f"Q{asked} tests ran at queue depth {ran}: the drive advertises {ran} "
                     f"commands (IDENTIFY word 75)")
    skipped = None if write else ("writes not allowed: give --allow-write and --range LBA:COUNT "
                                  "naming the sectors the write tests may overwrite")
    if skipped:
        notes.append(f"write rows skipped: {skipped}")
    else:
        notes.append("writes at queue depth 1 (WRITE DMA EXT) follow the run's flush setting "
                     "(flush_us); " + QUEUED_WRITE_NOTE)
        if qe is not None and s.flush:
            notes.append(FLUSHED_BETWEEN)
    notes += [measure.latency_stats.NOTE, loops_stats.NOTE]
    params = {"lba": lba, "range": area, "loops": loops, "n": n, "seq_n": seq_n,
              "seq_sectors": seq_sectors, "rnd_sectors": rnd_sectors, "seed": seed,
              "write": write, "lba28": s.lba28, "command_set": s.mode()}
    return result("quick", params, rows, {"write_skipped": skipped, "fallback": fell_back},
                  notes)


def _test(s, qe, op, seq, sectors, depth, why_not, lba, area, loops, commands, seed):
    """One row: a test of the profile, `loops` runs."""
    queued = depth > 1 and qe is not None
    qd = min(depth, s.ident["queue_depth"]) if queued else 1
    rng = area // sectors * sectors
    name = test_name(seq, sectors, depth)
    run = dict(op=op, lba=lba, sectors=sectors, commands=commands, lba_range=rng,
               random=not seq, seed=seed, label=f"quick {name} {op}")
    if queued:
        m = measure.repeat(s, qe, loops, measure.QUEUED, qd=qd,
                           flush_after=op == "write" and s.flush, **run)
        command = f"{op.upper()} FPDMA QUEUED"
    else:
        m = measure.repeat(s, s.engine, loops, measure.DMA, lba28=s.lba28,
                           flush=op == "write" and s.flush, **run)
        command = f"{op.upper()} DMA{'' if s.lba28 else ' EXT'}"
    f = measure.figures(s, m, queued=queued)
    row = {"test": name, "op": op, "lbas": "sequential" if seq else "random", "sectors": sectors,
           "bytes_per_request": sectors * bc.SECTOR_BYTES, "queue_depth": depth, "qd_run": qd,
           "engine": "queued" if queued else "non-queued", "command": command,
           "fallback": why_not if depth > 1 and not queued else None,
           "commands": commands, "loops": loops}
    for key in ("mbps", "iops"):
        row[key] = f[key]
        for k in loops_stats.SPREAD:
            row[f"{key}_{k}"] = f.get(f"{key}_{k}", None if k == "stdev" else f[key])
    row["samples"] = m["lat"]["count"]
    row["lat_us"] = f["lat_us"]
    for key in measure.LAT_KEYS:
        row[key] = f[key]
    row["depth"] = f.get("depth", 1)
    fc = [r.get("flush_cycles") or 0 for r in m["runs"]]
    row["flush_us"] = s.us(sum(fc) / len(fc)) if any(fc) else None
    return row


# report --------------------------------------------------------------------------------------------

COLUMNS = [("test", "test", "{}"), ("op", "op", "{}"), ("MB/s", "mbps", "{:.2f}"),
           ("min", "mbps_min", "{:.2f}"), ("max", "mbps_max", "{:.2f}"), ("IOPS", "iops", "{:.0f}"),
           ("mean us", "lat_us", "{:.2f}"), ("engine", "via", "{}")]
LATENCY_COLUMNS = [("test", "test", "{}"), ("op", "op", "{}")] + measure.LATENCY_COLUMNS


def via(row):
    if row["fallback"]:
        return "non-queued QD1 (fallback)"
    return f"queued QD{row['qd_run']}" if row["engine"] == "queued" else "non-queued QD1"


def latency_rows(rows):
    """Per row: samples, min / mean / max and the percentiles ('<= x', 'n/a (N samples)')."""
    out = []
    for r in rows:
        pct = {}
        for p, key in measure.PCT_KEYS.items():
            need = latency_stats.needs_samples(p)
            pct[f"p{p}"] = (f"<= {r[key]:.2f}" if r[key] is not None
                            else f"n/a ({r['samples']} samples)" if r["samples"] < need else None)
        out.append({"test": r["test"], "op": r["op"], "samples": r["samples"],
                    "min_us": r["lat_min_us"], "mean_us": r["lat_us"], "max_us": r["lat_max_us"],
                    **pct})
    return out


def tables(res, sys_clk_hz=None):
    """(caption, columns, rows) of a quick result, for the terminal and the HTML page."""
    rows = [dict(r, via=via(r)) for r in res["rows"]]
    loops = res["parameters"]["loops"]
    out = [(f"mean over {loops} loop{'s' if loops != 1 else ''}, min and max of the loops' MB/s",
            COLUMNS, rows)]
    out.append(("latency over every loop's commands (engine histogram: percentiles are upper "
                "bounds)", LATENCY_COLUMNS, latency_rows(res["rows"])))
    return out


def add_arguments(p):
    p.add_argument("--loops", type=argtypes.int_in(1, 1000), default=3,
                   help="runs of each test; mean, min and max over them (default 3)")
    p.add_argument("-n", type=argtypes.int_in(1, 2**32 - 1), default=1000,
                   help="commands per random (RND) run (default 1000)")
    p.add_argument("--seq-n", type=argtypes.int_in(1, 2**32 - 1), default=256,
                   help="commands per sequential (SEQ) run (default 256: 256 MiB)")
    p.add_argument("--seq-sectors", type=argtypes.sectors, default=SEQ_SECTORS,
                   help="sectors per sequential command (default 2048: 1 MiB)")
    p.add_argument("--seed", type=argtypes.seed, default=SEED, help="random LBA seed")


def check(parser, args):
    if args.allow_write and not args.range:
        parser.error("quick --allow-write needs --range LBA:COUNT naming the sectors it may "
                     "overwrite")


EXPERIMENT = Experiment(
    name="quick", order=100,
    help="summary in CrystalDiskMark's default layout: SEQ 1 MiB Q8/Q1, RND 4 KiB Q32/Q1, read "
         "(and write with --allow-write --range), MB/s, IOPS, mean latency over --loops",
    title="summary: SEQ 1 MiB Q8/Q1, RND 4 KiB Q32/Q1, read and write",
    document="CrystalDiskMark", where="default profile",
    description="The four tests CrystalDiskMark's default profile prints (sequential 1 MiB "
                "commands at queue depth 8 and 1, random 4 KiB commands at queue depth 32 and 1, "
                "each read and write), several loops each: MB/s, IOPS and mean latency from the "
                "engines' counters, the mean, minimum and maximum over the loops.",
    run=quick, add_arguments=add_arguments, kwargs=("loops", "n", "seq_n", "seq_sectors", "seed"),
    readme=(("quick [--loops N] [--allow-write --range LBA:COUNT]",
             "a one-screen summary in CrystalDiskMark's default layout: SEQ 1 MiB Q8/Q1, RND "
             "4 KiB Q32/Q1, read (and write), MB/s, IOPS and mean latency over the loops"),),
    tables=tables, check=check,
    suite=lambda s, sectors, write: dict(loops=2, n=32, seq_n=8, seq_sectors=sectors))
