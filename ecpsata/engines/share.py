# SPDX-License-Identifier: BSD-2-Clause
"""One LBA sequencer and one pattern unit for the two benchmark engines.

The block engine (engine.py) and the queued engine (queued.py) each need an LBA sequencer and a
pattern generator, and the host runs one engine at a time. A copy of the two units (the
sequencer's 64-bit generator, divider and multiplier, the pattern's seven mix32 networks) is
1,924 TRELLIS_COMB and 856 flip-flops in nextpnr's count of either board's build, so the SoC
builds them once and lends them to the engine that runs.

`EngineUnits(nports)` holds the units; each engine takes one of its `ports`, a `UnitsPort` with
the units' inputs as signals of its own, their outputs as the units' own, an `idle` to drive (the
engine's run FSM is in IDLE) and an `owns` to read. The units follow one port, `owner`: it passes to
another port only in a cycle where the owner is idle and that port is not (the lowest such port),
so a run keeps the units to its end. An engine that leaves IDLE without the units (the other runs)
ends its run refused at its CHECK state (run.py), before it drives any input: nothing is issued,
and the running engine's LBAs and data are untouched.

The pattern checker's counters (mismatch_dwords, mismatch_sectors, first_bad_lba) count only what
an engine checks; the queued engine checks nothing, so they stay the block engine's.
"""

from migen import *

from litex.gen import LiteXModule

from ecpsata.engines.pattern import PatternUnit
from ecpsata.engines.sequencer import LBASequencer

# The units' inputs an engine drives, and the outputs it reads.
SEQ_INPUTS      = ("base", "range", "sectors", "random", "seed", "start", "next")
SEQ_OUTPUTS     = ("lba", "ready")
PATTERN_INPUTS  = ("seed", "lba", "load", "advance", "check", "data", "clear")
PATTERN_OUTPUTS = ("value", "mismatch", "mismatch_dwords", "mismatch_sectors", "first_bad_lba",
                   "first_bad_valid")


class _View:
    """A unit as one engine sees it: signals of its own for the inputs, the unit's outputs."""
    def __init__(self, unit, inputs, outputs, prefix):
        for name in inputs:
            setattr(self, name, Signal.like(getattr(unit, name), name=f"{prefix}_{name}"))
        for name in outputs:
            setattr(self, name, getattr(unit, name))


class UnitsPort:
    """An engine's port to EngineUnits: `seq` and `pattern` (as LBASequencer and PatternUnit),
    `idle` (in: the engine's run FSM is in IDLE), `owns` (out: the units follow this port)."""
    def __init__(self, units, index):
        self.index   = index
        self.seq     = _View(units.seq, SEQ_INPUTS, SEQ_OUTPUTS, f"share{index}_seq")
        self.pattern = _View(units.pattern, PATTERN_INPUTS, PATTERN_OUTPUTS,
                             f"share{index}_pattern")
        self.idle    = Signal(reset=1, name=f"share{index}_idle")
        self.owns    = Signal(name=f"share{index}_owns")


class EngineUnits(LiteXModule):
    """The shared LBASequencer and PatternUnit, lent to one port at a time (module docstring)."""
    def __init__(self, nports=2):
        assert nports >= 1
        self.seq     = LBASequencer()
        self.pattern = PatternUnit()
        self.ports   = [UnitsPort(self, i) for i in range(nports)]
        self.owner   = Signal(max=max(nports, 2))

        # # #

        # The lowest port wins a handover (in Migen's sync the last assignment counts).
        owner_idle = Array(p.idle for p in self.ports)[self.owner]
        self.sync += [If(owner_idle & ~p.idle, self.owner.eq(p.index))
                      for p in reversed(self.ports)]
        for i, p in enumerate(self.ports):
            self.comb += p.owns.eq(self.owner == i)
        for unit, inputs, view in ((self.seq, SEQ_INPUTS, "seq"),
                                   (self.pattern, PATTERN_INPUTS, "pattern")):
            for name in inputs:
                choices = Array(getattr(getattr(p, view), name) for p in self.ports)
                self.comb += getattr(unit, name).eq(choices[self.owner])
