# SPDX-License-Identifier: BSD-2-Clause
"""PatternUnit (ecpsata/engines/pattern.py) against the reference in ecpsata/engines/common.py.

Known-answer vectors pin the pattern: data written by one build must verify with the next, and the
host tools compute the same values, so a change here is a format change.
"""

import random

from migen import *

from ecpsata.engines.common import pattern_dword, pattern_sector, mix32, SECTOR_DWORDS
from ecpsata.engines.pattern import PatternUnit
from tests.support.sata_port_model import run_sorted_simulation


def test_known_answers():
    assert pattern_dword(0, 0, 0) == 0x23806AF2
    assert pattern_dword(0, 0, 127) == 0xD86F957B
    assert pattern_dword(1, 0, 0) == 0xF48C9EF0
    assert pattern_dword(0, 1, 0) == 0x697A127F
    assert pattern_dword(0x12345678, (1 << 40) + 5, 64) == 0x447ECAAC
    assert pattern_sector(9, 33)[17] == pattern_dword(9, 33, 17)


def test_pattern_properties():
    # mix32 is a bijection on a sample (no two inputs collide), the pattern depends on every key.
    xs = random.Random(1).sample(range(1 << 32), 20000)
    assert len({mix32(x) for x in xs}) == len(xs)
    sectors = [tuple(pattern_sector(s, l)) for s in (0, 1, 2) for l in (0, 1, 2, 1 << 32, 1 << 47)]
    assert len(set(sectors)) == len(sectors)
    for sec in sectors:
        assert len(set(sec)) == SECTOR_DWORDS


def run_unit(body):
    dut = PatternUnit()
    out = {}
    run_sorted_simulation(dut, [body(dut, out)])
    return out


def test_generator_matches_reference_across_sectors():
    seed, lba, n = 0xA5A5F00D, (1 << 33) + 126, 3*SECTOR_DWORDS
    rng = random.Random(2)

    def body(dut, out):
        yield dut.seed.eq(seed)
        yield dut.lba.eq(lba)
        for _ in range(PatternUnit.LOAD_LATENCY):   # the sector seed is pipelined
            yield
        yield dut.load.eq(1)
        yield
        yield dut.load.eq(0)
        got = []
        while len(got) < n:
            yield dut.advance.eq(int(rng.random() < 0.7))
            yield
            if (yield dut.advance):              # a dword consumed at this edge
                got.append((yield dut.value))
        out["got"] = got
    out = run_unit(body)
    exp = [pattern_dword(seed, lba + k // SECTOR_DWORDS, k % SECTOR_DWORDS) for k in range(n)]
    assert out["got"] == exp


def test_checker_counts_dwords_sectors_and_first_lba():
    seed, lba = 3, 1000
    data = [pattern_dword(seed, lba + k // 128, k % 128) for k in range(4*128)]
    for k in (130, 131, 255, 3*128 + 0):       # sector 1 (three dwords) and sector 3
        data[k] ^= 1 << (k % 32)

    def body(dut, out):
        yield dut.seed.eq(seed)
        yield dut.lba.eq(lba)
        for _ in range(PatternUnit.LOAD_LATENCY):   # the sector seed is pipelined
            yield
        yield dut.load.eq(1)
        yield dut.clear.eq(1)
        yield
        yield dut.load.eq(0)
        yield dut.clear.eq(0)
        yield dut.check.eq(1)
        for d in data:
            yield dut.data.eq(d)
            yield dut.advance.eq(1)
            yield
        yield dut.advance.eq(0)
        yield
        out["dwords"] = yield dut.mismatch_dwords
        out["sectors"] = yield dut.mismatch_sectors
        out["first"] = yield dut.first_bad_lba
        out["valid"] = yield dut.first_bad_valid
    out = run_unit(body)
    assert (out["dwords"], out["sectors"], out["first"], out["valid"]) == (4, 2, 1001, 1)
