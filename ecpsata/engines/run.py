# SPDX-License-Identifier: BSD-2-Clause
"""Run control shared by the benchmark engines (engine.py, queued.py).

Both engines are driven the same way by the firmware and the host: the same control, snapshot and
range CSRs, the same status (state and reason, common.py), the same start sequence (latch the
parameters, validate them in two registered steps, refuse or check the link, then run), the same
end-of-run bookkeeping, the same core reset pulse after a timeout and the same counters. `RunControl`
holds that part once; each engine adds its own configuration fields, CSRs and sequencer.

The CSR names are prefix-free so that both engines keep the names the firmware (bench.c, qbench.c)
and the host (ecpsata/host/) read.
"""

from migen import *

from litex.gen import LiteXModule
from litex.soc.interconnect.csr import CSRStorage, CSRStatus, CSRField

from ecpsata.engines.pattern import PatternUnit
from ecpsata.engines.sequencer import LBASequencer
from ecpsata.engines.common import (LBA_WIDTH, MAX_SECTORS, REASONS, REASON_OK, REASON_REFUSED,
                                    REASON_LINK_LOST, STATE_IDLE, STATE_BUSY, STATE_ERROR)

CORE_RESET_CYCLES = 16      # length of the core reset pulse after a timeout


class RunParameters:
    """The run's parameters, latched from the CSRs at start: one signal per configuration field
    (by its name) plus nsect, ncmds, base, rng, seed, capacity and tmo."""


class RunControl(LiteXModule):
    """Base class of the engines. Call, in order: `add_run_csrs` (CSRs and the latched
    parameters), `add_validation`, `add_run_fsm` (the FSM's start states; the engine adds its own
    and ends runs with `end_run`), `add_core_reset`, `add_run_outputs`.

    Signals: `core_reset` (out: pulse after a timeout, OR it into the core's reset), `idle` (out:
    not running), `link_up` (in: the PHY is ready), `link` (link_up registered), `clear_stats`
    (clears the counters), and the counters the engine updates: `run_timer`, `timing`, `bytes`,
    `completed`, `errors`, `cycles`, `last_lba`.
    """
    def add_run_csrs(self, sys_clk_freq, default_timeout_s, config_fields, abort_description,
                     status_fields=(), queue=None):
        self.core_reset = Signal()
        self.idle       = Signal()
        self.link_up    = Signal(reset=1)
        self.owns       = Signal(reset=1)      # the LBA sequencer and pattern unit are ours

        self.control = CSRStorage(fields=[
            CSRField("start", size=1, pulse=True, description="Start a run."),
            CSRField("clear", size=1, pulse=True, description="Clear every counter (when idle)."),
            CSRField("abort", size=1, pulse=True, description=abort_description),
        ])
        self.snapshot = CSRStorage(fields=[
            CSRField("latch", size=1, pulse=True, description="Latch live counters into snap_*."),
        ])
        self.config = CSRStorage(fields=config_fields)
        if queue is not None:
            self.qd = queue
        self.lba_base  = CSRStorage(LBA_WIDTH)
        self.lba_range = CSRStorage(LBA_WIDTH)
        self.sectors   = CSRStorage(17, reset=1)
        self.commands  = CSRStorage(32, reset=1)
        self.seed      = CSRStorage(32)
        self.capacity  = CSRStorage(LBA_WIDTH)
        self.timeout   = CSRStorage(32, reset=min(2**32 - 1, int(default_timeout_s*sys_clk_freq)))

        self.status = CSRStatus(fields=[
            CSRField("state", size=2, values=[("0", "idle"), ("1", "busy"), ("2", "done"), ("3", "error")]),
            CSRField("reason", size=3, values=[(str(k), v) for k, v in REASONS.items()]),
            *status_fields,
        ])
        self.cycles    = CSRStatus(64)
        self.bytes     = CSRStatus(64)
        self.completed = CSRStatus(32)
        self.errors    = CSRStatus(32)
        self.last_lba  = CSRStatus(LBA_WIDTH)
        self.snap_cycles    = CSRStatus(64)
        self.snap_bytes     = CSRStatus(64)
        self.snap_completed = CSRStatus(32)
        self.snap_errors    = CSRStatus(32)

        # Parameters, latched at start.
        p = self.params = RunParameters()
        self.latch = []
        for f in self.config.fields.fields:
            s = Signal(f.size, name=f.name)
            setattr(p, f.name, s)
            self.latch.append(s.eq(getattr(self.config.fields, f.name)))
        for name, csr in (("nsect", self.sectors), ("ncmds", self.commands), ("base", self.lba_base),
                          ("rng", self.lba_range), ("seed", self.seed), ("capacity", self.capacity),
                          ("tmo", self.timeout)):
            s = Signal(len(csr.storage), name=name)
            setattr(p, name, s)
            self.latch.append(s.eq(csr.storage))

        # Run state and counters.
        self.state       = Signal(2)
        self.reason      = Signal(3)
        self.abort_req   = Signal()
        self.clear_stats = Signal()
        self.run_timer   = Signal(64)
        self.timing      = Signal()
        self.bytes_      = Signal(64)
        self.completed_  = Signal(32)
        self.errors_     = Signal(32)
        self.cycles_     = Signal(64)
        self.last_lba_   = Signal(LBA_WIDTH)

    def add_validation(self, span, refuse_also):
        """`refuse` = bad parameters, registered in two steps (the 49-bit end of the range, then the
        compares) so that it stays off the critical path; the FSM waits for it (VALIDATE,
        VALIDATE2). `refuse_also(span_end)`: the engine's own conditions."""
        p = self.params
        self.span_end = span_end = Signal(LBA_WIDTH + 2)
        self.refuse   = refuse   = Signal()
        self.sync += [
            span_end.eq(p.base + span),
            refuse.eq((p.nsect == 0) | (p.nsect > MAX_SECTORS) | (span_end > p.capacity) |
                      refuse_also(span_end)),
        ]

    def end_run(self, new_state, new_reason):
        """FSM actions: the run ends with this state and reason."""
        return [NextValue(self.state, new_state), NextValue(self.reason, new_reason),
                NextState("IDLE")]

    def add_run_fsm(self, ready, on_run):
        """The run FSM's start: IDLE (start latches the parameters and shows busy from the next
        cycle, so that a CPU polling right after its start write never sees the previous run's
        done; clear clears the counters), VALIDATE, VALIDATE2, CHECK (refused: bad parameters or
        the other engine holds the shared units; link lost; or
        `on_run` once `ready`). Returns the FSM for the engine's states."""
        # link_up is registered first: it comes from the PHY's and the error block's state.
        self.link = link = Signal()
        self.sync += link.eq(self.link_up)
        self.fsm = fsm = FSM(reset_state="IDLE")
        fsm.act("IDLE",
            If(self.control.fields.start,
                *[NextValue(s.l, s.r) for s in self.latch],
                NextValue(self.abort_req, 0),
                NextValue(self.state, STATE_BUSY),
                NextState("VALIDATE")
            ).Elif(self.control.fields.clear,
                self.clear_stats.eq(1),
                NextValue(self.state, STATE_IDLE),
                NextValue(self.reason, REASON_OK),
            )
        )
        fsm.act("VALIDATE",  NextState("VALIDATE2"))    # span_end registered
        fsm.act("VALIDATE2", NextState("CHECK"))        # refuse registered
        fsm.act("CHECK",
            If(self.refuse | ~self.owns,
                *self.end_run(STATE_ERROR, REASON_REFUSED)
            ).Elif(~link,
                *self.end_run(STATE_ERROR, REASON_LINK_LOST)
            ).Elif(ready,
                *on_run
            )
        )
        self.comb += self.idle.eq(fsm.ongoing("IDLE"))
        return fsm

    def add_units(self, units):
        """The LBA sequencer and the pattern unit: built here when `units` is None, else a port
        of the SoC's EngineUnits (share.py), which the engine then needs to own for a run (a run
        started while the other engine has them ends refused). Returns (sequencer, pattern)."""
        if units is None:
            self.seq     = LBASequencer()
            self.pattern = PatternUnit()
            return self.seq, self.pattern
        self.comb += [units.idle.eq(self.idle), self.owns.eq(units.owns)]
        return units.seq, units.pattern

    def add_core_reset(self, trigger):
        """`core_reset` high for CORE_RESET_CYCLES from the cycle after `trigger`."""
        count = Signal(max=CORE_RESET_CYCLES + 1)
        self.comb += self.core_reset.eq(count != 0)
        self.sync += If(trigger, count.eq(CORE_RESET_CYCLES)).Elif(count != 0, count.eq(count - 1))

    def add_stats_csrs(self, name, acc):
        """name_min/max/sum (64 bits) and name_count (32) from a MinMaxSum; min reads 0 while the
        count is 0."""
        for what in ("min", "max", "sum"):
            setattr(self, f"{name}_{what}", CSRStatus(64, name=f"{name}_{what}"))
        setattr(self, f"{name}_count", CSRStatus(32, name=f"{name}_count"))
        self.comb += [
            getattr(self, f"{name}_min").status.eq(Mux(acc.count == 0, 0, acc.min)),
            getattr(self, f"{name}_max").status.eq(acc.max),
            getattr(self, f"{name}_sum").status.eq(acc.sum),
            getattr(self, f"{name}_count").status.eq(acc.count),
        ]

    def add_run_outputs(self, snapshot_also=()):
        """The status and counter CSRs, and the snapshot (`snapshot_also`: the engine's own snap_*
        statements)."""
        self.comb += [
            self.status.fields.state.eq(self.state),
            self.status.fields.reason.eq(self.reason),
            self.cycles.status.eq(self.cycles_),
            self.bytes.status.eq(self.bytes_),
            self.completed.status.eq(self.completed_),
            self.errors.status.eq(self.errors_),
            self.last_lba.status.eq(self.last_lba_),
        ]
        self.sync += If(self.snapshot.fields.latch,
            self.snap_cycles.status.eq(self.run_timer),
            self.snap_bytes.status.eq(self.bytes_),
            self.snap_completed.status.eq(self.completed_),
            self.snap_errors.status.eq(self.errors_),
            *snapshot_also
        )
