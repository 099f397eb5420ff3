# SPDX-License-Identifier: BSD-2-Clause
"""ecpsata/engines/share.py: one LBA sequencer and pattern unit lent to the engine that runs.

The block engine runs on port 0 against the user port model (tests/support/sata_port_model.py);
port 1 stands for the queued engine, its inputs driven by the test with values of its own, so a
run that took any of them would show wrong LBAs or data."""

import pytest
from migen import *

from ecpsata.engines.common import *
from ecpsata.engines.engine import ECPSATABenchEngine
from ecpsata.engines.pattern import PatternUnit
from ecpsata.engines.sequencer import LBASequencer
from ecpsata.engines.share import (EngineUnits, PATTERN_INPUTS, PATTERN_OUTPUTS, SEQ_INPUTS,
                                   SEQ_OUTPUTS)
from ecpsata.frontend.crossbar import ECPSATAUserPort
from tests.engines.test_engine import configure, pulse, results, simulate, wait_idle
from tests.support.sata_port_model import SATAPortModel


def _signals(module):
    return {k for k, v in vars(module).items() if isinstance(v, Signal) and not k.startswith("_")}


def test_views_name_every_signal_of_the_units():
    """A signal added to a unit must be routed by the share: as an input or an output."""
    assert _signals(LBASequencer()) == set(SEQ_INPUTS) | set(SEQ_OUTPUTS)
    assert _signals(PatternUnit()) == set(PATTERN_INPUTS) | set(PATTERN_OUTPUTS)


def test_owner_passes_only_from_an_idle_owner_to_a_running_port():
    units = EngineUnits(2)
    p0, p1 = units.ports
    seen = []

    def body():
        yield p0.seq.base.eq(100)
        yield p1.seq.base.eq(200)
        # (p0 idle, p1 idle) for each cycle, then the owner and the sequencer's base after it.
        for idles in ((1, 1), (1, 0), (1, 0), (0, 0), (0, 0), (1, 0), (0, 1), (0, 1), (0, 0),
                      (1, 1), (0, 0)):
            yield p0.idle.eq(idles[0])
            yield p1.idle.eq(idles[1])
            yield
            yield
            seen.append(((yield units.owner), (yield p0.owns), (yield p1.owns),
                         (yield units.seq.base)))
            yield p0.idle.eq(1)
            yield p1.idle.eq(1)

    run_simulation(units, body())
    owners = [s[0] for s in seen]
    # Port 1 takes the units while port 0 is idle and keeps them while it runs, whatever port 0
    # does; port 0 takes them back only once port 1 is idle; both starting at once: the owner
    # keeps them.
    assert owners == [0, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0]
    assert all(s[1] == (s[0] == 0) and s[2] == (s[0] == 1) for s in seen)
    assert [s[3] for s in seen] == [200 if o else 100 for o in owners]


class SharedDUT(Module):
    def __init__(self):
        self.port = ECPSATAUserPort(32)
        self.submodules.units = units = EngineUnits(2)
        self.submodules.engine = ECPSATABenchEngine(self.port, sys_clk_freq=100e6,
                                                    units=units.ports[0])
        self.other = units.ports[1]


@pytest.mark.parametrize("op", ["write_verify", "read"])
def test_a_run_started_while_the_other_engine_holds_the_units_is_refused(op):
    seed, sectors, n = 77, 2, 3
    dut = SharedDUT()
    model = SATAPortModel(dut.port, latency=6, status_latency=2, rate=0.8, ready_rate=0.8,
                          default_seed=seed)
    o = dut.other
    out = {}

    def other():
        # Port 1 starts first (values of its own on every input) and runs 400 cycles, pulsing
        # its sequencer and pattern inputs all along; then it stays idle, still pulsing them.
        yield "passive"
        yield o.seq.base.eq(7)
        yield o.seq.seed.eq(0xBAD)
        yield o.pattern.seed.eq(0xBAD)
        yield o.pattern.lba.eq(5)
        yield o.pattern.data.eq(0x55555555)
        yield o.pattern.check.eq(1)
        yield o.idle.eq(0)
        i = 0
        while True:
            if i == 400:
                yield o.idle.eq(1)
            yield o.pattern.advance.eq(i % 2)
            yield o.pattern.load.eq(i % 7 == 0)
            yield o.seq.next.eq(i % 5 == 0)
            i += 1
            yield

    def body():
        yield
        yield
        yield from configure(dut.engine, op=op, verify=1, random=1, lba_base=0, lba_range=64,
                             sectors=sectors, commands=n, seed=seed)
        yield from pulse(dut.engine.control, "start")
        yield from wait_idle(dut.engine)
        out["refused"] = yield from results(dut.engine)
        out["refused_log"] = list(model.log)
        out["owner"] = yield dut.units.owner
        for _ in range(400):
            yield
        yield from pulse(dut.engine.control, "clear")
        yield from pulse(dut.engine.control, "start")
        yield from wait_idle(dut.engine)
        out["run"] = yield from results(dut.engine)

    simulate(dut, model, body, f"share_{op}", others=[other()])
    r = out["refused"]
    assert out["owner"] == 1
    assert (r["state"], r["reason"]) == (STATE_ERROR, REASON_REFUSED)
    assert out["refused_log"] == [] and r["completed"] == 0
    # The same run once port 1 is idle: the block engine's LBAs, data and checks, not port 1's.
    r = out["run"]
    lbas = random_lbas(seed, 0, 64, sectors, n)
    passes = 2 if op == "write_verify" else 1
    assert [e["lba"] for e in model.log] == lbas * passes
    assert (r["state"], r["reason"]) == (STATE_DONE, REASON_OK)
    assert r["mismatch_dwords"] == 0 and r["completed"] == n * passes
    if op == "write_verify":
        for lba in lbas:
            for s in range(sectors):
                assert model.disk[lba + s] == pattern_sector(seed, lba + s)
