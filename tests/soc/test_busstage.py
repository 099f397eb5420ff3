# SPDX-License-Identifier: BSD-2-Clause
"""WishboneStage (ecpsata/soc/busstage.py): writes and reads reach the slave once each, with their
data and byte selects, and the slave's answer (data, ack or err) comes back to the master."""

import random

from migen import *
from litex.soc.interconnect import wishbone

from ecpsata.soc.busstage import WishboneStage


class Dut(Module):
    """A stage in front of a slave that answers `waits` cycles after it is asked and counts the
    accesses it answers, with an `err` instead of an ack at one address."""
    ERR_ADR = 0x3f

    def __init__(self, waits):
        self.master = wishbone.Interface(data_width=32, address_width=32, addressing="word")
        self.submodules.stage = WishboneStage(self.master)
        bus = self.stage.bus
        self.mem = Memory(32, 64)
        self.specials += self.mem
        self.accesses = Signal(16)
        wait = Signal(4)
        port = self.mem.get_port(write_capable=True, we_granularity=8, async_read=True)
        self.specials += port
        self.comb += [port.adr.eq(bus.adr[:6]), port.dat_w.eq(bus.dat_w), bus.dat_r.eq(port.dat_r)]
        answer = Signal()
        self.comb += answer.eq(bus.cyc & bus.stb & (wait == 0) & ~bus.ack & ~bus.err)
        self.sync += [
            bus.ack.eq(0), bus.err.eq(0),
            If(bus.cyc & bus.stb & ~bus.ack & ~bus.err,
                If(wait != 0, wait.eq(wait - 1))
            ),
            If(answer,
                self.accesses.eq(self.accesses + 1),
                wait.eq(waits),
                If(bus.adr[:6] == self.ERR_ADR, bus.err.eq(1)).Else(bus.ack.eq(1)),
            ),
        ]
        self.comb += [port.we[i].eq(answer & bus.we & bus.sel[i] & (bus.adr[:6] != self.ERR_ADR))
                      for i in range(4)]


def access(m, adr, data=None, sel=0xf):
    """One Wishbone classic access: (ack, err, dat_r)."""
    yield m.adr.eq(adr)
    yield m.we.eq(data is not None)
    yield m.dat_w.eq(data or 0)
    yield m.sel.eq(sel)
    yield m.cyc.eq(1)
    yield m.stb.eq(1)
    for _ in range(64):
        yield
        ack, err = (yield m.ack), (yield m.err)
        if ack or err:
            dat = yield m.dat_r
            yield m.cyc.eq(0)
            yield m.stb.eq(0)
            return ack, err, dat
    raise AssertionError(f"no answer to an access at {adr:#x} within 64 cycles")


def test_stage_passes_each_access_once_with_its_data_and_answer():
    rng = random.Random(3)
    for waits in (0, 3):
        dut = Dut(waits)
        model = [0] * 64
        seen = {"accesses": 0}

        def gen():
            for _ in range(200):
                adr = rng.randrange(0x3f)
                if rng.random() < 0.5:
                    data, sel = rng.getrandbits(32), rng.choice([0xf, 0x1, 0x6, 0x8])
                    ack, err, _ = yield from access(dut.master, adr, data, sel)
                    assert (ack, err) == (1, 0)
                    mask = sum(0xff << 8 * i for i in range(4) if sel >> i & 1)
                    model[adr] = (model[adr] & ~mask) | (data & mask)
                else:
                    ack, err, dat = yield from access(dut.master, adr)
                    assert (ack, err, dat) == (1, 0, model[adr]), f"read at {adr:#x}"
                if rng.random() < 0.3:
                    yield       # an idle cycle between accesses now and then
            ack, err, _ = yield from access(dut.master, Dut.ERR_ADR)
            assert (ack, err) == (0, 1), "the slave's err did not come back"
            ack, err, dat = yield from access(dut.master, 5)
            assert (ack, err, dat) == (1, 0, model[5]), "an access after an err"
            for _ in range(4):
                yield
            seen["accesses"] = yield dut.accesses

        run_simulation(dut, gen())
        assert seen["accesses"] == 202, f"the slave was asked {seen['accesses']} times for 202 accesses"
