# SPDX-License-Identifier: BSD-2-Clause
"""The Migen simulator's speed-ups give Migen's answers: tests/support/migen_speed.py (the widths
Migen's simulator asks for, remembered only inside a simulation, and Migen's functions back
afterwards) and tests/support/migen_compile.py (statement lists compiled to Python functions: the
same outputs cycle for cycle as Migen's evaluator, on a module with every kind of node and on the
PHY and core through link-up and IDENTIFY)."""

import random

import pytest
from migen import Array, Case, Cat, If, Memory, Module, Mux, Replicate, ResetSignal, Signal
from migen.fhdl import bitcontainer, structure
from migen.fhdl.tools import list_signals
from migen.sim import core

from tests.support import migen_compile
from tests.support.migen_speed import widths_cached
from tests.support.phy_harness import run_word_sim


def test_remembered_widths_are_migen_s_and_leave_nothing_patched():
    a, b = Signal(5), Signal((4, True))
    exprs = [a, b, a + b, a * b, Cat(a, b), a[1:3], -a, a == b, (a + b)[2:]]
    want = [bitcontainer.value_bits_sign(e) for e in exprs]
    originals = (bitcontainer.value_bits_sign, core.value_bits_sign, structure._Value.__len__)
    with widths_cached():
        assert bitcontainer.value_bits_sign is not originals[0]
        with widths_cached():                                  # nested: one patch
            got = [bitcontainer.value_bits_sign(e) for e in exprs]
            again = [core.value_bits_sign(e) for e in exprs]
            lens = [len(e) for e in exprs]
        assert bitcontainer.value_bits_sign is not originals[0]  # the outer one still holds
    assert got == again == want and lens == [n for n, _ in want]
    assert (bitcontainer.value_bits_sign, core.value_bits_sign,
            structure._Value.__len__) == originals


# The compiled simulator (tests/support/migen_compile.py) against Migen's evaluator --------------


class _Kinds(Module):
    """One of each kind of node the compiler turns into Python, in sync and comb logic."""
    def __init__(self):
        self.a, self.b = Signal(8), Signal((8, True))
        self.sel = Signal(3)
        self.outs = outs = [Signal(16), Signal((9, True)), Signal(12), Signal(8), Signal(5),
                            Signal(24), Signal((6, True)), Signal(8), Signal(4), Signal(16)]
        regs = [Signal(8, reset=i * 37) for i in range(6)]
        mem = Memory(8, 16, init=list(range(16)))
        rd, wr = mem.get_port(async_read=True), mem.get_port(write_capable=True)
        self.specials += mem, rd, wr
        word = Signal(16)
        state = Signal(2)
        self.comb += [
            outs[0].eq(Cat(self.a, ~self.a[2:5], self.b[7])),
            outs[1].eq(self.b - self.a + Mux(self.sel[0], -self.b, self.b * 3)),
            outs[2].eq(Replicate(self.sel, 4)),
            outs[3].eq(Array(regs)[self.sel]),
            outs[4].eq((self.a < self.b) | ((self.b >= -3) << 1) | ((self.a != 7) << 2)
                       | (self.a.part(self.sel, 1) << 3)
                       | (ResetSignal(allow_reset_less=True) << 4)),
            rd.adr.eq(self.sel), outs[7].eq(rd.dat_r),
            word.eq(Cat(self.a, self.b)),
            outs[9].eq((word >> self.sel) ^ (word << 2)),
            If(self.a[0],
                outs[8].eq(1),
            ).Elif(self.a[1],
                outs[8].eq(2),
            ).Else(
                Case(self.sel, {0: outs[8].eq(3), 5: outs[8].eq(4), "default": outs[8].eq(5)}),
            ),
        ]
        self.sync += [
            Cat(outs[5][4:12], outs[5][20:]).eq(Cat(self.a, self.sel)),
            outs[5].part(self.sel * 2, 8).eq(self.b),
            outs[6].eq(outs[6] - self.b),
            Array(regs)[self.sel].eq(self.a + 1),
            wr.adr.eq(self.a), wr.dat_w.eq(self.b), wr.we.eq(self.sel == 2),
            Case(state, {0: state.eq(1), 1: If(self.a > 100, state.eq(2)), 2: state.eq(0)}),
        ]


def _trace(monkeypatch, interpret):
    """The outputs of _Kinds, cycle by cycle, under random inputs (same seed every call)."""
    monkeypatch.setenv(migen_compile.INTERPRET, "1" if interpret else "0")
    dut, rng, seen = _Kinds(), random.Random(5), []
    dut.word_ce = Signal(reset=1)

    def proc():
        for _ in range(300):
            yield dut.a.eq(rng.randrange(256))
            yield dut.b.eq(rng.randrange(-128, 128))
            yield dut.sel.eq(rng.randrange(8))
            yield
            row = []
            for o in dut.outs:
                row.append((yield o))
            seen.append(row)
    run_word_sim(dut, {"sys": proc()}, dut.word_ce)
    return seen


def test_compiled_statements_do_what_migen_s_evaluator_does(monkeypatch):
    compiled, interpreted = _trace(monkeypatch, False), _trace(monkeypatch, True)
    assert len(compiled) == 300 and compiled == interpreted
    assert len({tuple(row) for row in compiled}) > 200          # the outputs did move


def _core_run(monkeypatch, interpret):
    """Link-up and an IDENTIFY on the PHY and core against the virtual drive: the command's
    result, the link-up time and every signal's value at the end, in the design's order."""
    from ecpsata.sim import vdrive
    from tests.support.core_harness import command, core_dut, run, wait_ready
    from tests.support.ncq_harness import IDEAL
    from tests.support.phy_harness import now_ns
    monkeypatch.setenv(migen_compile.INTERPRET, "1" if interpret else "0")
    dut, out = core_dut(), {}

    def proc():
        yield from wait_ready(dut)
        out["ready_ns"] = now_ns()
        out["identify"] = yield from command(dut, dict(identify=1))
    sim = run(dut, vdrive.VirtualDrive(IDEAL), proc())
    sv = sim.evaluator.signal_values
    signals = sorted(list_signals(sim.fragment), key=lambda s: s.duid)
    out["state"] = [s.reset.value if sv[s.duid] is None else sv[s.duid] for s in signals]
    return out


@pytest.mark.slow
def test_the_compiled_core_runs_as_the_interpreted_one(monkeypatch):
    compiled, interpreted = _core_run(monkeypatch, False), _core_run(monkeypatch, True)
    assert not compiled["identify"]["failed"] and len(compiled["identify"]["data"]) == 128
    assert compiled["identify"] == interpreted["identify"]
    assert compiled["ready_ns"] == interpreted["ready_ns"]
    assert len(compiled["state"]) > 2000 and compiled["state"] == interpreted["state"]
