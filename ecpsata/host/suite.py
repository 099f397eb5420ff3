# SPDX-License-Identifier: BSD-2-Clause
"""The experiments of doc/benchmarks.md from the host, with the firmware's names
(ecpsata/firmware/cmd_bench.c): single, long, hwloop, overhead, lba28, latency, cpu, access, random
(randomio.py), quick (quick.py), verify, and a scaled-down `suite` of all of them.

Each experiment checks every LBA span it will touch (inside the drive, inside the user's --range,
writes only when allowed) before it sends anything, then runs on the benchmark engine and returns
a plain dict: {"experiment", "parameters", "rows", "summary", "notes"}. report.py prints it and
writes JSON/CSV/PNG. Every figure is computed from the engine's cycle counters (the `cpu`
experiment's bridge path from the SoC's uptime counter) at the SoC's sys clock.

Writes end with FLUSH CACHE EXT by default (Session.flush): a drive with its volatile write cache
on acknowledges writes once they are in its RAM, so without the flush a write figure measures the
cache, not the medium (fio's end_fsync, KDiskMark and hdparm's direct I/O exist for the same
reason). The flush is timed inside the write's interval by the engine, and reported apart
(`flush_us`, and `mbps_before_flush`: the rate up to the drive's last acknowledgement).
"""

from ecpsata.core import common as sc
from ecpsata.engines import common as bc
from ecpsata.host import latency as latency_stats
from ecpsata.host import loops as loops_stats
from ecpsata.host import measure, runlatency, sata
from ecpsata.host.engine import EngineDriver, mbps, us
from ecpsata.host.measure import add_runs
from ecpsata.host.queued import QueuedEngineDriver
from ecpsata.host.pattern import pattern_bytes
from ecpsata.host.quick import quick
from ecpsata.host.randomio import queued_figures, random  # noqa: F401 (suite.random, the CLI)
from ecpsata.host.results import SEED, avg as _avg, opt_us as _opt_us, result
from ecpsata.host.target import TargetError

SIM_TIME_SCALE = 1000.0       # wall seconds per simulated second, for deadlines only
EXPERIMENTS = ("single", "long", "hwloop", "overhead", "lba28", "latency", "cpu", "access",
               "random", "quick", "verify")
SWEEPS = ("long", "hwloop", "overhead", "latency", "random")
WRITE_EXPERIMENTS = ("verify",)   # the others write only when asked to


class Session:
    """A connected target ready to benchmark: engine present, link up, IDENTIFY read, the write
    permission and the user's LBA range. Nothing is written to the engine until a run."""
    def __init__(self, target, timeout=5.0, time_scale=None, allow_write=False, lba_range=None,
                 force_lba28=False, on_progress=None, flush=True, write_cache=None,
                 auto_activate=True):
        self.target = target
        self.timeout = timeout
        self.identity = target.identity()
        if time_scale is None:
            time_scale = SIM_TIME_SCALE if "simulated" in self.identity["features"] else 1.0
        # The engine first: a gateware without one is refused before the link is touched.
        self.engine = EngineDriver(target, capacity=0, time_scale=time_scale, margin_s=timeout,
                                  on_progress=on_progress)
        self.link = sata.wait_link(target, timeout)
        self.ident = sata.identify(target, timeout)
        self.notes = []
        self.auto_activate = auto_activate
        self.flush = flush
        self.write_cache = write_cache
        self._restore_cache = None
        if write_cache is not None:
            self._set_write_cache(write_cache == "on")
        self.capacity = self.engine.capacity = self.ident["sectors"]
        if lba_range is not None:
            r0, rn = lba_range
            if rn <= 0 or r0 < 0 or r0 + rn > self.capacity:
                raise TargetError(f"--range {r0}:{rn} (LBAs {r0}..{r0 + rn - 1}) is outside the "
                                  f"drive (0..{self.capacity - 1}): nothing sent")
        self.allow_write = allow_write
        self.user_range = lba_range
        self.force_lba28 = force_lba28
        self.lba28 = force_lba28 or not self.ident["lba48"]
        self.f = self.engine.f
        self.qengine = None           # the queued engine, once an experiment asks for it
        self._engine_args = dict(time_scale=time_scale, margin_s=timeout, on_progress=on_progress)

    def queued(self, depths, write=False):
        """The queued engine, for runs at these queue depths; refused, before anything is sent,
        when the gateware has no queued engine or the drive cannot queue that deep. Queued writes
        first enable DMA Setup auto-activate where the drive has it (one FIS less per write),
        unless the session was told not to."""
        if self.qengine is None:
            self.qengine = QueuedEngineDriver(self.target, capacity=self.capacity, **self._engine_args)
        if not self.ident["ncq"]:
            raise TargetError("the drive does not advertise NCQ (IDENTIFY word 76 bit 8): queue "
                              "depths need READ/WRITE FPDMA QUEUED; run without --qd")
        deepest = max(depths)
        if deepest > self.ident["queue_depth"]:
            raise TargetError(f"queue depth {deepest} is above the {self.ident['queue_depth']} "
                              f"commands the drive advertises (IDENTIFY word 75): nothing sent")
        if self.lba28:
            raise TargetError(f"queued commands address 48-bit LBAs; {self.mode()}: run without "
                              f"--qd")
        if write and self.auto_activate:
            self.ident = sata.enable_auto_activate(self.target, self.ident, self.timeout,
                                                   self.notes)
        return self.qengine

    def _set_write_cache(self, on):
        if not self.ident["write_cache"]:
            raise TargetError("--write-cache: the drive has no volatile write cache to switch "
                              "(IDENTIFY word 82 bit 5): nothing sent")
        before = self.ident["write_cache_enabled"]
        sata.set_write_cache(self.target, on, self.timeout)
        if self._restore_cache is None:
            self._restore_cache = before
        self.ident = sata.identify(self.target, self.timeout)
        self.notes.append(f"write cache {'on' if on else 'off'} for the run (SET FEATURES "
                          f"{'02h' if on else '82h'}), {'on' if before else 'off'} before")

    def close(self):
        """Put the drive's write cache back as it was (after --write-cache)."""
        if self._restore_cache is not None:
            restore, self._restore_cache = self._restore_cache, None
            sata.set_write_cache(self.target, restore, self.timeout)

    def settings(self):
        """What the write figures depend on, for every result's parameters."""
        return {"flush": self.flush,
                "write_cache": "on" if self.ident["write_cache_enabled"] else
                               ("off" if self.ident["write_cache"] else "none")}

    def abort(self):
        """Stop whatever an engine runs (Ctrl-C)."""
        for e in (self.engine, self.qengine):
            if e is not None:
                e.abort()

    # limits and safety ------------------------------------------------------------------------
    @property
    def max_command(self):
        return bc.MAX_SECTORS28 if self.lba28 else bc.MAX_SECTORS

    def mode(self, lba28=None):
        lba28 = self.lba28 if lba28 is None else lba28
        if not lba28:
            return "READ DMA EXT / WRITE DMA EXT (48-bit)"
        why = ("chosen automatically: the drive has no 48-bit LBA" if not self.ident["lba48"]
               else "forced")
        return f"READ DMA / WRITE DMA (28-bit), {why}"

    def base(self):
        """First LBA of an experiment: the start of --range, else 0."""
        return self.user_range[0] if self.user_range else 0

    def range_count(self, default):
        return self.user_range[1] if self.user_range else default

    def check_size(self, what, sectors, lba28=None):
        limit = bc.MAX_SECTORS28 if (self.lba28 if lba28 is None else lba28) else bc.MAX_SECTORS
        if not 1 <= sectors <= limit:
            raise TargetError(f"{what}: sectors per command must be 1..{limit}"
                              f"{' (28-bit commands)' if limit == bc.MAX_SECTORS28 else ''}")

    def check_span(self, what, lba, count, write=False, lba28=None):
        """Refuse, before anything is sent, a span outside the drive, the 28-bit space, or the
        user's --range; writes need --allow-write and --range."""
        if count <= 0 or lba < 0:
            raise TargetError(f"{what}: empty or negative LBA range")
        end = lba + count
        if end > self.capacity:
            raise TargetError(f"{what}: LBA range {lba}..{end - 1} is outside the drive "
                              f"(0..{self.capacity - 1}): nothing sent")
        if (self.lba28 if lba28 is None else lba28) and end > bc.LBA28_LIMIT:
            raise TargetError(f"{what}: 28-bit commands reach LBAs below 2^28 only: nothing sent")
        if write and not (self.allow_write and self.user_range):
            raise TargetError(f"{what}: writing destroys data: give --allow-write and "
                              f"--range LBA:COUNT naming the sectors it may overwrite")
        if self.user_range:
            r0, rn = self.user_range
            if lba < r0 or end > r0 + rn:
                raise TargetError(f"{what}: needs LBAs {lba}..{end - 1}, outside --range "
                                  f"{r0}:{rn}: nothing sent")

    # runs --------------------------------------------------------------------------------------
    def run_span(self, op, lba, count, lba28=None, verify=False, seed=SEED, label=None):
        """Sequential hardware runs over [lba, lba + count): commands of the largest size, then
        one for the rest (as the firmware's run_span). Counters summed; a write's last run
        flushes (Session.flush)."""
        lba28 = self.lba28 if lba28 is None else lba28
        per = min(count, bc.MAX_SECTORS28 if lba28 else bc.MAX_SECTORS)
        full, rest = divmod(count, per)
        total = None
        parts = [(start, sectors, commands) for start, sectors, commands in
                 ((lba, per, full), (lba + full * per, rest, 1)) if sectors and commands]
        for i, (start, sectors, commands) in enumerate(parts):
            r = self.engine.run(op, start, sectors, commands, lba28=lba28, verify=verify,
                                seed=seed, label=label,
                                flush=self.flush and i == len(parts) - 1)
            total = r if total is None else add_runs(total, r)
        total["mbps"] = mbps(total["bytes"], total["cycles"], self.f)
        return total

    def hw_loop(self, op, lba, sectors, commands, label=None, gaps=None):
        return self._gaps(gaps, self.engine.run(op, lba, sectors, commands, lba28=self.lba28,
                                                seed=SEED, hist_source="gap", label=label,
                                                flush=self.flush))

    def fw_loop(self, op, lba, sectors, commands, label=None, gaps=None):
        """The host issues each command and rewrites lba_base in between (SATA-IP AN1's firmware
        loop, with the host CLI and the bridge as the 'firmware')."""
        return self._gaps(gaps, self.engine.fw_loop(
            op, [lba + i * sectors for i in range(commands)], sectors, lba28=self.lba28, seed=SEED,
            hist_source="gap", label=label, flush=self.flush))

    def _gaps(self, gaps, r):
        """A loop's run; with `gaps` (a measure.Tally) its gap counters and the histogram they
        filled (hist_source gap) are added to it, read after the run, outside its time."""
        if gaps is not None:
            gaps.add(r["gap"], self.engine.histogram())
        return r

    def uptime(self):
        """The SoC's timer0 uptime counter, in sys cycles."""
        self.target.reg("timer0_uptime_latch").write(1)
        return self.target.reg("timer0_uptime_cycles").read()

    def us(self, cycles):
        return us(cycles, self.f)

    def mbps(self, nbytes, cycles):
        return mbps(nbytes, cycles, self.f)


def write_notes(s, write):
    """What a write figure includes, in words."""
    if not write:
        return []
    if s.flush:
        return ["write figures end after FLUSH CACHE EXT (the drive's write cache emptied to its "
                "medium); flush_us is its time, mbps_before_flush the rate without it"]
    return ["write figures without FLUSH CACHE EXT (--no-flush): with the drive's write cache on "
            "they measure its cache for transfers it can hold"]


def flush_figures(s, r, prefix="", rate=True):
    """The flush's share of a write run: its time, and (rate) the rate up to the drive's last
    acknowledgement (the engine's cycles without the flush); None when the run (or `r` is None:
    no run) did not flush, so that every row has the same keys."""
    fc = (r or {}).get("flush_cycles") or 0
    out = {f"{prefix}flush_us": s.us(fc) if fc else None}
    if rate:
        out[f"{prefix}mbps_before_flush"] = s.mbps(r["bytes"], r["cycles"] - fc) if fc else None
    return out


# single ------------------------------------------------------------------------------------------

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


# long, hwloop, overhead --------------------------------------------------------------------------

def _loop_params(s, what, loops, sectors, write):
    lba = s.base()
    if sectors is None:
        sectors = s.max_command
    s.check_size(what, sectors)
    if loops < 1:
        raise TargetError(f"{what}: loops must be at least 1")
    s.check_span(what, lba, loops * sectors, write=write)
    return lba, sectors


def loop_counts(loops):
    """1, 2, 4, ... and finally `loops` itself (the firmware's sequence)."""
    n, out = 1, []
    while True:
        out.append(n)
        if n >= loops:
            return out
        n = loops if n * 2 > loops else n * 2


def long(s, loops=512, sectors=None, write=False):
    """Host loop of commands at consecutive LBAs, loop counts 1..loops; the run timer covers the
    whole loop, so command overhead is included (SATA-IP AN1 Tables 5-1, 5-2)."""
    lba, sectors = _loop_params(s, "long", loops, sectors, write)
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


CIRCUITS = (("host loop", "host CLI over litex_server", True),
            ("state machine", "engine hardware", False))


def _compare_loops(s, what, lba, sectors, loops, write, gaps=None):
    """{(circuit, op): run}; a `gaps` dict gets {(circuit, op): measure.Tally of its gaps}."""
    res = {}
    for circuit, _, fw in CIRCUITS:
        for op in ("read", "write") if write else ("read",):
            run = s.fw_loop if fw else s.hw_loop
            tally = None if gaps is None else gaps.setdefault((circuit, op), measure.Tally())
            res[circuit, op] = run(op, lba, sectors, loops, label=f"{what} {circuit} {op}",
                                   gaps=tally)
    return res


def hwloop(s, loops=4, sectors=None, write=False):
    """The same transfer issued by the host loop and by the engine's sequencer (Table 6-1)."""
    lba, sectors = _loop_params(s, "hwloop", loops, sectors, write)
    res = _compare_loops(s, "hwloop", lba, sectors, loops, write)
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


def overhead(s, loops=4, sectors=None, write=False):
    """Status of one command to first data of the next, host and hardware loop (Table 6-2)."""
    if loops < 2:
        raise TargetError("overhead: needs --loops >= 2 (the gap is between commands)")
    lba, sectors = _loop_params(s, "overhead", loops, sectors, write)
    gaps = {}
    res = _compare_loops(s, "overhead", lba, sectors, loops, write, gaps)
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


# lba28 -------------------------------------------------------------------------------------------

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


# latency -----------------------------------------------------------------------------------------

def latency(s, min_kib=16, max_kib=4096, runs=10):
    """Read time vs size: `runs` reads per size, min and max dropped, the rest averaged; the first
    read of each size reported apart (e7SATA read test)."""
    if not 3 <= runs <= 64 or not 1 <= min_kib <= max_kib:
        raise TargetError("latency: --runs 3..64 and 1 <= --min <= --max KiB")
    lba = s.base()
    s.check_size("latency", max_kib * 2)
    s.check_span("latency", lba, max_kib * 2)
    rows, entries = [], []
    kib = min_kib
    while kib <= max_kib:
        cycles, fd, tally, samples = [], 0, measure.Tally(), []
        for i in range(runs):
            r = s.engine.run("read", lba, kib * 2, 1, lba28=s.lba28, seed=SEED,
                             label=f"latency {kib} KiB {i + 1}/{runs}")
            cycles.append(r["cycles"])
            fd += r["first_data"]["sum"]
            tally.add(r["lat"], s.engine.histogram())      # hist_source latency: issue to status
            if r["lat"]["count"] == 1:          # one command per run: the sum is its latency
                samples.append(r["lat"]["sum"])
        entries.append(runlatency.entry(tally, s.f, measure.DMA, samples=samples, kib=kib))
        lat = entries[-1]["latency"] or {}
        avg = (sum(cycles) - min(cycles) - max(cycles)) / (runs - 2)
        nbytes = kib * 1024
        rows.append({"kib": kib, "sectors": kib * 2, "bytes": nbytes, "runs": runs,
                     "first_cycles": cycles[0], "first_us": s.us(cycles[0]),
                     "avg_cycles": avg, "avg_us": s.us(avg), "min_cycles": min(cycles),
                     "max_cycles": max(cycles), "mbps": s.mbps(nbytes, avg),
                     "first_data_us": s.us(fd / runs), "stdev_us": lat.get("stdev_us"),
                     **measure.percentile_keys(lat)})
        kib *= 2
    return result("latency", {"lba": lba, "min_kib": min_kib, "max_kib": max_kib, "runs": runs,
                              "lba28": s.lba28, "command_set": s.mode()}, rows,
                  {"read_latency": entries}, runlatency.notes(entries, runlatency.READ_NOTE))


# cpu ---------------------------------------------------------------------------------------------

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


# access ------------------------------------------------------------------------------------------

def xorshift_lbas(seed, lba, span, n):
    """The firmware's random LBAs for `access`: xorshift64 from 0x9e3779b97f4a7c15 ^ seed."""
    x, out = (0x9E3779B97F4A7C15 ^ seed) & bc.M64, []
    for _ in range(n):
        x = bc.xorshift64(x)
        out.append(lba + x % span)
    return out


def _nearest_rank(v, q):
    """The nearest-rank q-th percentile (q in 1..100) of sorted samples."""
    return v[(len(v) * q + 99) // 100 - 1]


def access(s, n=100, seed=SEED, loops=1):
    """Single-sector reads at random LBAs, issue to first data dword (Quantum SSD paper); loops > 1
    reads the same LBAs again per loop, the summary over every sample and `spread` over the
    loops' figures."""
    if not 1 <= n <= 100_000:
        raise TargetError("access: -n must be 1..100000")
    loops_stats.check("access", loops)
    lba = s.base()
    span = s.range_count(s.capacity - lba)
    s.check_span("access", lba, span)
    e = s.engine
    lbas = xorshift_lbas(seed, lba, span, n)
    rows, hist, fd, per_loop = [], None, None, []
    for k in range(loops):
        e.fw_begin("read", sectors=1, total_commands=n, lba28=s.lba28, seed=seed,
                   hist_source="first_data",
                   label="access" + (f" loop {k + 1}/{loops}" if loops > 1 else ""))
        before, first = 0, len(rows)
        for at in lbas:
            e.fw_command(at)
            total = e.stat("first_data", "sum")
            rows.append({"sample": len(rows), "lba": at, "first_data_cycles": total - before,
                         "first_data_us": s.us(total - before)})
            before = total
        r, h = e.collect(), e.histogram()
        v = sorted(x["first_data_cycles"] for x in rows[first:])
        per_loop.append({"min_us": s.us(v[0]), "median_us": s.us(v[(n - 1) // 2]),
                         "p99_us": s.us(_nearest_rank(v, 99)), "max_us": s.us(v[-1]),
                         "avg_us": s.us(_avg(r["first_data"]))})
        x = r["first_data"]
        fd = dict(x) if fd is None else {"min": min(fd["min"], x["min"]),
                                         "max": max(fd["max"], x["max"]),
                                         "sum": fd["sum"] + x["sum"],
                                         "count": fd["count"] + x["count"]}
        hist = h if hist is None or h is None else [a + b for a, b in zip(hist, h)]
    v = sorted(x["first_data_cycles"] for x in rows)
    summary = {"min_us": s.us(v[0]), "median_us": s.us(v[(len(v) - 1) // 2]),
               "p99_us": s.us(_nearest_rank(v, 99)), "max_us": s.us(v[-1]),
               "avg_us": s.us(_avg(fd)),
               "histogram": None if hist is None else latency_stats.buckets(hist, s.f),
               "latency": None if hist is None else latency_stats.summarize(
                   dict(enumerate(hist)), s.f, latency_stats.FIRST_DATA, lo=fd["min"],
                   hi=fd["max"], total=fd["sum"], samples=v)}
    params = {"lba": lba, "range": span, "n": n, "seed": seed, "lba28": s.lba28,
              "command_set": s.mode()}
    notes = [latency_stats.NOTE] if hist is not None else []
    if loops != 1:
        params["loops"] = loops
        summary["spread"] = {k: loops_stats.stats([p[k] for p in per_loop]) for k in per_loop[0]}
        notes.append(loops_stats.NOTE)
    return result("access", params, rows, summary, notes)


# verify ------------------------------------------------------------------------------------------

def verify(s, count=None, seed=SEED, check=False):
    """Write the LBA- and seed-dependent pattern, read it back through the engine's checker and
    count mismatching dwords and sectors. check=True only reads and checks an earlier write."""
    if not 0 <= seed < 2**32:
        raise TargetError("verify: --seed is 32 bits")
    lba = s.base()
    if count is None:
        count = s.range_count(2048)
    s.check_span("verify", lba, count, write=not check)
    r = s.run_span("read" if check else "write_verify", lba, count, verify=True, seed=seed,
                   label="verify check" if check else "verify")
    ok = not (r["mismatch_sectors"] or r["errors"])
    rows = [{"lba": lba, "sectors": count, "seed": seed, "commands": r["completed"],
             "failed_commands": r["errors"], "bad_sectors": r["mismatch_sectors"],
             "bad_dwords": r["mismatch_dwords"], "first_bad_lba": r["first_bad_lba"],
             "cycles": r["cycles"], "mbps": r["mbps"], **flush_figures(s, r, rate=False),
             "result": "PASS" if ok else "FAIL"}]
    return result("verify", {"lba": lba, "count": count, "seed": seed, "check": check,
                             "lba28": s.lba28, "command_set": s.mode()}, rows,
                  {"passed": ok})


# suite -------------------------------------------------------------------------------------------

def suite_plan(s, sectors=256, write=False):
    """(name, function, kwargs) of the scaled-down suite; write parts only with write=True."""
    sectors = min(sectors, s.max_command)
    w = {"write": True} if write else {}
    plan = [
        ("single", single, dict(sectors=sectors, loops=2, **w)),
        ("long", long, dict(loops=4, sectors=sectors, **w)),
        ("hwloop", hwloop, dict(loops=4, sectors=sectors, **w)),
        ("overhead", overhead, dict(loops=4, sectors=sectors, **w)),
        ("lba28", lba28, dict(count=4 * bc.MAX_SECTORS28, **w)),
        ("latency", latency, dict(min_kib=16, max_kib=max(16, sectors // 2), runs=5)),
        ("cpu", cpu, dict(count=64, **w)),
        ("access", access, dict(n=20)),
        ("random", random, dict(n=20, max_sectors=min(64, sectors))),
        ("quick", quick, dict(loops=2, n=32, seq_n=8, seq_sectors=sectors)),
    ]
    if write:
        plan.append(("verify", verify, dict(count=4 * sectors)))
    return plan


def suite_span(sectors):
    """Sectors the suite needs from the start of --range."""
    return max(4 * sectors, 4 * bc.MAX_SECTORS28)
