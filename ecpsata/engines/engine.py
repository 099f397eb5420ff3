# SPDX-License-Identifier: BSD-2-Clause
"""Hardware benchmark engine on one LiteSATA user port.

Ref: doc/benchmarks.md (experiments and their definitions), SATA-IP AN1 (hardware loop vs
firmware loop, command overhead), ATA/ACS READ/WRITE DMA (EXT).
"""

from migen import *

from litex.soc.interconnect.csr import CSRStorage, CSRStatus, CSRField

from ecpsata.engines.common import *
from ecpsata.core.common import ATA_FLUSH_CACHE_EXT

from ecpsata.engines.pattern import PatternUnit
from ecpsata.engines.counters import MinMaxSumBank, Log2Histogram
from ecpsata.engines.run import RunControl

# Benchmark engine ---------------------------------------------------------------------------------

class ECPSATABenchEngine(RunControl):
    """Benchmark engine: a hardware command sequencer with pattern generator/checker and cycle
    counters, attached to one LiteSATA user port (`crossbar.get_port()`).

    Modes (config.fw_loop):
    - hardware loop: `start` clears the counters and issues `commands` back-to-back commands of
      `sectors` sectors at sequential or random LBAs in [lba_base, lba_base + lba_range); op
      write_verify writes the whole run and then reads it back through the checker (the counters
      cover both passes; status.phase tells which one ran last).
    - firmware loop: each `start` issues exactly one command at `lba_base` (the CPU updates it
      between commands); counters accumulate until `control.clear`, and the run timer and the gap
      timer keep running between commands, so the CPU's overhead is measured as in SATA-IP AN1 §6.

    Timing points (sys clock cycles): issue I = first cycle the command is presented on the port;
    first data F = first read dword received / first write dword accepted by the core (with
    `write_beat`, e.g. BufferedUserPort.write_beat: behind a buffer the port takes the first
    dwords at once, the core only once the drive asked for data); status S = the cycle the
    end-of-command beat is received. latency = S - I, first_data = F - I, gap = F - S(previous
    command), cycles = S(last) - I(first).

    Read data is never backpressured (`port.source.ready` is always 1). A command is refused
    (status error/refused, nothing issued, counters unchanged) when: sectors not in 1..65,536;
    the range [lba_base, lba_base + lba_range) (firmware loop: lba_base + sectors) exceeds
    `capacity`; lba_range < sectors; commands = 0; a 28-bit command has more than 256 sectors,
    reaches beyond 2^28, or the port has no `lba28` field (ecpsata/core/command.py); op invalid;
    `units` (a port of share.EngineUnits) is given and the other engine holds them.

    On a timeout the engine stops driving the port and pulses `core_reset` for 16 cycles: the
    command layer still holds the unfinished command, so the SoC should OR `core_reset` into the
    LiteSATA core/crossbar reset. `link_up` (the PHY's ready) low at start refuses the run (reason
    link lost, nothing issued); low for any cycle while a command is in flight ends the run at
    once with reason link lost (the SoC resets the core while the link is down, so that command
    will never end by itself): the next start works as soon as the link is back.

    CSRs (prefix-free names; 64-bit values are two CSR words):

    ==================  =====  ==============================================================
    control             w      start / clear / abort (pulses)
    snapshot            w      latch: copy the live counters into snap_* atomically
    config              rw     op, random, verify, lba28, fw_loop, stop_on_error, hist_source,
                               flush
    lba_base            48     first LBA of the range
    lba_range           48     sectors in the range (hardware loop)
    sectors             17     sectors per command, 1..65,536
    commands            32     commands per hardware run (per phase for write_verify)
    seed                32     pattern and random-LBA seed
    capacity            48     drive capacity in sectors (from IDENTIFY); 0 refuses everything
    timeout             32     per-command timeout in cycles, 0 = off
    status              ro     state (idle/busy/done/error; busy until the run's statistics are
                               written), reason, phase (0 write/read, 1 verify)
    cycles              64     run time, first issue to last status
    bytes               64     data bytes moved
    completed           32     commands completed (ok or failed)
    errors              32     commands that ended with `failed`
    flush_cycles        64     time in FLUSH CACHE EXT, issue to status (in `cycles` too)
    mismatch_dwords     32     read dwords that differed from the pattern
    mismatch_sectors    32     sectors with at least one such dword
    first_bad_lba       48     LBA of the first mismatching sector (valid if mismatch_sectors)
    last_lba            48     LBA of the last command issued
    stat_select         4      statistic to read: common.stat_entry(source, field), sources
                               lat (issue to status), first_data (issue to first data dword),
                               gap (previous status to first data), fields count/min/max/sum
    stat_data           64     that statistic (min reads 0 while count is 0)
    hist_select         5      histogram bucket to read
    hist_data           32     samples in that bucket (log2 buckets, see counters.py)
    snap_cycles         64     run timer at the last snapshot
    snap_bytes          64     bytes at the last snapshot
    snap_completed      32     completed commands at the last snapshot
    snap_errors         32     failed commands at the last snapshot
    snap_mismatches     32     mismatching dwords at the last snapshot
    ==================  =====  ==============================================================
    """
    def __init__(self, port, sys_clk_freq, default_timeout_s=10.0, with_histogram=True,
                 write_beat=None, units=None):
        assert port.dw == 32, "the engine moves one dword per beat"
        sink, source = port.sink, port.source    # sink: commands/write data to the core
        self.lba28_capable = hasattr(sink, "lba28")
        self.flush_capable = int(hasattr(sink, "nodata"))   # the port carries non-data commands

        # CSRs (run control: run.py) ---------------------------------------------------------------
        self.add_run_csrs(sys_clk_freq, default_timeout_s, abort_description="Stop after the command in flight.",
            config_fields=[
                CSRField("op", size=2, values=[("0", "read"), ("1", "write"), ("2", "write then verify")]),
                CSRField("random", size=1, description="Random LBAs (else sequential)."),
                CSRField("verify", size=1, description="Check read data against the pattern."),
                CSRField("lba28", size=1, description="READ/WRITE DMA (28-bit) instead of EXT."),
                CSRField("fw_loop", size=1, description="One command per start (CPU loop)."),
                CSRField("stop_on_error", size=1, reset=1, description="End the run at the first failed command."),
                CSRField("hist_source", size=2, values=[("0", "latency"), ("1", "first data"), ("2", "gap")]),
                CSRField("flush", size=1, description="End each write run (firmware loop: this "
                         "command) with FLUSH CACHE EXT, timed in cycles and flush_cycles."),
            ],
            status_fields=[
                CSRField("phase", size=1, description="1 while/after the verify pass of write_verify."),
            ])
        self.flush_cycles     = CSRStatus(64)
        self.mismatch_dwords  = CSRStatus(32)
        self.mismatch_sectors = CSRStatus(32)
        self.first_bad_lba    = CSRStatus(LBA_WIDTH)
        self.stat_select = CSRStorage(4, description="Statistic to read (common.stat_entry).")
        self.stat_data   = CSRStatus(64, description="That statistic, in cycles (count: samples).")
        if with_histogram:
            self.hist_select = CSRStorage(5)
            self.hist_data   = CSRStatus(32)
        self.snap_mismatches = CSRStatus(32)

        # # #

        # Run parameters, latched at start.
        p = self.params
        op, random, verify, lba28 = p.op, p.random, p.verify, p.lba28
        fw_loop, stop_err, hist_src = p.fw_loop, p.stop_on_error, p.hist_source
        flush = p.flush & self.flush_capable
        nsect, ncmds, base, rng, seed, tmo = p.nsect, p.ncmds, p.base, p.rng, p.seed, p.tmo

        # Validation: a firmware-loop command spans its own sectors, a hardware run its range.
        self.add_validation(Mux(fw_loop, nsect, rng), lambda span_end:
            (op == 3) |
            (fw_loop & (op == OP_WRITE_VERIFY)) |
            (~fw_loop & ((ncmds == 0) | (rng < nsect))) |
            (lba28 & ((nsect > MAX_SECTORS28) | (span_end > LBA28_LIMIT) |
                      (0 if self.lba28_capable else 1))))

        # Submodules.
        seq, pattern = self.add_units(units)
        self.stats   = stats   = MinMaxSumBank(len(STAT_SOURCES))
        lat, fdat, gap = (Record([("value", 64), ("we", 1)]) for _ in STAT_SOURCES)
        next_lba = Signal(LBA_WIDTH)
        self.comb += [
            next_lba.eq(Mux(fw_loop, base, seq.lba)),
            pattern.lba.eq(next_lba),
            seq.base.eq(base), seq.range.eq(rng), seq.sectors.eq(nsect),
            seq.random.eq(random), seq.seed.eq(seed),
            pattern.seed.eq(seed),
        ]

        # Engine state.
        state, reason = self.state, self.reason
        phase      = Signal()
        remaining  = Signal(32)
        cmd_lba    = self.last_lba_          # the command's LBA; last_lba shows the last one
        cmd_write  = Signal()
        checking   = Signal()
        beat       = Signal(24)
        last_beat  = self.last_beat = Signal(24)   # dwords - 1 of a write packet
        got_status = Signal()
        got_data   = Signal()
        abort_req  = self.abort_req
        dev_err    = Signal()                # a failed command in this run
        cmd_failed = Signal()
        mm_base    = Signal(32)              # mismatch_dwords when this start began

        cmd_timer = Signal(64)
        run_timer = self.run_timer
        gap_timer = Signal(64)
        timing    = self.timing
        have_prev = Signal()

        bytes_, completed, errors, cycles = self.bytes_, self.completed_, self.errors_, self.cycles_
        clear_stats = self.clear_stats
        issue_next  = Signal()               # the next cycle is the issue cycle I
        outstanding = Signal()
        data_beat   = Signal()               # a data dword moved (measurements)
        port_beat   = Signal()               # a data dword handed over / received here (pattern)
        status_beat = Signal()

        fsm_flush_done = Signal()            # the flush's status arrives
        flushing = Signal()                  # FLUSH CACHE EXT on the port
        flush_start = Signal()
        flushed = Signal()                   # the write phase's flush is done
        flush_cycles = Signal(64)
        self.comb += [
            sink.sector.eq(cmd_lba),
            sink.count.eq(nsect[:16]),
            sink.write.eq(cmd_write & ~flushing),
            sink.read.eq(~cmd_write & ~flushing),
            sink.identify.eq(0),
            sink.data.eq(pattern.value),
            source.ready.eq(1),
        ]
        if self.lba28_capable:
            self.comb += sink.lba28.eq(lba28)
        if self.flush_capable:
            self.comb += [sink.nodata.eq(flushing), sink.command.eq(ATA_FLUSH_CACHE_EXT)]

        # Port events.
        self.comb += [
            status_beat.eq(outstanding & source.valid & source.end),
            # Write beats taken after the status (a command layer draining a failed write) are
            # not data: they never reach the drive.
            # The pattern steps on the beats this engine hands over; the measurements count the
            # beats the core takes (`write_beat`) when the port says so.
            If(cmd_write,
                port_beat.eq(outstanding & ~got_status & sink.valid & sink.ready),
                data_beat.eq(port_beat if write_beat is None else (outstanding & write_beat)),
            ).Else(
                port_beat.eq(outstanding & source.valid & ~source.end),
                data_beat.eq(port_beat),
            ),
            pattern.advance.eq(port_beat),
            pattern.check.eq(checking & ~cmd_write),
            pattern.data.eq(source.data),
            pattern.clear.eq(clear_stats),
        ]

        # Measurements.
        self.comb += [
            stats.clear.eq(clear_stats),
            *[stats.values[i].eq(acc.value) for i, acc in enumerate((lat, fdat, gap))],
            *[stats.wes[i].eq(acc.we) for i, acc in enumerate((lat, fdat, gap))],
            stats.select.eq(self.stat_select.storage),
            self.stat_data.status.eq(stats.data),
            lat.we.eq(status_beat), lat.value.eq(cmd_timer),
            fdat.we.eq(data_beat & ~got_data),
            gap.we.eq(data_beat & ~got_data & have_prev),
        ]
        if write_beat is None:
            self.comb += [fdat.value.eq(cmd_timer), gap.value.eq(gap_timer)]
        else:
            # write_beat comes a cycle after the core took the dword: a write's first data is
            # timed with the timers' values of that cycle.
            cmd_timer_d = Signal(64)
            gap_timer_d = Signal(64)
            self.sync += [cmd_timer_d.eq(cmd_timer), gap_timer_d.eq(gap_timer)]
            self.comb += [
                fdat.value.eq(Mux(cmd_write, cmd_timer_d, cmd_timer)),
                gap.value.eq(Mux(cmd_write, gap_timer_d, gap_timer)),
            ]
        self.sync += [
            If(issue_next | flush_start, cmd_timer.eq(0)).Else(cmd_timer.eq(cmd_timer + 1)),
            If(status_beat, gap_timer.eq(1)).Else(gap_timer.eq(gap_timer + 1)),
            If(clear_stats,
                timing.eq(0), run_timer.eq(0), have_prev.eq(0),
                bytes_.eq(0), completed.eq(0), errors.eq(0), cycles.eq(0), flush_cycles.eq(0),
            ).Else(
                If(flushing & fsm_flush_done,
                    flush_cycles.eq(flush_cycles + cmd_timer),
                    cycles.eq(run_timer),
                ),
                If(issue_next & ~timing,
                    timing.eq(1), run_timer.eq(0),
                ).Elif(timing,
                    run_timer.eq(run_timer + 1),
                ),
                If(data_beat, bytes_.eq(bytes_ + 4)),
                If(status_beat,
                    have_prev.eq(1),
                    completed.eq(completed + 1),
                    cycles.eq(run_timer),
                    If(source.failed, errors.eq(errors + 1)),
                ),
            ),
            If(data_beat, got_data.eq(1)),
            If(status_beat,
                got_status.eq(1),
                cmd_failed.eq(source.failed),
            ),
            If(issue_next,
                got_data.eq(0),
                got_status.eq(0),
                cmd_failed.eq(0),
                beat.eq(0),
            ).Elif(cmd_write & sink.valid & sink.ready,
                beat.eq(beat + 1),
            ),
            If(self.control.fields.abort, abort_req.eq(1)),
        ]

        if with_histogram:
            self.hist = hist = Log2Histogram()
            self.comb += [
                hist.clear.eq(clear_stats),
                hist.select.eq(self.hist_select.storage),
                self.hist_data.status.eq(hist.data),
                Case(hist_src, {
                    HIST_LATENCY:    [hist.we.eq(lat.we),  hist.value.eq(lat.value)],
                    HIST_FIRST_DATA: [hist.we.eq(fdat.we), hist.value.eq(fdat.value)],
                    "default":       [hist.we.eq(gap.we),  hist.value.eq(gap.value)],
                }),
            ]
            meas_busy = hist.busy | stats.busy   # clearing
        else:
            meas_busy = stats.busy

        # Timeout and core reset pulse.
        timed_out   = Signal()
        # Registered compare (a cycle late, cleared for the issue cycle): keeps the 64-bit compare
        # off the FSM's paths.
        self.sync += timed_out.eq(~issue_next & ~flush_start & (tmo != 0) & (cmd_timer >= tmo))
        self.add_core_reset(timed_out & (outstanding | flushing))

        # Sequencer FSM: run.py's start states, then one command after another.
        end_run = self.end_run
        fsm = self.add_run_fsm(
            ready=seq.ready,                # the sequencer may finish an LBA of an ended run
            on_run=[
                NextValue(state, STATE_BUSY),
                NextValue(reason, REASON_OK),
                NextValue(dev_err, 0),
                NextValue(mm_base, Mux(fw_loop, pattern.mismatch_dwords, 0)),
                NextValue(remaining, ncmds),
                NextValue(phase, 0),
                NextValue(cmd_write, op != OP_READ),
                NextValue(checking, verify & (op == OP_READ)),
                If(~fw_loop,
                    clear_stats.eq(1),
                    seq.start.eq(1),
                ),
                NextState("PREP")
            ])
        # The link dropped since the run's command began (sticky until the next issue); a cycle
        # more to notice a drop keeps the link's paths off the FSM's.
        link_lost = Signal()
        self.sync += If(issue_next | fsm.ongoing("CHECK"), link_lost.eq(0)).Elif(~self.link, link_lost.eq(1))
        # PREP: wait for the next LBA, let the pattern unit's sector-seed pipeline settle on it
        # (PatternUnit.LOAD_LATENCY), load the pattern and issue.
        prep_wait = Signal(max=PatternUnit.LOAD_LATENCY + 1)
        fsm.act("PREP",
            If(abort_req,
                NextValue(prep_wait, 0),
                *end_run(STATE_DONE, REASON_ABORTED)
            ).Elif(~meas_busy & seq.ready,
                NextValue(prep_wait, prep_wait + 1),
                If(prep_wait == PatternUnit.LOAD_LATENCY,
                    NextValue(prep_wait, 0),
                    pattern.load.eq(1),
                    NextValue(cmd_lba, next_lba),
                    NextValue(last_beat, Cat(Constant(0, 7), nsect) - 1),
                    issue_next.eq(1),
                    NextState("ISSUE")
                )
            ).Else(
                NextValue(prep_wait, 0)
            )
        )
        fsm.act("ISSUE",
            outstanding.eq(1),
            sink.valid.eq(1),
            sink.last.eq(~cmd_write | (beat == last_beat)),
            If(link_lost,
                *end_run(STATE_ERROR, REASON_LINK_LOST)
            ).Elif(timed_out,
                *end_run(STATE_ERROR, REASON_TIMEOUT)
            ).Elif(sink.ready & sink.last,
                NextState("WAIT_STATUS")
            )
        )
        fsm.act("WAIT_STATUS",
            outstanding.eq(1),
            If(link_lost & ~got_status & ~status_beat,
                *end_run(STATE_ERROR, REASON_LINK_LOST)
            ).Elif(timed_out,
                *end_run(STATE_ERROR, REASON_TIMEOUT)
            ).Elif(got_status | status_beat,
                NextState("COMPLETE")
            )
        )
        fsm.act("COMPLETE",
            NextValue(remaining, remaining - 1),
            If(cmd_failed, NextValue(dev_err, 1)),
            If(fw_loop | (cmd_failed & stop_err) | abort_req | (remaining == 1),
                NextState("FINISH"),
            ).Else(
                seq.next.eq(1),
                NextState("PREP")
            )
        )
        # A write run (its write phase; in the firmware loop, this command) ends with FLUSH CACHE
        # EXT when `flush` is set: without it a drive with its write cache on reports its RAM's
        # speed, not its medium's. The flush is timed in the run's cycles and in flush_cycles.
        fsm.act("FINISH",
            If(flush & cmd_write & ~flushed & ~dev_err & ~abort_req,
                flush_start.eq(1),
                NextState("FLUSH")
            ).Elif(~fw_loop & ~(dev_err & stop_err) & ~abort_req & (op == OP_WRITE_VERIFY) & ~phase,
                NextValue(phase, 1),
                NextValue(cmd_write, 0),
                NextValue(checking, 1),
                NextValue(remaining, ncmds),
                seq.start.eq(1),
                NextState("PREP")
            ).Elif(dev_err,
                *end_run(STATE_ERROR, REASON_DEVICE_ERROR)
            ).Elif(pattern.mismatch_dwords != mm_base,
                *end_run(STATE_ERROR, REASON_MISMATCH)
            ).Elif(abort_req,
                *end_run(STATE_DONE, REASON_ABORTED)
            ).Else(
                *end_run(STATE_DONE, REASON_OK)
            )
        )
        fsm.act("FLUSH",
            flushing.eq(1),
            sink.valid.eq(1),
            sink.last.eq(1),
            If(link_lost,
                *end_run(STATE_ERROR, REASON_LINK_LOST)
            ).Elif(timed_out,
                *end_run(STATE_ERROR, REASON_TIMEOUT)
            ).Elif(sink.ready,
                NextState("FLUSH_WAIT")
            )
        )
        fsm.act("FLUSH_WAIT",
            flushing.eq(1),
            If(source.valid & source.end,
                fsm_flush_done.eq(1),
                If(source.failed, NextValue(dev_err, 1)),
                NextState("FINISH")
            ).Elif(link_lost,
                *end_run(STATE_ERROR, REASON_LINK_LOST)
            ).Elif(timed_out,
                *end_run(STATE_ERROR, REASON_TIMEOUT)
            )
        )
        self.sync += If(issue_next, flushed.eq(0)).Elif(fsm_flush_done, flushed.eq(1))
        # The hardware-loop run timer stops with the run; the firmware loop keeps it running.
        self.sync += If(fsm.ongoing("IDLE") & ~fw_loop, timing.eq(0))

        # CSR outputs.
        self.comb += [
            self.status.fields.phase.eq(phase),
            self.flush_cycles.status.eq(flush_cycles),
            self.mismatch_dwords.status.eq(pattern.mismatch_dwords),
            self.mismatch_sectors.status.eq(pattern.mismatch_sectors),
            self.first_bad_lba.status.eq(pattern.first_bad_lba),
        ]
        self.add_run_outputs(snapshot_also=[self.snap_mismatches.status.eq(pattern.mismatch_dwords)])
        # A run's last statistics are written a few cycles after its last status: until then the
        # run reads busy, so that a CPU that sees it end reads them complete.
        self.comb += If(~stats.settled, self.status.fields.state.eq(STATE_BUSY))
