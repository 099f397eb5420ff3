# SPDX-License-Identifier: BSD-2-Clause
"""ecpsata/pipe.py against LiteX, cycle for cycle, under random valid and ready: ReadyPipe's
beats, order and handshakes against PipeReady's; LookaheadFIFO's against SyncFIFO's, its level
included, through fills, drains and a write to the head in the cycle that reads it."""

import random

from migen import *
from litex.soc.interconnect import stream

import pytest

from ecpsata.pipe import LookaheadFIFO, ReadyPipe


class Pair(Module):
    """Ours and LiteX's, fed the same sink beats and the same source ready."""
    def __init__(self, ours, ref):
        self.submodules.ours = ours
        self.submodules.ref  = ref
        self.valid, self.data, self.last, self.ready = Signal(), Signal(16), Signal(), Signal()
        for p in (self.ours, self.ref):
            self.comb += [p.sink.valid.eq(self.valid), p.sink.data.eq(self.data),
                          p.sink.last.eq(self.last), p.source.ready.eq(self.ready)]


@pytest.mark.parametrize("ours, ref, signals, p_valid, p_ready", [
    (lambda l: ReadyPipe(l), lambda l: stream.PipeReady(l), ("sink.ready", "source.valid",
     "source.data"), 0.6, 0.5),
    # A FIFO of 8 words filled (more writes than reads), then drained (the reverse), then
    # balanced: full, empty and every level in between.
    (lambda l: LookaheadFIFO(l, 8), lambda l: stream.SyncFIFO(l, 8), ("sink.ready",
     "source.valid", "source.data", "source.last", "level.level"), None, None),
], ids=["ReadyPipe", "LookaheadFIFO"])
def test_pipe_matches_litex_cycle_for_cycle(ours, ref, signals, p_valid, p_ready):
    rng = random.Random(7)
    dut = Pair(ours([("data", 16)]), ref([("data", 16)]))
    seen = {"ours": [], "ref": [], "cycles": 0, "held": 0, "head_written": 0}

    def gen():
        data = 1
        for cycle in range(3000):
            phase = [(0.8, 0.3), (0.3, 0.8), (0.6, 0.6)][cycle * 3 // 3000]
            yield dut.valid.eq(rng.random() < (p_valid or phase[0]))
            yield dut.data.eq(data)
            yield dut.last.eq(data % 5 == 0)
            yield dut.ready.eq(rng.random() < (p_ready or phase[1]))
            yield
            o, r = dut.ours, dut.ref
            for name in signals:
                part, field = name.split(".")
                a = yield (getattr(o, part) if part == field else getattr(getattr(o, part), field))
                b = yield (getattr(r, part) if part == field else getattr(getattr(r, part), field))
                assert a == b, f"{name} differs at cycle {seen['cycles']}: ours {a}, LiteX {b}"
            if (yield o.source.valid) and (yield o.source.ready):
                seen["ours"].append((yield o.source.data))
            if (yield r.source.valid) and (yield r.source.ready):
                seen["ref"].append((yield r.source.data))
            if not (yield o.sink.ready):
                seen["held"] += 1
            if (yield dut.valid) and not (yield r.source.valid):
                seen["head_written"] += 1                 # a write to the word read next
            if (yield dut.valid) and (yield o.sink.ready):
                data += 1
            seen["cycles"] += 1

    run_simulation(dut, gen())
    assert seen["ours"] == seen["ref"]
    assert len(seen["ours"]) > 500 and seen["held"] > 200       # both paths were taken
    if "level.level" in signals:
        assert seen["head_written"] > 50                         # the bypass register was used
    assert seen["ours"] == sorted(set(seen["ours"]))             # in order, none twice



def test_the_lookahead_fifo_s_memory_stays_off_the_csr_bus():
    """LiteX's AutoCSR puts a module's named memories on the CSR bus: a third port, with which no
    block RAM maps (the 256-dword receive buffer became 9,000 flip-flops)."""
    fifo = LookaheadFIFO([("data", 16)], 256)
    assert fifo.get_memories() == []
    memories = [s for s in fifo.get_fragment().specials if isinstance(s, Memory)]
    assert len(memories) == 1 and len(memories[0].ports) == 2
