# SPDX-License-Identifier: BSD-2-Clause
"""Controller: COMRESET pacing and back-off without a drive, CDR hold per state, enable / restart,
link loss on rx_los, CSR names, our own OOB echo and a line that never goes quiet."""

import pytest

from migen import *

from ecpsata.phy.serdes import GEN1, GEN2
from ecpsata.phy.common import OOB_GAP_WORD
from ecpsata.phy.ctrl import STATE, STATES
from ecpsata.phy.phy import ECPSATAPHY
from ecpsata.phy.sim_serdes import SimSerDes, sim_serdes_pads

from tests.support.phy_harness import run_word_sim, now_ns
from tests.support.phy_link_harness import PHYDUT, run_link, SYS_CLK_FREQ

from ecpsata.sim import vdrive

# Word-level simulation against the virtual drive: `pytest -m "not system and not slow"` leaves these out.
pytestmark = pytest.mark.slow

DRIVE = "persona=ideal,capacity=4096,cominit_interval_us=0"


def comreset_starts(words_times, quiet_ns=1000):
    """Times (ns) where the host line becomes active after at least ``quiet_ns`` of quiet."""
    starts, last_active = [], None
    for t, w in words_times:
        if w != OOB_GAP_WORD:
            if last_active is None or t - last_active > quiet_ns:
                starts.append(t)
            last_active = t
    return starts


def quiet_line(dut, tx):
    """sata_tx process: no drive (rx_los high); appends (ns, host TX word) to ``tx`` per word."""
    yield "passive"
    yield dut.pads.rx_los.eq(1)
    while True:
        tx.append((now_ns(), (yield dut.pads.tx)))
        yield


def test_comreset_pacing_and_backoff_without_drive():
    """No drive (line quiet): COMRESET is retried no faster than retry_interval, and the interval
    doubles after every 4 failures up to retry_interval << max_backoff."""
    retry_us = 4  # a COMRESET lasts 2.56 us: leave a visible quiet time between them
    dut = PHYDUT(retry_interval=retry_us*1e-6, max_backoff=1)
    tx, cdr = [], set()


    def proc():
        while now_ns() < 34e3:
            cdr.add((yield dut.serdes.rx_cdr_hold))
            yield
        dut.res = {}
        for n in ("retries", "state", "link_ups"):
            dut.res[n] = yield getattr(dut.phy.ctrl, n)

    run_word_sim(dut, {"sys": proc(), "sata_tx": quiet_line(dut, tx)}, dut.serdes.word_ce)
    starts = comreset_starts(tx)
    intervals = [round((b - a)/1e3, 2) for a, b in zip(starts, starts[1:])]
    print("COMRESET intervals (us):", intervals)
    # 4 attempts 4 us apart (+ the 0.2 us settle time after a failure), then 8 us apart
    # (max_backoff = 1): never faster than the pacing allows.
    assert len(starts) == 6
    assert all(retry_us <= i <= retry_us + 0.3 for i in intervals[:3])
    assert all(2*retry_us <= i <= 2*retry_us + 0.3 for i in intervals[3:])
    assert dut.res["retries"] == len(starts) - 1 or dut.res["retries"] == len(starts)
    assert dut.res["link_ups"] == 0
    assert cdr == {1}  # never left the OOB states: CDR held throughout


def test_pacing_multiplies_the_retry_interval_at_run_time():
    """pacing = 1: COMRESET no more often than twice retry_interval, and twice that again after
    4 failed attempts (the back-off on top)."""
    retry_us = 4
    dut = PHYDUT(retry_interval=retry_us*1e-6, max_backoff=1)
    tx = []


    def proc():
        yield dut.phy.pacing.eq(1)
        while now_ns() < 50e3:
            yield

    run_word_sim(dut, {"sys": proc(), "sata_tx": quiet_line(dut, tx)}, dut.serdes.word_ce)
    starts = comreset_starts(tx)
    intervals = [round((b - a)/1e3, 2) for a, b in zip(starts, starts[1:])]
    print("COMRESET intervals (us):", intervals)
    assert len(intervals) == 4
    assert all(2*retry_us <= i <= 2*retry_us + 0.3 for i in intervals[:3])
    assert 4*retry_us <= intervals[3] <= 4*retry_us + 0.3


def test_cdr_hold_per_state_and_restart():
    """With a drive: rx_cdr_hold is 1 in HP1..HP5B and 0 from HP6 on. A restart pulse takes the
    link down and it comes back, with time-to-link measured again."""
    drive = vdrive.VirtualDrive(DRIVE)
    dut = PHYDUT()
    ctrl = dut.phy.ctrl
    hold = {}
    res = {}

    comresets = []

    def wait_ready(limit_ns):
        t0 = now_ns()
        last = None
        while not (yield ctrl.ready):
            s = yield ctrl.state
            if s != last and s == STATE["HP1_HR_COMRESET"]:
                comresets.append(now_ns())
            last = s
            hold.setdefault(STATES[s], set()).add((yield dut.serdes.rx_cdr_hold))
            assert now_ns() - t0 < limit_ns
            yield

    def proc():
        yield from wait_ready(20e3)
        res["ttl1"] = yield ctrl.time_to_link
        for _ in range(100):
            yield
        yield dut.phy.restart.eq(1)
        yield
        yield dut.phy.restart.eq(0)
        yield
        yield
        res["state_after_restart"] = yield ctrl.state
        yield from wait_ready(20e3)
        res["ttl2"] = yield ctrl.time_to_link
        res["link_ups"] = yield ctrl.link_ups
        res["link_downs"] = yield ctrl.link_downs
        res["hold_ready"] = yield dut.serdes.rx_cdr_hold

    run_link(dut, drive, proc())
    print(hold)
    for s in ["HP1_HR_Reset", "HP1_HR_COMRESET", "HP2_HR_AwaitCOMINIT", "HP2B_HR_AwaitNoCOMINIT",
              "HP4_HR_COMWAKE", "HP5_HR_AwaitCOMWAKE", "HP5B_HR_AwaitNoCOMWAKE"]:
        assert 1 in hold[s], s  # registered output: the first cycle of a state may show the old level
    assert hold["HP7_HR_SendAlign"] == {0}
    assert res["hold_ready"] == 0
    assert res["state_after_restart"] == STATE["HP1_HR_Reset"]
    assert res["link_ups"] == 2
    assert res["link_downs"] == 0  # a restart is not a loss
    # The restart came 1 us after link-up, but COMRESET waits for the 12 us pacing; time-to-link
    # counts from the restart, so it includes that wait.
    assert len(comresets) == 2
    assert comresets[1] - comresets[0] == pytest.approx(12e3, abs=20)
    assert res["ttl2"] > res["ttl1"] + 100
    assert drive.stats()["comreset_detected"] == 2


def test_enable_holds_link_down():
    dut = PHYDUT()
    tx = []
    res = {}


    def proc():
        yield dut.phy.enable.eq(0)
        for _ in range(3):
            yield
        res["state"] = yield dut.phy.ctrl.state
        while now_ns() < 6e3:
            yield
        yield dut.phy.enable.eq(1)
        res["t_enable"] = now_ns()
        while now_ns() < 10e3:
            yield

    run_word_sim(dut, {"sys": proc(), "sata_tx": quiet_line(dut, tx)}, dut.serdes.word_ce)
    assert res["state"] == STATE["HR_Disabled"]
    starts = comreset_starts([(0, 0)] + tx)
    # Nothing sent while disabled; the first COMRESET follows enable by the settle time.
    assert len(starts) == 1
    assert 0 < starts[0] - res["t_enable"] < 400


def test_link_lost_on_rx_los():
    """Link up, then the drive's line goes quiet: with the decode-error criterion out of the way,
    rx_los high for los_timeout (1 us) takes the link down."""
    drive = vdrive.VirtualDrive(DRIVE)
    dut = PHYDUT(max_errors=10**6)
    ctrl = dut.phy.ctrl
    res = {}

    def proc():
        while not (yield ctrl.ready):
            yield
        for _ in range(100):
            yield
        dut.unplugged = True
        t0 = now_ns()
        while (yield ctrl.ready):
            yield
        res["t_down"] = now_ns() - t0
        res["link_downs"] = yield ctrl.link_downs
        res["state"] = yield ctrl.state

    run_link(dut, drive, proc())
    assert 1000 <= res["t_down"] < 1150
    assert res["link_downs"] == 1
    assert res["state"] == STATE["HP1_HR_Reset"]


def test_csr_names():
    pads = sim_serdes_pads()
    phy = ECPSATAPHY(SimSerDes(pads), SYS_CLK_FREQ, with_csr=True)
    names = {c.name for c in phy.get_csrs()}
    assert names == {"control", "status", "retries", "link_ups", "link_downs", "code_errors",
                     "disp_errors", "time_to_link",
                     *("selftest_" + n for n in ("control", "duration", "status", "lock_time",
                                                  "elapsed", "dwords", "dword_errors", "bit_errors",
                                                  "code_errors", "disp_errors", "aligns",
                                                  "aligns_inverted", "sync_losses"))}
    # New fields go at the end: firmware and host tools keep their bit positions.
    status = [(f.name, f.offset) for f in phy._status.fields.fields]
    assert status == [("ready", 0), ("state", 1), ("gen", 5), ("rx_polarity", 6), ("tx_ready", 7),
                      ("rx_ready", 8), ("rx_los", 9), ("tx_polarity", 10)]
    control = [(f.name, f.offset) for f in phy._control.fields.fields]
    assert control == [("enable", 0), ("tx_polarity", 1), ("force_gen", 2), ("restart", 4),
                       ("tx_polarity_auto", 5), ("rx_polarity", 6), ("rx_polarity_auto", 7),
                       ("pacing", 8), ("oob_ei_gaps", 10)]
    # Out of reset: enabled, both polarities found automatically.
    assert phy._control.storage.reset.value == 0b10100001


def test_without_the_settings_register_the_settings_are_their_defaults():
    """``add_settings_csr`` alone drives the run-time settings: without it (what
    scripts/core_resources.py measures against) they are undriven signals at their reset values,
    the defaults of the register's fields, and the status registers stay."""
    from migen.fhdl.tools import list_targets

    class Fixed(ECPSATAPHY):
        def add_settings_csr(self):
            pass

    settings = ("enable", "restart", "force_gen", "tx_polarity", "tx_polarity_auto",
                "rx_polarity", "rx_polarity_auto", "pacing", "oob_ei_gaps")
    phy = ECPSATAPHY(SimSerDes(sim_serdes_pads()), SYS_CLK_FREQ, with_csr=True)
    fields = {f.name: f for f in phy._control.fields.fields}
    assert set(fields) == set(settings)
    for name in settings:
        assert getattr(phy, name).reset.value == fields[name].reset.value, name
    driven = set().union(*(list_targets(s) for s in phy.get_fragment().comb))
    assert {getattr(phy, n) for n in settings} <= driven

    fixed = Fixed(SimSerDes(sim_serdes_pads()), SYS_CLK_FREQ, with_csr=True)
    assert "control" not in {c.name for c in fixed.get_csrs()}
    assert "status" in {c.name for c in fixed.get_csrs()}
    driven = set().union(*(list_targets(s) for s in fixed.get_fragment().comb))
    assert not ({getattr(fixed, n) for n in settings} & driven)


def test_own_echo_alone_is_not_a_drive():
    """No drive, but our own transmit activity shows on rx_los 20 ns later (near-end crosstalk, as
    seen on an ECPIX-5): the echo of our COMRESET is a perfect COMINIT pattern. The controller must
    not take it for the drive's: it keeps pacing COMRESET and never sends COMWAKE."""
    echo_words = 3  # 20 ns at Gen2
    dut = PHYDUT(retry_interval=4e-6)
    states = set()
    res = {}

    def echo_line():
        yield "passive"
        history = [0]*echo_words
        last = 0
        while True:
            tx = yield dut.pads.tx
            active = (tx ^ ((tx << 1) | last)) & 0xFFFFF != 0
            last = tx >> 19
            history.append(active)
            yield dut.pads.rx_los.eq(0 if history.pop(0) else 1)
            yield

    def proc():
        while now_ns() < 20e3:
            states.add(STATES[(yield dut.phy.ctrl.state)])
            yield
        res["retries"] = yield dut.phy.ctrl.retries

    run_word_sim(dut, {"sys": proc(), "sata_tx": echo_line()}, dut.serdes.word_ce)
    assert states == {"HP1_HR_Reset", "HP1_HR_COMRESET", "HP2_HR_AwaitCOMINIT"}, states
    assert res["retries"] >= 3


def test_busy_line_ends_the_attempt():
    """rx_los stuck low (a signal that never stops, e.g. a detector that sees our own line all the
    time): the controller cannot tell the end of its COMRESET, so it never waits for COMINIT on
    that line; each attempt ends retry_interval after its COMRESET and the next one is paced."""
    dut = PHYDUT(retry_interval=4e-6)
    states = set()
    res = {}

    def busy_line():
        yield "passive"
        yield dut.pads.rx_los.eq(0)
        while True:
            yield

    def proc():
        while now_ns() < 20e3:
            states.add(STATES[(yield dut.phy.ctrl.state)])
            yield
        res["retries"] = yield dut.phy.ctrl.retries

    run_word_sim(dut, {"sys": proc(), "sata_tx": busy_line()}, dut.serdes.word_ce)
    assert states == {"HP1_HR_Reset", "HP1_HR_COMRESET"}, states
    assert 3 <= res["retries"] <= 5
