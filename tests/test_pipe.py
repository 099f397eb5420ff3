# SPDX-License-Identifier: BSD-2-Clause
"""ReadyPipe (ecpsata/pipe.py): the beats, their order and the handshakes of LiteX's
PipeReady, cycle for cycle, under random valid and ready."""

import random

from migen import *
from litex.soc.interconnect import stream

import pytest

from ecpsata.pipe import ReadyPipe


class Pair(Module):
    """Ours and LiteX's, fed the same sink beats and the same source ready."""
    def __init__(self, ours, ref):
        self.submodules.ours = ours
        self.submodules.ref  = ref
        self.valid, self.data, self.ready = Signal(), Signal(16), Signal()
        for p in (self.ours, self.ref):
            self.comb += [p.sink.valid.eq(self.valid), p.sink.data.eq(self.data),
                          p.source.ready.eq(self.ready)]


@pytest.mark.parametrize("ours, ref", [
    (lambda l: ReadyPipe(l), lambda l: stream.PipeReady(l)),
], ids=["ReadyPipe"])
def test_pipe_matches_litex_cycle_for_cycle(ours, ref):
    rng = random.Random(7)
    dut = Pair(ours([("data", 16)]), ref([("data", 16)]))
    seen = {"ours": [], "ref": [], "cycles": 0, "held": 0}

    def gen():
        data = 1
        for _ in range(3000):
            yield dut.valid.eq(rng.random() < 0.6)
            yield dut.data.eq(data)
            yield dut.ready.eq(rng.random() < 0.5)
            yield
            o, r = dut.ours, dut.ref
            for name in ("sink.ready", "source.valid", "source.data"):
                a = yield getattr(getattr(o, name.split(".")[0]), name.split(".")[1])
                b = yield getattr(getattr(r, name.split(".")[0]), name.split(".")[1])
                assert a == b, f"{name} differs at cycle {seen['cycles']}: ours {a}, LiteX {b}"
            if (yield o.source.valid) and (yield o.source.ready):
                seen["ours"].append((yield o.source.data))
            if (yield r.source.valid) and (yield r.source.ready):
                seen["ref"].append((yield r.source.data))
            if not (yield o.sink.ready):
                seen["held"] += 1
            if (yield dut.valid) and (yield o.sink.ready):
                data += 1
            seen["cycles"] += 1

    run_simulation(dut, gen())
    assert seen["ours"] == seen["ref"]
    assert len(seen["ours"]) > 500 and seen["held"] > 200       # both paths were taken
    assert seen["ours"] == sorted(set(seen["ours"]))             # in order, none twice

