# SPDX-License-Identifier: BSD-2-Clause
"""A connected target ready for the experiments (ecpsata/host/experiments/): the benchmark engine,
the link, IDENTIFY, the write permission and the user's LBA range, checked before anything is
sent; and what every write figure says about FLUSH CACHE EXT.

Every experiment checks each LBA span it will touch (inside the drive, inside the user's --range,
writes only when allowed) through Session.check_span before it sends anything, runs on the
benchmark engine and returns a plain dict (results.result). Every figure is computed from the
engine's cycle counters (the `cpu` experiment's bridge path from the SoC's uptime counter) at the
SoC's sys clock.

Writes end with FLUSH CACHE EXT by default (Session.flush): a drive with its volatile write cache
on acknowledges writes once they are in its RAM, so without the flush a write figure measures the
cache, not the medium (fio's end_fsync, KDiskMark and hdparm's direct I/O exist for the same
reason). The flush is timed inside the write's interval by the engine, and reported apart
(`flush_us`, and `mbps_before_flush`: the rate up to the drive's last acknowledgement).
"""

from ecpsata.engines import common as bc
from ecpsata.host import drivestate, sata
from ecpsata.host.engine import EngineDriver, mbps, us
from ecpsata.host.measure import add_runs
from ecpsata.host.queued import QueuedEngineDriver
from ecpsata.host.results import SEED
from ecpsata.host.target import TargetError

SIM_TIME_SCALE = 1000.0       # wall seconds per simulated second, for deadlines only


class Session:
    """A connected target ready to benchmark: engine present, link up, IDENTIFY read, the write
    permission and the user's LBA range. Nothing is written to the engine until a run."""
    def __init__(self, target, timeout=5.0, time_scale=None, allow_write=False, lba_range=None,
                 force_lba28=False, on_progress=None, flush=True, write_cache=None,
                 auto_activate=True, drive_state=False):
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
        # The drive's own state before the first run (its temperature, counts, Phy events),
        # when asked for: its reads are commands of their own between the runs.
        self.with_drive_state = drive_state
        self.state_before = drivestate.snapshot(target, self.ident, timeout) if drive_state \
            else None
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

    def drive_state(self):
        """The drive's state before the run just made (or the previous report) and now, and the
        change; now becomes the next report's before."""
        if not self.with_drive_state:
            return None
        after = drivestate.snapshot(self.target, self.ident, self.timeout)
        out = {"before": self.state_before, "after": after,
               "change": drivestate.change(self.state_before, after)}
        self.state_before = after
        return out

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


