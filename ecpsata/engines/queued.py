# SPDX-License-Identifier: BSD-2-Clause
"""Queued benchmark engine: READ / WRITE FPDMA QUEUED with up to 32 commands in flight.

Ref: SATA 3.x §13.6 (Native Command Queuing); doc/benchmarks.md (Quantum SSD paper: IOPS against
queue depth);
ecpsata/core/ncq/ (the queued command layer it drives).
"""

from functools import reduce
from operator import or_

from migen import *

from litex.soc.interconnect.csr import CSRStorage, CSRStatus, CSRField

from ecpsata.engines.common import *
from ecpsata.engines.counters import MinMaxSum, Log2Histogram
from ecpsata.engines.pattern import PatternUnit
from ecpsata.engines.run import RunControl

from ecpsata.core.common import NCQ_REASON, NCQ_RESET_REASONS, NCQ_TIMEOUT_REASONS
from ecpsata.phy.common import popcount


def lowest_set(mask, width, out, found, onehot=None):
    """Statements: `onehot` <- the lowest set bit of `mask` alone (mask & -mask: one carry chain),
    `out` <- its index (an OR per index bit), `found` <- mask != 0. A priority If/Else chain over
    32 bits was 32 multiplexers deep and held sys under 75 MHz on ECP5."""
    onehot = Signal(width) if onehot is None else onehot
    stmts = [onehot.eq(mask & (~mask + 1)), found.eq(mask != 0)]
    for b in range(len(out)):
        stmts.append(out[b].eq(reduce(or_, [onehot[i] for i in range(width) if i >> b & 1])))
    return stmts


class ECPSATAQueuedBenchEngine(RunControl):
    """Hardware command sequencer on the queued command layer (`ECPSATACore(ncq=True).ncq`).

    A run issues `commands` commands of `sectors` sectors at the LBAs the non-queued engine would
    use (sequential or random in [lba_base, lba_base + lba_range), command k at the k-th LBA),
    keeping up to `qd` of them in flight on tags 0..qd-1. Writes carry the engine's data pattern
    (common.pattern_dword with `seed`), so a later non-queued read can check them; queued reads
    are counted, not checked. A mix run (op mix) makes each command a write with probability
    `mix` / 256 and a read otherwise, drawn per command from a generator seeded from `seed`
    (common.mix_ops gives the sequence): command k is at the k-th LBA, as in the other runs.

    Timing points (sys cycles): issue I = the cycle the engine picks a command (its tag and LBA);
    it is presented to the layer the next cycle and stays there until the layer takes it;
    completion S = the cycle a Set Device Bits FIS reports its tag. latency = S - I per command
    (a command the drive aborted and the engine re-issued keeps its first I); cycles = S(last) -
    I(first); IOPS = completed / cycles * sys clock.

    Errors: an NCQ error on one tag (log 10h names it) counts that command as failed, latches its
    LBA (`ncq_lba`) and re-issues the commands the drive aborted with it; with `stop_on_error`
    nothing new is issued and the run ends with reason device error once the queue is empty.
    A DATA_CRC report (the drive completed a tag whose Data FIS failed) is handled the same way:
    that command fails, nothing was aborted (the other tags complete as usual), `ncq_lba` reads 0.
    An error the log does not pin on a tag fails every aborted command and ends the run. A
    timeout of the layer (or of the engine: `timeout` cycles without progress) ends the run with
    reason timeout and pulses `core_reset` (the drive's state is unknown: the host resets the
    link). `link_up` low ends the run with reason link lost. With `units` (a port of
    share.EngineUnits) the LBA sequencer and pattern unit are the SoC's, and a run started while
    the other engine holds them ends refused, nothing issued.

    CSRs (as engine.py's where the names match; ecpsata/host/queued.py and ecpsata/firmware/qbench.c drive them):
    control (start/clear/abort), snapshot, config (op read/write/mix, random, stop_on_error), qd
    (1..32; 0 or more is refused), lba_base, lba_range, sectors, commands, seed, capacity, timeout
    (cycles of silence allowed in any wait; 0 = none), mix (op mix: writes per 256 commands,
    0..256; more is refused; other ops ignore it); status (state, reason), cycles, bytes (read
    and written), completed, errors (failed commands), completed_reads / completed_writes
    (completed split by op, failed ones included, for every op: they add up to completed by the
    end of the run), last_lba (the last new command's), lat_min/max/sum/count
    (commands that completed without error), depth_max (most tags outstanding at the drive at
    once), ncq_errors, ncq_reason (NCQ_REASONS), ncq_tag (tag, valid), ncq_lba (log 10h's failing
    LBA), reissued (aborted commands sent again), hist_select / hist_data (the latencies of the
    commands that completed without error, in log2 buckets as engine.py's histogram),
    snap_cycles/bytes/completed/errors.
    """
    def __init__(self, ncq, sys_clk_freq, default_timeout_s=10.0, units=None):
        # CSRs (run control: run.py) ---------------------------------------------------------------
        self.add_run_csrs(sys_clk_freq, default_timeout_s,
            abort_description="Issue nothing new; end when the queue is empty.",
            config_fields=[
                CSRField("op", size=2, values=[("0", "read"), ("1", "write"), ("2", "mix")]),
                CSRField("random", size=1, description="Random LBAs (else sequential)."),
                CSRField("stop_on_error", size=1, reset=1, description="Issue nothing new after a failed command."),
            ],
            queue=CSRStorage(6, reset=1, name="qd", description="Commands in flight, 1..32."))
        self.depth_max  = CSRStatus(6, description="Most commands outstanding at the drive at once.")
        self.ncq_errors = CSRStatus(32, description="NCQ error reports in the run.")
        self.ncq_reason = CSRStatus(4, description="NCQ reason of the last report (NCQ_REASONS).")
        self.ncq_tag    = CSRStatus(fields=[
            CSRField("tag", size=5, description="The failing tag (log 10h)."),
            CSRField("valid", size=1, description="The log named a tag."),
        ])
        self.ncq_lba    = CSRStatus(LBA_WIDTH, description="LBA of the failing command (log 10h).")
        self.reissued   = CSRStatus(32, description="Aborted commands issued again.")
        self.hist_select = CSRStorage(5, description="Histogram bucket to read.")
        self.hist_data   = CSRStatus(32, description="Commands whose latency fell in that bucket "
                                         "(log2 buckets, counters.py).")
        self.mix = CSRStorage(9, reset=MIX_ONE // 2, description="op mix: writes per 256 commands "
                              "(0 all reads .. 256 all writes; more is refused).")
        self.completed_reads  = CSRStatus(32, description="Completed reads (failed included).")
        self.completed_writes = CSRStatus(32, description="Completed writes (failed included).")

        # # #

        # Run parameters, latched at start.
        p = self.params
        op, random, stop_err = p.op, p.random, p.stop_on_error
        nsect, ncmds, base, rng, seed, tmo = p.nsect, p.ncmds, p.base, p.rng, p.seed, p.tmo
        qd, mix = Signal(6), Signal(9)
        self.latch += [qd.eq(self.qd.storage), mix.eq(self.mix.storage)]

        self.add_validation(rng, lambda span_end:
            (op > OP_MIX) | ((op == OP_MIX) & (mix > MIX_ONE)) |
            (ncmds == 0) | (rng < nsect) | (qd == 0) | (qd > QD_MAX))
        qd_mask = Signal(32)
        self.sync += qd_mask.eq((1 << qd) - 1)
        self.comb += ncq.timeout.eq(Mux(tmo == 0, 2**32 - 1, tmo))

        seq, pattern = self.add_units(units)
        self.lat     = lat     = MinMaxSum()
        self.hist    = hist    = Log2Histogram(value_width=32)
        self.comb += [seq.base.eq(base), seq.range.eq(rng), seq.sectors.eq(nsect),
                      seq.random.eq(random), seq.seed.eq(seed), pattern.seed.eq(seed)]

        # Per tag: the command's LBA with its op above it (1 = write: a re-issue reads both from
        # one port, no mux by tag in the pick path) and its issue time (low 32 bits of the run
        # timer).
        tag_lba  = Memory(LBA_WIDTH + 1, QD_MAX)
        tag_time = Memory(32, QD_MAX)
        self.specials += tag_lba, tag_time
        lba_w, time_w = tag_lba.get_port(write_capable=True), tag_time.get_port(write_capable=True)
        lba_r, time_r = tag_lba.get_port(async_read=True), tag_time.get_port(async_read=True)
        lba_wr = tag_lba.get_port(async_read=True)      # the LBA of a write's data request
        self.specials += lba_w, time_w, lba_r, time_r, lba_wr

        # Run state.
        running   = Signal()           # issuing and/or waiting for the queue to empty
        abort_req = self.abort_req
        dev_err   = Signal()           # a command failed in this run
        fatal     = Signal()           # an error not pinned on a tag: drain, then end
        issued    = Signal(32)         # new commands picked
        busy_tags = Signal(32)         # picked and not yet retired by the engine
        reissue   = Signal(32)         # aborted by the drive, to be sent again
        pend_ok   = Signal(32)         # completed by an SDB, latency still to be recorded
        pend_fail = Signal(32)         # failed, still to be counted
        done_time = Array(Signal(32, name=f"done_time{i}") for i in range(QD_MAX))
        no_more   = Signal()
        # issued == ncmds from a register: issued moves only on a pick, and the issue FSM is in
        # PRESENT for at least a cycle before it picks again; cleared with the counters (ncmds 0
        # is refused), so that a run never starts from the last run's comparison.
        issued_all = Signal()
        self.comb += no_more.eq(abort_req | fatal | (dev_err & stop_err) | issued_all)

        run_timer, timing = self.run_timer, self.timing
        bytes_, completed, errors, cycles = self.bytes_, self.completed_, self.errors_, self.cycles_
        ncq_errors, reissued = Signal(32), Signal(32)
        ncq_reason, ncq_tag, ncq_tag_valid, ncq_lba = Signal(4), Signal(5), Signal(), Signal(LBA_WIDTH)
        last_lba = self.last_lba_
        clear_stats = self.clear_stats
        now = run_timer[:32]

        # Tag selection, registered: a pick is followed by a quiet cycle (COOL) so that the
        # registered choices see it.
        free_tag, free_any, re_tag, re_any = Signal(5), Signal(), Signal(5), Signal()
        free_c, free_any_c, re_c, re_any_c = Signal(5), Signal(), Signal(5), Signal()
        self.comb += lowest_set(~busy_tags & qd_mask, QD_MAX, free_c, free_any_c)
        self.comb += lowest_set(reissue, QD_MAX, re_c, re_any_c)
        self.sync += [free_tag.eq(free_c), free_any.eq(free_any_c), re_tag.eq(re_c),
                      re_any.eq(re_any_c)]

        # Op of the next new command, registered: decided at the start and again whenever a new
        # command is picked (op mix: one xorshift64 step, common.mix_ops), so that the pick only
        # copies a flip-flop. Before the run the generator holds common.mix_init of the latched
        # seed (no multiplexer in front of the step). `tag_write` holds each tag's op for the
        # completion counters.
        pick_new, mix_load, next_write = Signal(), Signal(), Signal()
        mix_x, tag_write = Signal(64), Signal(QD_MAX)
        x1, x2, xn = Signal(64), Signal(64), Signal(64)
        self.comb += [x1.eq(mix_x ^ (mix_x << 13)), x2.eq(x1 ^ (x1 >> 7)), xn.eq(x2 ^ (x2 << 17))]
        self.sync += [
            If(mix_load | pick_new,
                mix_x.eq(xn),
                next_write.eq(Mux(op == OP_MIX, xn[56:] < mix, op == OP_WRITE)),
            ).Elif(~running,
                mix_x.eq(Cat(seed ^ (MIX_SALT & M32), seed ^ WEYL ^ (MIX_SALT >> 32))),
            ),
        ]

        # Issue ------------------------------------------------------------------------------------
        pres_tag, pres_lba, pres_new, pres_write = Signal(5), Signal(LBA_WIDTH), Signal(), Signal()
        pick_re, retire_withdrawn, taken = Signal(), Signal(), Signal()
        sink = ncq.sink
        self.comb += [
            sink.write.eq(pres_write),
            sink.fua.eq(0),
            sink.tag.eq(pres_tag),
            sink.lba.eq(pres_lba),
            sink.count.eq(nsect[:16]),
            lba_r.adr.eq(re_tag),
            lba_w.adr.eq(free_tag), lba_w.dat_w.eq(Cat(seq.lba, next_write)), lba_w.we.eq(pick_new),
            time_w.adr.eq(free_tag), time_w.dat_w.eq(now), time_w.we.eq(pick_new),
            seq.next.eq(pick_new),
            taken.eq(sink.valid & sink.ready),
        ]
        self.issue = issue = FSM(reset_state="PICK")
        issue.act("PICK",
            If(~running | hist.busy,          # (the histogram clears in the run's first cycles)
            ).Elif(re_any & ~fatal,
                pick_re.eq(1),
                NextValue(pres_tag, re_tag), NextValue(pres_lba, lba_r.dat_r[:LBA_WIDTH]),
                NextValue(pres_write, lba_r.dat_r[LBA_WIDTH]), NextValue(pres_new, 0),
                NextState("PRESENT")
            ).Elif(~no_more & free_any & seq.ready,
                pick_new.eq(1),
                NextValue(pres_tag, free_tag), NextValue(pres_lba, seq.lba), NextValue(pres_new, 1),
                NextValue(pres_write, next_write),
                NextState("PRESENT")
            )
        )
        issue.act("PRESENT",
            sink.valid.eq(running & ~fatal),
            If(~running | fatal,
                # The command never reached the drive: a new one is forgotten, a re-issue fails.
                retire_withdrawn.eq(running),
                NextState("COOL")
            ).Elif(sink.ready,
                NextState("COOL")
            )
        )
        issue.act("COOL", NextState("PICK"))

        # Completions: the SDB's time per tag, then one tag per cycle through a short pipeline
        # (pick the lowest pending tag; read both times; subtract) that records its latency and
        # frees the tag.
        done = Signal(32)
        self.comb += done.eq(Mux(running, ncq.done & busy_tags, 0))
        for t in range(QD_MAX):
            self.sync += If(done[t], done_time[t].eq(now))
        ok_c, ok_any_c, fail_c, fail_any_c = Signal(5), Signal(), Signal(5), Signal()
        ok_bit, fail_bit = Signal(32), Signal(32)
        self.comb += lowest_set(pend_ok, QD_MAX, ok_c, ok_any_c, ok_bit)
        self.comb += lowest_set(pend_fail, QD_MAX, fail_c, fail_any_c, fail_bit)
        p1_tag, p1_valid, p2_tag, p2_valid = Signal(5), Signal(), Signal(5), Signal()
        p2_done, p2_issue = Signal(32), Signal(32)
        lat_value, lat_we = Signal(32), Signal()
        self.comb += time_r.adr.eq(p1_tag)
        self.sync += [
            p1_tag.eq(ok_c), p1_valid.eq(ok_any_c & running),
            p2_tag.eq(p1_tag), p2_valid.eq(p1_valid & running),
            p2_done.eq(done_time[p1_tag]), p2_issue.eq(time_r.dat_r),
            lat_value.eq(p2_done - p2_issue), lat_we.eq(p2_valid & running),
        ]
        retire_ok = Signal(32)
        retire_fail = Signal(32)
        lat_tag, lat_write = Signal(5), Signal()
        self.sync += [lat_tag.eq(p2_tag), lat_write.eq(Array(tag_write)[p2_tag])]
        self.comb += [
            retire_ok.eq(Mux(lat_we, 1 << lat_tag, 0)),
            retire_fail.eq(Mux(running, fail_bit, 0)),
            lat.clear.eq(clear_stats), lat.we.eq(lat_we), lat.value.eq(lat_value),
            hist.clear.eq(clear_stats), hist.we.eq(lat_we), hist.value.eq(lat_value),
            hist.select.eq(self.hist_select.storage), self.hist_data.status.eq(hist.data),
        ]

        # NCQ errors.
        err = Signal()
        err_tagged, err_timeout, err_timed = Signal(), Signal(), Signal()
        self.comb += [
            err.eq(ncq.error & running),
            # Pinned on one tag: log 10h named it (the drive aborted the rest: `aborted`), or the
            # layer failed a tag the drive completed after its Data FIS failed (DATA_CRC: aborted
            # is 0, the other tags stay outstanding and complete as usual).
            err_tagged.eq(((ncq.error_reason == NCQ_REASON["DEVICE_ERROR"]) |
                           (ncq.error_reason == NCQ_REASON["DATA_CRC"])) & ncq.error_tag_valid),
            err_timeout.eq(reduce(or_, [ncq.error_reason == r for r in NCQ_RESET_REASONS])),
            err_timed.eq(reduce(or_, [ncq.error_reason == r for r in NCQ_TIMEOUT_REASONS])),
        ]

        # Tag bookkeeping.
        new_bit = Signal(32)
        self.comb += new_bit.eq(Mux(pick_new, 1 << free_tag, 0))
        for t in range(QD_MAX):
            self.sync += If(new_bit[t], tag_write[t].eq(next_write))
        withdrawn = Signal(32)
        self.comb += withdrawn.eq(Mux(retire_withdrawn, 1 << pres_tag, 0))
        re_taken = Signal(32)
        self.comb += re_taken.eq(Mux(taken & ~pres_new, 1 << pres_tag, 0))
        # (The layer takes no command in the cycle it reports an error; re_taken is still
        # honoured there so that a re-issue in flight is never sent twice.)
        self.sync += [
            If(~running,
                busy_tags.eq(0), reissue.eq(0), pend_ok.eq(0), pend_fail.eq(0),
            ).Else(
                busy_tags.eq((busy_tags | new_bit) & ~retire_ok & ~retire_fail &
                             ~Mux(pres_new, withdrawn, 0)),
                pend_ok.eq((pend_ok & ~ok_bit) | done),
                If(err,
                    If(err_tagged & ~err_timeout,
                        reissue.eq(((reissue & ~re_taken) | ncq.aborted) & busy_tags),
                        pend_fail.eq((pend_fail & ~retire_fail) | (1 << ncq.error_tag)),
                    ).Else(
                        reissue.eq(0),
                        pend_fail.eq((pend_fail & ~retire_fail) | ((ncq.aborted | reissue) & busy_tags)),
                    )
                ).Else(
                    reissue.eq(reissue & ~re_taken),
                    # (A re-issue is withdrawn only after an untagged error, which already moved
                    # it to pend_fail.)
                    pend_fail.eq(pend_fail & ~retire_fail),
                ),
            ),
        ]

        # Counters. A failure is counted by op one cycle after `completed` (the op of its tag is
        # registered first, off the pending-tag chain): it lands on the edge the run ends at the
        # earliest, since the tag is retired (busy) on the same edge as `completed` counts it.
        done_reads, done_writes = Signal(32), Signal(32)
        fail_read, fail_write = Signal(), Signal()
        self.sync += [fail_read.eq((retire_fail & ~tag_write) != 0),
                      fail_write.eq((retire_fail & tag_write) != 0)]
        rd, wr = ncq.rd_source, ncq.wr_sink
        # `cycles` takes the time of the last completion or layer error one cycle later, from
        # registers: its 64 enables are then off the path from the received FIS through the
        # layer's `done` and `error` (sys' longest path on ECP5 when they ended there).
        stamp, stamp_time = Signal(), Signal(64)
        self.sync += [stamp.eq((done != 0) | err), stamp_time.eq(run_timer)]
        # A dword is counted one cycle after it moved: the 64 enables of `bytes` are then off the
        # path from the link's `ready` through the layer's write data (sys' longest on ECP5).
        # `cycles` is stamped one cycle after the last completion, which follows the last dword.
        data_beat = Signal()
        self.comb += rd.ready.eq(1)
        # write dwords the layer sent (not those it dropped after a DMAT)
        self.sync += data_beat.eq((rd.valid & rd.ready) | ncq.wr_sent)
        self.sync += [
            If(clear_stats,
                timing.eq(0), run_timer.eq(0), bytes_.eq(0), completed.eq(0), errors.eq(0),
                cycles.eq(0), ncq_errors.eq(0), reissued.eq(0), issued.eq(0),
                done_reads.eq(0), done_writes.eq(0), issued_all.eq(0),
                ncq_reason.eq(0), ncq_tag.eq(0), ncq_tag_valid.eq(0), ncq_lba.eq(0),
            ).Else(
                issued_all.eq(issued == ncmds),
                If(pick_new & ~timing,
                    timing.eq(1), run_timer.eq(0),
                ).Elif(timing,
                    run_timer.eq(run_timer + 1),
                ),
                If(pick_new, issued.eq(issued + 1), last_lba.eq(seq.lba)),
                If(pick_re, reissued.eq(reissued + 1)),
                If(data_beat, bytes_.eq(bytes_ + 4)),
                If(stamp, cycles.eq(stamp_time)),
                If(lat_we | (retire_fail != 0),
                    completed.eq(completed + (lat_we + (retire_fail != 0))),
                ),
                If(retire_fail != 0, errors.eq(errors + 1)),
                If((lat_we & ~lat_write) | fail_read,
                    done_reads.eq(done_reads + ((lat_we & ~lat_write) + fail_read)),
                ),
                If((lat_we & lat_write) | fail_write,
                    done_writes.eq(done_writes + ((lat_we & lat_write) + fail_write)),
                ),
                If(err,
                    ncq_errors.eq(ncq_errors + 1),
                    ncq_reason.eq(ncq.error_reason),
                    ncq_tag.eq(ncq.error_tag), ncq_tag_valid.eq(ncq.error_tag_valid),
                    ncq_lba.eq(ncq.error_lba),
                ),
            ),
        ]
        self.sync += If(~running, timing.eq(0))

        # The deepest queue at the drive (pipelined popcount of the layer's outstanding tags).
        out_r, depth, depth_max = Signal(32), Signal(6), Signal(6)
        self.sync += [
            out_r.eq(ncq.outstanding),
            depth.eq(popcount(out_r)),
            If(clear_stats, depth_max.eq(0)).Elif(running & (depth > depth_max), depth_max.eq(depth)),
        ]

        # Write data: the pattern of the tag's sectors from the requested dword offset. The layer
        # sends whole Data FISes of 8 KiB, unless the drive ended one early with DMAT: then the
        # rest starts inside a sector, and the pattern is stepped to that dword first.
        w_tag, w_lba, w_n, w_cnt = Signal(5), Signal(LBA_WIDTH), Signal(12), Signal(12)
        w_skip = Signal(7)
        w_wait = Signal(max=PatternUnit.LOAD_LATENCY + 1)
        self.comb += [lba_wr.adr.eq(w_tag), pattern.lba.eq(w_lba), pattern.data.eq(0),
                      pattern.check.eq(0), pattern.clear.eq(clear_stats)]
        self.wfsm = wfsm = FSM(reset_state="IDLE")
        wfsm.act("IDLE",
            If(running & ncq.wr_req.valid,
                NextValue(w_tag, ncq.wr_req.tag),
                NextValue(w_n, ncq.wr_req.dwords),
                NextValue(w_cnt, 0),
                NextValue(w_wait, 0),
                NextState("LBA")
            )
        )
        wfsm.act("LBA",
            NextValue(w_lba, lba_wr.dat_r[:LBA_WIDTH] + ncq.wr_req.offset[7:]),
            NextValue(w_skip, ncq.wr_req.offset[:7]),
            NextState("LOAD")
        )
        wfsm.act("LOAD",
            NextValue(w_wait, w_wait + 1),
            If(w_wait == PatternUnit.LOAD_LATENCY,
                pattern.load.eq(1),
                NextState("SKIP")
            )
        )
        wfsm.act("SKIP",
            If(w_skip == 0,
                NextState("REQ")
            ).Else(
                pattern.advance.eq(1),
                NextValue(w_skip, w_skip - 1)
            )
        )
        wfsm.act("REQ",
            ncq.wr_req.ready.eq(1),
            NextState("DATA")
        )
        wfsm.act("DATA",
            wr.valid.eq(1),
            wr.last.eq(w_cnt == w_n - 1),
            If(wr.ready,
                pattern.advance.eq(1),
                NextValue(w_cnt, w_cnt + 1),
                If(wr.last, NextState("IDLE"))
            )
        )
        self.comb += wr.data.eq(pattern.value)
        for st in ("LBA", "LOAD", "SKIP", "REQ", "DATA"):
            wfsm.act(st, If(~running, NextState("IDLE")))

        # Watchdog: `timeout` cycles without any progress end the run (the layer's own timeouts
        # normally come first). Progress is a change of the engine's own registers (the counters
        # of issued, re-issued, completed and failed commands, data dwords, layer errors, the
        # completion time, a command taken), seen one cycle late: the events themselves come
        # through the core's handshakes, and resetting the counter from them made sys' longest
        # path on ECP5 (from the PHY's receive FIFO through the link layer and the queue share).
        silence, stalled, progress = Signal(32), Signal(), Signal()
        watch = Cat(issued[:8], reissued[:8], bytes_[2:10], completed[:8], errors[:8],
                    ncq_errors[:8], cycles[:8], issue.ongoing("COOL"))
        watch_d = Signal(len(watch))
        self.comb += progress.eq(watch != watch_d)
        self.sync += [
            watch_d.eq(watch),
            If(~running | progress, silence.eq(0)).Else(silence.eq(silence + 1)),
            stalled.eq(running & (tmo != 0) & (silence >= tmo)),
        ]
        reset_now = Signal()
        self.add_core_reset(reset_now)

        # Run control: run.py's start states, then RUN until the queue is empty.
        drained = Signal()
        self.comb += drained.eq(no_more & (busy_tags == 0) & issue.ongoing("PICK") & ~wfsm.ongoing("DATA"))
        end_run = self.end_run
        fsm = self.add_run_fsm(
            ready=seq.ready & ~self.core_reset,
            on_run=[
                clear_stats.eq(1),
                seq.start.eq(1),
                mix_load.eq(1),
                NextValue(dev_err, 0),
                NextValue(fatal, 0),
                NextState("RUN")
            ])
        link_up = self.link
        fsm.act("RUN",
            running.eq(1),
            If(~link_up,
                *end_run(STATE_ERROR, REASON_LINK_LOST)
            ).Elif(stalled | (err & err_timeout),
                reset_now.eq(1),
                # The drive broke the protocol, or its log 10h failed: a protocol error; the
                # layer's own timeouts and a stalled run: a timeout.
                If(~stalled & ~err_timed,
                    *end_run(STATE_ERROR, REASON_PROTOCOL)
                ).Else(
                    *end_run(STATE_ERROR, REASON_TIMEOUT)
                )
            ).Else(
                If(err,
                    NextValue(dev_err, 1),
                    If(~err_tagged, NextValue(fatal, 1)),
                ),
                If(drained & ~err,
                    If(dev_err,
                        *end_run(STATE_ERROR, REASON_DEVICE_ERROR)
                    ).Elif(abort_req,
                        *end_run(STATE_DONE, REASON_ABORTED)
                    ).Else(
                        *end_run(STATE_DONE, REASON_OK)
                    )
                )
            )
        )
        self.sync += If(self.control.fields.abort & running, abort_req.eq(1))

        # CSR outputs.
        self.add_stats_csrs("lat", lat)
        self.comb += [
            self.depth_max.status.eq(depth_max),
            self.ncq_errors.status.eq(ncq_errors),
            self.ncq_reason.status.eq(ncq_reason),
            self.ncq_tag.fields.tag.eq(ncq_tag),
            self.ncq_tag.fields.valid.eq(ncq_tag_valid),
            self.ncq_lba.status.eq(ncq_lba),
            self.reissued.status.eq(reissued),
            self.completed_reads.status.eq(done_reads),
            self.completed_writes.status.eq(done_writes),
        ]
        self.add_run_outputs()
