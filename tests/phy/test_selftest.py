# SPDX-License-Identifier: BSD-2-Clause
"""PHY self-test: PRBS31 prediction, and the whole PHY (encoder, gearing, aligner, decoder, both
crossings) looped back on the simulation SerDes: a clean line, a stuck bit, an inverted line."""

import pytest

from migen import *

from ecpsata.phy.ctrl import STATE
from ecpsata.phy.selftest import prbs31_next, PRBS31_SEED

from tests.support.phy_harness import run_word_sim
from tests.support.phy_link_harness import PHYDUT

pytestmark = pytest.mark.slow


def prbs31_bits(seed, n):
    """The PRBS31 stream bit by bit (b[k] = b[k-31] ^ b[k-28]) from the 32 bits of ``seed``."""
    bits = [(seed >> i) & 1 for i in range(32)]
    while len(bits) < n:
        bits.append(bits[-31] ^ bits[-28])
    return bits


def test_prbs31_next_follows_the_bit_recurrence():
    bits = prbs31_bits(PRBS31_SEED, 32*6)
    dwords = [sum(b << i for i, b in enumerate(bits[32*k:32*k + 32])) for k in range(6)]
    for a, b in zip(dwords, dwords[1:]):
        assert prbs31_next(a) == b
    assert len(set(dwords)) == 6 and 0 not in dwords


def run_selftest(line=lambda w: w, gen=None, cycles=1500, limit=6000):
    """Self-test over the SimSerDes with its TX words looped to RX through ``line``."""
    dut = PHYDUT()
    st, ctrl = dut.phy.selftest, dut.phy.ctrl
    res = {}

    def loop():
        yield "passive"
        yield dut.pads.rx_los.eq(0)
        while True:
            yield dut.pads.rx.eq(line((yield dut.pads.tx)))
            yield

    def main():
        if gen is not None:
            yield dut.phy.force_gen.eq(gen)
        yield st.duration.eq(cycles)
        yield st.enable.eq(1)
        for n in range(limit):
            if (yield st.done):
                break
            yield
        res["state"] = yield ctrl.state
        res["gen"] = yield ctrl.gen
        res["ready"] = yield ctrl.ready
        for name in ("done", "locked", "lock_time", "elapsed", "dwords", "dword_errors",
                     "bit_errors", "code_errors", "disp_errors", "aligns", "aligns_inverted",
                     "sync_losses"):
            res[name] = yield getattr(st, name)
        yield st.enable.eq(0)
        for _ in range(8):
            yield
        res["state_after"] = yield ctrl.state

    run_word_sim(dut, {"sys": main(), "sata_tx": loop()}, dut.serdes.word_ce)
    return res


def test_clean_loopback_at_gen2_checks_every_data_dword():
    r = run_selftest(cycles=1500)
    assert r["state"] == STATE["HR_SelfTest"] and r["ready"] == 0 and r["gen"] == 1
    assert r["done"] and r["locked"]
    # 1500 sys cycles at 100 MHz: 1125 dwords at the Gen2 rate, all but the ALIGN pairs data.
    assert 1100 <= r["dwords"] <= 1125
    assert (r["dword_errors"], r["bit_errors"], r["code_errors"], r["disp_errors"]) == (0, 0, 0, 0)
    assert r["aligns"] >= 5 and r["aligns_inverted"] == 0 and r["sync_losses"] == 0
    assert 0 < r["lock_time"] < 500
    assert r["state_after"] != STATE["HR_SelfTest"]


def test_clean_loopback_at_gen1():
    r = run_selftest(gen=1, cycles=1500)
    assert r["gen"] == 0 and r["done"] and r["locked"]
    assert 550 <= r["dwords"] <= 563  # half the Gen2 dword rate
    assert (r["dword_errors"], r["bit_errors"], r["code_errors"], r["disp_errors"]) == (0, 0, 0, 0)


def test_a_stuck_bit_never_locks_and_shows_code_errors():
    r = run_selftest(line=lambda w: w | (1 << 4), limit=2500)
    assert not r["done"] and not r["locked"] and r["dwords"] == 0
    assert r["code_errors"] > 100


def test_an_inverted_line_shows_inverted_aligns():
    r = run_selftest(line=lambda w: w ^ 0xFFFFF, limit=2500)
    assert not r["locked"]
    assert r["aligns_inverted"] > 0 and r["aligns"] == 0


def test_a_rare_bit_error_is_counted_once():
    """One wrong bit on the line in a few hundred words: each costs one dword and a few bits
    (one symbol), never the lock."""
    count = [0]

    def line(w):
        count[0] += 1
        return w ^ (1 << 13) if count[0] % 701 == 0 else w
    r = run_selftest(line=line, cycles=1500)
    assert r["done"] and r["locked"] and r["sync_losses"] == 0
    assert 1 <= r["dword_errors"] <= 8
    assert r["dword_errors"] <= r["bit_errors"] <= 8*r["dword_errors"]
