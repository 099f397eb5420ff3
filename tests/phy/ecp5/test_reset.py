# SPDX-License-Identifier: BSD-2-Clause
"""ECP5 DCU wrapper reset sequencing (ecpsata/phy/ecp5/reset.py) against the behavioural DCUA model.

TN1261's order and silicon-proven practice (doc/ecp5-serdes.md, "Reset
order"): the CDR reset is released only after TX PLL lock and re-applied with the TX PLL reset; a
loss of lock while waiting for ALIGN resets the CDR within 10-20 us so that the receiver recovers
inside one 54.6 us speed window; the RX lane is flushed while the receiver is not ready.
"""

from types import SimpleNamespace

from migen import *

from ecpsata.phy.serdes import GEN2
from ecpsata.phy.ecp5.serdes import ECP5SATASerDes
from ecpsata.phy.ecp5.dcua_model import LINE_OTHER, CDR_STUCK
from tests.support.dcua_harness import DCUABench, line_words, run_dcua_sim, us

SPEED_WINDOW_US = 54.6  # a drive offers each speed for 2048 Gen1 dwords

# Shorter TX-side waits (the PLL stability wait and the clock meter windows) so that a test reaches
# the receive side quickly; the RX timings stay the defaults, which are what the tests check.
FAST_TX = dict(tx_pll_lock=5e-6, meter_window=256)

# Tests of one rule leave the model's other reset-order fault out (a CDR released before TX PLL
# lock sticks), so that each checks its rule alone.
ONE_FAULT = dict(early_release_sticks=False)

ALIGN_WORDS = (0x17C | (0x2AA << 10), 0x2AA | (0x0F3 << 10))  # K28.5 D10.2 | D10.2 D27.3


def make(**kwargs):
    pads = SimpleNamespace(tx_p=Signal(), tx_n=Signal(), rx_p=Signal(), rx_n=Signal())
    args = dict(pads=pads, refclk=Signal(), sys_clk_freq=75e6, timings=FAST_TX)
    args.update(kwargs)
    return ECP5SATASerDes(**args)


def pins(serdes):
    p = serdes.dcua_params
    return SimpleNamespace(rrst=p["i_CH0_FFC_RRST"], lane_rx_rst=p["i_CH0_FFC_LANE_RX_RST"],
                           trst=p["i_D_FFC_TRST"], rlol=p["o_CH0_FFS_RLOL"])


def wait_for(sig, value, limit):
    for n in range(limit):
        if (yield sig) == value:
            return n
        yield
    raise AssertionError("timeout waiting for {} == {}".format(sig, value))


def test_power_up_cdr_reset_never_released_before_tx_pll_lock():
    serdes = make()
    bench = DCUABench(serdes)
    model, pin = bench.model, pins(serdes)
    log = dict(violations=0)

    def main():
        yield model.rx_idle.eq(0)  # the line carries data from the start: the CDR could lock at once
        for n in range(us(150)):
            if not (yield pin.rrst) and not (yield model.pll_locked):
                log["violations"] += 1
                log.setdefault("first", n)
            if (yield serdes.rx_ready) and "rx_ready" not in log:
                log["rx_ready"] = n
            if (yield model.pll_locked) and "pll_locked" not in log:
                log["pll_locked"] = n
            yield
        log["early"] = (yield model.early_cdr_releases)
        log["releases"] = (yield model.cdr_releases)

    run_dcua_sim(bench, {"sys": main(), "sata_rx": line_words(model, ALIGN_WORDS)})
    assert log["violations"] == 0, \
        "CDR reset released {} sys cycles before TX PLL lock, first at {:.2f} us".format(
            log["violations"], log.get("first", 0)/75)
    assert log["early"] == 0
    assert log["releases"] == 1
    # Lock at 10 us (POR) + 4 us (PLL reset) + 5 us (model's PLL); RX ready after the PLL has been
    # stable 5 us, the CDR reset (2 us), the model's CDR lock (3 us), 5 us stable, lane reset 1 us.
    assert 18 <= log["pll_locked"]/75 <= 20
    assert 0 < log["rx_ready"] - log["pll_locked"] <= us(5 + 2 + 3 + 5 + 1 + 1)


def test_cdr_reset_reapplied_with_tx_pll_reset():
    serdes = make()
    bench = DCUABench(serdes, **ONE_FAULT)
    model, pin = bench.model, pins(serdes)
    log = {}

    def main():
        yield model.rx_idle.eq(0)
        yield from wait_for(serdes.rx_ready, 1, us(100))
        yield from wait_for(serdes.tx_ready, 1, us(100))
        # The reference clock stops: the TX PLL loses lock, the wrapper resets it.
        yield model.refclk_ok.eq(0)
        log["to_trst"] = yield from wait_for(pin.trst, 1, us(20))
        # From the TX PLL reset on, the CDR is in reset until the PLL is locked again.
        yield model.refclk_ok.eq(1)
        n = 0
        while not (yield model.pll_locked):
            log.setdefault("rrst_low", 0)
            if not (yield pin.rrst):
                log["rrst_low"] += 1
            n += 1
            assert n < us(100)
            yield
        log["rrst_at_lock"] = (yield pin.rrst)
        log["rx_ready_after"] = yield from wait_for(serdes.rx_ready, 1, us(100))

    run_dcua_sim(bench, {"sys": main(), "sata_rx": line_words(model, ALIGN_WORDS)})
    assert log["rrst_low"] == 0, \
        "CDR reset released for {} sys cycles while the TX PLL was reset".format(log["rrst_low"])
    assert log["rrst_at_lock"] == 1
    assert log["rx_ready_after"] <= us(30)


def test_lock_loss_in_await_align_recovers_inside_one_speed_window():
    """A 6 Gb/s drive offers Gen3 first: the CDR, released for HP6_HR_AwaitAlign, sees a rate it
    cannot lock to for 54.6 us (and, in the model, runs away until reset), then Gen2 ALIGN for
    54.6 us. The wrapper must reset the CDR 10-20 us after the loss of lock and receive ALIGN inside
    the Gen2 window."""
    serdes = make()
    bench = DCUABench(serdes, **ONE_FAULT)
    model, pin = bench.model, pins(serdes)
    log = {}

    def main():
        # HP1..HP5B: the controller holds the CDR while the line carries OOB (idle here).
        yield serdes.rx_cdr_hold.eq(1)
        yield from wait_for(serdes.tx_ready, 1, us(100))
        yield from wait_for(serdes.rx_ready, 1, us(100))
        # HP6_HR_AwaitAlign: CDR released; the drive sends its Gen3 offer.
        yield model.rx_gen.eq(LINE_OTHER)
        yield model.rx_idle.eq(0)
        yield serdes.rx_cdr_hold.eq(0)
        log["lol"] = yield from wait_for(pin.rlol, 1, us(5))
        for n in range(us(SPEED_WINDOW_US) - log["lol"]):
            if (yield pin.rrst) and "reset_after_lol_us" not in log:
                log["reset_after_lol_us"] = n/75
            yield
        # Gen2 offer.
        yield model.rx_gen.eq(GEN2)
        for n in range(us(SPEED_WINDOW_US)):
            if (yield serdes.rx_ready) and (yield serdes.rx_data) in ALIGN_WORDS:
                log["align_after_us"] = n/75
                break
            yield

    @passive
    def watch():
        while True:
            if (yield model.cdr_state) == CDR_STUCK:
                log["stuck_seen"] = True
            yield

    run_dcua_sim(bench, {"sys": [main(), watch()], "sata_rx": line_words(model, ALIGN_WORDS)})
    assert log["lol"] <= us(1)
    assert "reset_after_lol_us" in log, "no CDR reset in the {} us after the loss of lock".format(
        SPEED_WINDOW_US)
    assert 10 <= log["reset_after_lol_us"] <= 20, "CDR reset {:.1f} us after loss of lock".format(
        log["reset_after_lol_us"])
    assert log.get("stuck_seen")  # the fault was injected
    assert "align_after_us" in log, "no ALIGN received in the {} us Gen2 window".format(SPEED_WINDOW_US)
    # Worst case: a reset just missed (20 us) + reset + lock + stable + lane reset, with room left
    # for the controller to see ALIGN and answer.
    assert log["align_after_us"] < 35
    print("CDR reset {:.2f} us after loss of lock; ALIGN {:.2f} us into the Gen2 window".format(
        log["reset_after_lol_us"], log["align_after_us"]))


def test_rx_lane_flushed_while_receiver_not_ready():
    """Already so before the change to TN1261's order: the RX lane reset is on in every state but
    READY. Checked over a power-up, a loss of lock (line idle) and the relock."""
    serdes = make()
    bench = DCUABench(serdes, **ONE_FAULT)
    model, pin = bench.model, pins(serdes)
    log = dict(bad=0, not_ready=0, ready=0)

    def check():
        ready = (yield serdes.rx_ready)
        log["ready" if ready else "not_ready"] += 1
        if not ready and not (yield pin.lane_rx_rst):
            log["bad"] += 1

    def main():
        yield model.rx_idle.eq(0)
        for _ in range(us(60)):
            yield from check()
            yield
        yield model.rx_idle.eq(1)   # the drive stops sending
        for _ in range(us(30)):
            yield from check()
            yield
        yield model.rx_idle.eq(0)
        for _ in range(us(40)):
            yield from check()
            yield
        log["rx_ready"] = (yield serdes.rx_ready)

    @passive
    def rx_side():
        # Received words are zero (flushed) whenever the lane is in reset.
        prev = 1
        while True:
            rst = (yield pin.lane_rx_rst)
            if rst and prev:
                assert (yield serdes.dcua_params["o_CH0_FF_RX_D_0"]) == 0
            prev = rst
            yield

    run_dcua_sim(bench, {"sys": main(), "sata_rx": [line_words(model, ALIGN_WORDS), rx_side()]})
    assert log["bad"] == 0
    assert log["not_ready"] > us(20) and log["ready"] > us(20)
    assert log["rx_ready"] == 1


def test_lock_lost_in_await_align_after_locking_recovers_inside_one_speed_window():
    """The CDR locked on the drive's ALIGN, then 2 us of a rate it cannot follow (a glitch, or the
    drive stepping speed) make it run away: it is reset 10-20 us after the loss of lock and ALIGN is
    received again within one 54.6 us window of the loss."""
    serdes = make()
    bench = DCUABench(serdes, **ONE_FAULT)
    model, pin = bench.model, pins(serdes)
    log = {}

    def main():
        yield serdes.rx_cdr_hold.eq(1)
        yield from wait_for(serdes.rx_ready, 1, us(100))
        yield model.rx_idle.eq(0)
        yield serdes.rx_cdr_hold.eq(0)
        yield from wait_for(pin.rlol, 0, us(20))
        yield from wait_for(serdes.rx_ready, 1, us(20))
        yield model.rx_gen.eq(LINE_OTHER)
        yield from wait_for(pin.rlol, 1, us(5))
        for n in range(us(SPEED_WINDOW_US)):
            if n == us(2):
                log["stuck"] = (yield model.cdr_state) == CDR_STUCK
                yield model.rx_gen.eq(GEN2)
            if (yield pin.rrst) and "reset_us" not in log:
                log["reset_us"] = n/75
            if "reset_us" in log and (yield serdes.rx_ready) and (yield serdes.rx_data) in ALIGN_WORDS:
                log["align_us"] = n/75
                break
            yield

    run_dcua_sim(bench, {"sys": main(), "sata_rx": line_words(model, ALIGN_WORDS)})
    assert log["stuck"]  # the fault was injected
    assert "reset_us" in log, "no CDR reset within {} us of the loss of lock".format(SPEED_WINDOW_US)
    assert 10 <= log["reset_us"] <= 20
    assert "align_us" in log and log["align_us"] < SPEED_WINDOW_US
