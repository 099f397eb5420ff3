# SPDX-License-Identifier: BSD-2-Clause
"""The behavioural DCUA model (ecpsata/phy/ecp5/dcua_model.py) on its own: its pins driven by the test.

The model is built from the parameters of a real ``ECP5SATASerDes`` DCUA Instance, with the control
inputs replaced by test signals. The ``dcu`` domain runs at 150 MHz (6.67 ns per cycle).
"""

from types import SimpleNamespace

import pytest

from migen import *

from ecpsata.phy.serdes import GEN1, GEN2
from ecpsata.phy.ecp5.serdes import ECP5SATASerDes
from ecpsata.phy.ecp5.dcua_model import (CONFIG, DCUAModel, LINE_OTHER, CDR_STUCK, parse_param,
                                     drive_current_ua)
from tests.support.dcua_harness import run_dcua_sim

CONTROLS = ["D_FFC_MACRO_RST", "D_FFC_DUAL_RST", "D_FFC_TRST", "CH0_FFC_RRST", "CH0_FFC_LANE_RX_RST",
            "CH0_FFC_LANE_TX_RST", "CH0_FFC_RATE_MODE_TX", "CH0_FFC_RATE_MODE_RX", "CH0_FFC_EI_EN",
            "D_SCIWSTN", "D_SCIRD", "CH0_SCIEN", "CH0_SCISEL", "D_SCIENAUX", "D_SCISELAUX"]
US = 150  # dcu cycles per microsecond


class ModelBench(Module):
    """The model alone; ``pins`` are its control inputs and status outputs. The data path has no
    latency beyond its one register unless the test asks for it."""
    def __init__(self, params=None, **config):
        config = dict(dict(tx_latency=1, rx_latency=1), **config)
        pads = SimpleNamespace(tx_p=Signal(), tx_n=Signal(), rx_p=Signal(), rx_n=Signal())
        ports = dict(ECP5SATASerDes(pads, Signal(), 75e6, word_clk="pclk").dcua_params)
        ports.update(params or {})
        pins = {}
        for name in CONTROLS:
            # Active-low write strobe idle high; the CDR in reset until power_up() releases it.
            pins[name] = ports["i_" + name] = Signal(name=name.lower(),
                                                     reset=name in ("D_SCIWSTN", "CH0_FFC_RRST"))
        for name in ["D_FFS_PLOL", "CH0_FFS_RLOL", "CH0_FFS_RLOS"]:
            pins[name] = ports["o_" + name] = Signal(name=name.lower())
        pins["adr"] = Signal(6)
        pins["wdata"] = Signal(8)
        pins["rdata"] = Signal(8)
        ports.update({"i_D_SCIADDR%d" % n: pins["adr"][n] for n in range(6)})
        ports.update({"i_D_SCIWDATA%d" % n: pins["wdata"][n] for n in range(8)})
        ports.update({"o_D_SCIRDATA%d" % n: pins["rdata"][n] for n in range(8)})
        self.tx_bus = Signal(24)
        self.rx_bus = Signal(24)
        ports.update({"i_CH0_FF_TX_D_%d" % n: self.tx_bus[n] for n in range(24)})
        ports.update({"o_CH0_FF_RX_D_%d" % n: self.rx_bus[n] for n in range(24)})
        self.pins = SimpleNamespace(**{k.lower(): v for k, v in pins.items()})
        self.clock_domains.cd_sata_tx = ClockDomain(reset_less=True)
        self.clock_domains.cd_sata_rx = ClockDomain(reset_less=True)
        self.submodules.model = DCUAModel(ports, **config)


def cycles_until(sig, value, limit):
    for n in range(limit):
        if (yield sig) == value:
            return n
        yield
    raise AssertionError("timeout waiting for {} == {}".format(sig, value))


def power_up(b):
    """TX PLL locked (its reset pins start at 0), then the CDR out of reset (TN1261's order)."""
    yield from cycles_until(b.model.pll_locked, 1, 10*US)
    yield b.pins.ch0_ffc_rrst.eq(0)
    yield


def count_ces(b, ce, n):
    total = 0
    for _ in range(n):
        total += (yield ce)
        yield
    return total


def run(b, *gens):
    run_dcua_sim(b, {"dcu": list(gens)})


def test_parse_and_drive_current():
    assert parse_param("0b011") == 3 and parse_param("0d19") == 19 and parse_param("0x3ff") == 1023
    assert parse_param("10BSER") == "10BSER"
    # liteiclink's slices: 400 + 3200 + 2400 uA on main data.
    slices = {0: (1, 0b011), 1: (0, 0), 2: (1, 0b11), 3: (1, 0b10), 4: (0, 0), 5: (0, 0)}
    assert drive_current_ua(slices) == 6000


def test_tx_pll_lock_follows_reset_and_refclk():
    b = ModelBench()
    p, m = b.pins, b.model
    log = {}

    def main():
        yield p.d_ffc_trst.eq(1)
        for _ in range(100):
            yield
        assert (yield p.d_ffs_plol) == 1 and (yield m.tx_ce) == 0
        yield p.d_ffc_trst.eq(0)
        log["lock"] = yield from cycles_until(p.d_ffs_plol, 0, 20*US)
        log["ces"] = yield from count_ces(b, m.tx_ce, 300)
        yield m.refclk_ok.eq(0)
        for _ in range(4):
            yield
        log["plol_no_ref"] = (yield p.d_ffs_plol)
        log["ces_no_ref"] = yield from count_ces(b, m.tx_ce, 300)

    run(b, main())
    assert 5*US - 2 <= log["lock"] <= 5*US + 2  # pll_lock_time = 5 us
    assert log["ces"] >= 298                     # the TX word clock runs at the full word rate
    assert log["plol_no_ref"] == 1 and log["ces_no_ref"] == 0


@pytest.mark.parametrize("params,full,rate_pin,expected", [
    ({}, 300, 0, 300),                                                       # PCLK: runs
    ({}, 300, 1, 150),                                                       # half-rate pin
    ({"p_D_TX_VCO_CK_DIV": "0b010"}, 300, 1, 75),                            # /2 and half rate
    ({"p_D_SYNC_LOCAL_EN": "0b0"}, 300, 0, 0),                               # dead (ECPIX-5)
    ({"p_CH0_FF_TX_H_CLK_EN": "0b0"}, 300, 0, 300),                          # PCLK needs no H_CLK_EN
    ("h_clk", 300, 0, 300),                                                  # H_CLK, enabled
    ("h_clk_off", 300, 0, 0),                                                # H_CLK, not enabled
])
def test_word_clocks_run_only_when_configured(params, full, rate_pin, expected):
    if params in ("h_clk", "h_clk_off"):
        clk = Signal()
        params = {"o_CH0_FF_TX_PCLK": None, "o_CH0_FF_TX_H_CLK": clk, "i_CH0_FF_TXI_CLK": clk,
                  "p_CH0_FF_TX_H_CLK_EN": "0b1" if params == "h_clk" else "0b0"}
    b = ModelBench(params)
    log = {}

    def main():
        yield from power_up(b)
        yield b.pins.ch0_ffc_rate_mode_tx.eq(rate_pin)
        for _ in range(4):
            yield
        log["ces"] = yield from count_ces(b, b.model.tx_ce, full)
        log["gen"] = (yield b.model.tx_gen)

    run(b, main())
    assert abs(log["ces"] - expected) <= 1
    if expected:
        assert log["gen"] == {300: GEN2, 150: GEN1, 75: 3}[expected]


def test_cdr_lock_loss_of_lock_los_and_hold():
    b = ModelBench()
    p, m = b.pins, b.model
    log = {}

    def set_hold(value):
        yield m.sci_ch[0x18].eq(value << 6)  # as an SCI write would (see test_sci_* below)

    def main():
        yield from power_up(b)
        assert (yield p.ch0_ffs_rlol) == 1 and (yield p.ch0_ffs_rlos) == 1   # idle line
        yield m.rx_idle.eq(0)
        log["los"] = yield from cycles_until(p.ch0_ffs_rlos, 0, 10)
        log["lock"] = yield from cycles_until(p.ch0_ffs_rlol, 0, 10*US)
        yield m.rx_idle.eq(1)
        log["lol_idle"] = yield from cycles_until(p.ch0_ffs_rlol, 1, US)
        yield from set_hold(1)
        for _ in range(3):
            yield
        log["held_lol"] = (yield p.ch0_ffs_rlol)
        # Released on a rate it cannot follow: loss of lock, then stuck until FFC_RRST.
        yield m.rx_gen.eq(LINE_OTHER)
        yield m.rx_idle.eq(0)
        yield from set_hold(0)
        yield from cycles_until(m.cdr_state, CDR_STUCK, 2*US)
        yield m.rx_gen.eq(GEN2)
        for _ in range(10*US):
            yield
        log["stuck_lol"] = (yield p.ch0_ffs_rlol)
        yield p.ch0_ffc_rrst.eq(1)
        yield
        yield p.ch0_ffc_rrst.eq(0)
        log["relock"] = yield from cycles_until(p.ch0_ffs_rlol, 0, 10*US)
        log["releases"] = (yield m.cdr_releases)

    run(b, main())
    assert 1 <= log["los"] <= 3                    # los_delay 10 ns
    assert 3*US - 2 <= log["lock"] <= 3*US + 4     # cdr_lock_time 3 us
    assert 0.2*US - 2 <= log["lol_idle"] <= 0.2*US + 2
    assert log["held_lol"] == 0
    assert log["stuck_lol"] == 1
    assert 3*US - 2 <= log["relock"] <= 3*US + 4
    assert log["releases"] == 2                    # power_up() and the pulse


def test_a_weak_line_is_seen_only_below_the_los_threshold_written_at_run_time():
    """An RX pair at level 1 (``rx_level``) stays lost to the detector at the build's threshold
    (los_lvl 2) and is seen once the threshold is 1, written through the SCI (0x1b bits 0-2); the
    CDR follows the data either way."""
    b = ModelBench()
    p, m = b.pins, b.model
    log = {}

    def main():
        yield from power_up(b)
        yield m.rx_level.eq(1)
        yield m.rx_idle.eq(0)
        log["lock"] = yield from cycles_until(p.ch0_ffs_rlol, 0, 10*US)
        log["los_weak"] = (yield p.ch0_ffs_rlos)
        yield from sci_write(p, 0x1B, 0b11_001)     # los_ceq 3 kept, los_lvl 1
        log["seen"] = yield from cycles_until(p.ch0_ffs_rlos, 0, 10)
        yield m.rx_level.eq(7)
        yield from sci_write(p, 0x1B, 0b11_111)
        for _ in range(4):
            yield
        log["los_strong"] = (yield p.ch0_ffs_rlos)

    run(b, main())
    assert log["lock"] <= 3*US + 4 and log["los_weak"] == 1
    assert log["seen"] <= 3 and log["los_strong"] == 0


def test_cdr_released_before_pll_lock_sticks():
    b = ModelBench()
    p, m = b.pins, b.model
    log = {}

    def main():
        yield m.rx_idle.eq(0)
        yield p.d_ffc_trst.eq(1)
        yield p.ch0_ffc_rrst.eq(1)
        yield
        yield p.ch0_ffc_rrst.eq(0)         # released while the PLL is in reset
        yield
        yield p.d_ffc_trst.eq(0)
        yield from cycles_until(m.pll_locked, 1, 10*US)
        for _ in range(10*US):
            yield
        log["lol_early"] = (yield p.ch0_ffs_rlol)
        log["early"] = (yield m.early_cdr_releases)
        yield p.ch0_ffc_rrst.eq(1)
        yield
        yield p.ch0_ffc_rrst.eq(0)         # released after lock
        log["lock"] = yield from cycles_until(p.ch0_ffs_rlol, 0, 10*US)

    run(b, main())
    assert log["lol_early"] == 1 and log["early"] == 1
    assert log["lock"] <= 3*US + 4


def test_cdr_needs_req_iset_010_or_011():
    b = ModelBench({"p_D_REQ_ISET": "0b000"})
    log = {}

    def main():
        yield from power_up(b)
        yield b.model.rx_idle.eq(0)
        for _ in range(20*US):
            yield
        log["lol"] = (yield b.pins.ch0_ffs_rlol)

    run(b, main())
    assert b.model.cdr_bias_ok is False
    assert log["lol"] == 1
    assert ModelBench({"p_D_REQ_ISET": "0b010"}).model.cdr_bias_ok is True


def sci_write(p, adr, value):
    yield p.adr.eq(adr)
    yield p.wdata.eq(value)
    yield p.ch0_scien.eq(1)
    yield p.ch0_scisel.eq(1)
    yield
    yield p.d_sciwstn.eq(0)
    yield
    yield
    yield p.d_sciwstn.eq(1)
    yield
    yield p.ch0_scien.eq(0)
    yield p.ch0_scisel.eq(0)
    yield


def sci_read(p, adr, aux=False):
    yield p.adr.eq(adr)
    yield (p.d_scienaux if aux else p.ch0_scien).eq(1)
    yield (p.d_sciselaux if aux else p.ch0_scisel).eq(1)
    yield p.d_scird.eq(1)
    yield
    yield
    value = (yield p.rdata)
    yield p.d_scird.eq(0)
    yield (p.d_scienaux if aux else p.ch0_scien).eq(0)
    yield (p.d_sciselaux if aux else p.ch0_scisel).eq(0)
    yield
    return value


def test_sci_polarity_cdr_hold_and_datapath():
    b = ModelBench({"p_CH0_INVERT_TX": "0b1"})
    p, m = b.pins, b.model
    log = {}
    word = 0x2B7 << 10 | 0x17C

    def main():
        yield from power_up(b)
        log["pol_reset"] = yield from sci_read(p, 0x01)
        yield m.rx_idle.eq(0)
        yield b.tx_bus.eq((word & 0x3FF) | ((word >> 10) << 12))
        yield from cycles_until(p.ch0_ffs_rlol, 0, 10*US)
        for _ in range(4):
            yield
        log["tx_inv"] = (yield m.tx_word)
        log["rx"] = (yield b.rx_bus)
        yield from sci_write(p, 0x01, 0b01)       # RX inverted, TX not
        for _ in range(4):
            yield
        log["tx"] = (yield m.tx_word)
        log["rx_inv"] = (yield b.rx_bus)
        yield from sci_write(p, 0x18, 0x40)       # hold the CDR
        yield m.rx_idle.eq(1)
        for _ in range(US):
            yield
        log["held_lol"] = (yield p.ch0_ffs_rlol)
        log["hold_read"] = yield from sci_read(p, 0x18)
        yield p.ch0_ffc_lane_rx_rst.eq(1)
        for _ in range(4):
            yield
        log["rx_flushed"] = (yield b.rx_bus)
        yield p.d_ffc_macro_rst.eq(1)             # restores the registers
        yield
        yield p.d_ffc_macro_rst.eq(0)
        log["pol_after_rst"] = yield from sci_read(p, 0x01)

    @passive
    def line():
        while True:
            yield m.rx_word.eq(word)
            yield

    run_dcua_sim(b, {"dcu": main(), "sata_rx": line()})
    inv = (1 << 20) - 1
    bus = lambda w: (w & 0x3FF) | ((w >> 10) << 12)
    assert log["pol_reset"] == 0b10                # CH0_INVERT_TX is the reset value
    assert log["tx_inv"] == word ^ inv
    assert log["rx"] == bus(word)
    assert log["tx"] == word
    assert log["rx_inv"] == bus(word ^ inv)
    assert log["held_lol"] == 0 and log["hold_read"] == 0x40
    assert log["rx_flushed"] == 0
    assert log["pol_after_rst"] == 0b10


def test_sci_reset_values_of_the_analog_fields_come_from_the_parameters():
    """The fields of TN1261's register map that the build sets read back the build's values:
    the TX driver's slices (0x12-0x15), the RX termination (0x17 bits 0-4) and its common mode
    (0x16 bits 6-7), the equaliser (0x19: on, pole 10, 9 dB), the phase detector kept on in LOS
    (0x1a bit 3), the LOS level 2, its input equalisation 3, no hysteresis (0x1b), the CDR's
    +-4000 ppm lock window (dual 0x0c bits 0-1)."""
    m = ModelBench().model
    # the TX driver's slices (the default 600 set): selects 0, 2, 3 main data, currents
    assert m.sci_ch[0x12].reset.value == 0b01_01_00_01
    assert m.sci_ch[0x13].reset.value == 0b00_10_0000
    assert m.sci_ch[0x14].reset.value == 0b11_000_011
    assert m.sci_ch[0x17].reset.value == 19            # 50 ohm
    assert m.sci_ch[0x16].reset.value == 0b10 << 6     # ground
    assert m.sci_ch[0x19].reset.value == 1 | 10 << 1 | 0b01 << 5
    assert m.sci_ch[0x1A].reset.value == 0
    assert m.sci_ch[0x1B].reset.value == 0b010 | 0b11 << 3
    assert m.sci_aux[0x0C].reset.value == 0b10
    assert m.sci_ch[0x15].reset.value == 0             # no loopback, the serializer drives TX


def test_lb_ctl_1_loops_the_transmitted_line_back_to_the_receiver():
    """lb_ctl bit 0 (channel register 0x15, through the SCI; TN1261's serial TX-to-RX loopback):
    the receiver takes the TX line, whatever the RX pair carries; the register's other bits do
    not loop it (bits 1-3 are TN1261's far-end echoes, LUNA's 110010 among them); 0 gives the RX
    pair back."""
    b = ModelBench()
    p, m = b.pins, b.model
    log = {}
    ours, theirs = 0x2B7 << 10 | 0x17C, 0x0F3 << 10 | 0x2AA
    bus = lambda w: (w & 0x3FF) | ((w >> 10) << 12)

    def main():
        yield from power_up(b)
        yield b.tx_bus.eq(bus(ours))
        yield m.rx_idle.eq(0)
        yield from cycles_until(p.ch0_ffs_rlol, 0, 10*US)
        for _ in range(4):
            yield
        log["rx_pair"] = (yield b.rx_bus)
        yield from sci_write(p, 0x15, 0xF0)       # other bits: no loopback
        for _ in range(4):
            yield
        log["other_bits"] = (yield b.rx_bus)
        yield from sci_write(p, 0x15, 0xF1)
        for _ in range(4):
            yield
        log["looped"] = (yield b.rx_bus)
        log["loopback"] = (yield m.loopback)
        for value, key in ((0x32, "echo"), (0x0E, "far_end_bits"), (0x01, "again")):
            yield from sci_write(p, 0x15, value)
            for _ in range(4):
                yield
            log[key] = (yield m.loopback)
        yield m.rx_idle.eq(1)                      # the drive goes quiet: the loop still carries
        for _ in range(US):
            yield
        log["lol_quiet_pair"] = (yield p.ch0_ffs_rlol)
        log["los_quiet_pair"] = (yield p.ch0_ffs_rlos)
        yield from sci_write(p, 0x15, 0xF0)
        log["lol_back"] = yield from cycles_until(p.ch0_ffs_rlol, 1, US)

    @passive
    def line():
        while True:
            yield m.rx_word.eq(theirs)
            yield

    run_dcua_sim(b, {"dcu": main(), "sata_rx": line()})
    assert log["rx_pair"] == bus(theirs) and log["other_bits"] == bus(theirs)
    assert log["looped"] == bus(ours) and log["loopback"] == 1
    assert (log["echo"], log["far_end_bits"], log["again"]) == (0, 0, 1)
    assert log["lol_quiet_pair"] == 0 and log["los_quiet_pair"] == 0
    assert 0.2*US - 2 <= log["lol_back"] <= 0.2*US + 4    # the quiet RX pair again: lock lost


@pytest.mark.parametrize("tx_latency, rx_latency", [(1, 1), (4, 6), (CONFIG["tx_latency"],
                                                                CONFIG["rx_latency"])])
def test_tx_and_rx_latencies_in_word_clocks(tx_latency, rx_latency):
    """A word written on the TX bus reaches the pins tx_latency TX word clocks later, and so does
    the electrical-idle request; a word on the RX pins reaches the bus rx_latency RX word clocks
    later."""
    b = ModelBench(tx_latency=tx_latency, rx_latency=rx_latency)
    p, m = b.pins, b.model
    old, new = 0x2B7 << 10 | 0x17C, 0x0F3 << 10 | 0x2AA
    bus = lambda w: (w & 0x3FF) | ((w >> 10) << 12)
    log = {}
    state = {"locked": False}

    def main():
        yield from power_up(b)
        yield b.tx_bus.eq(bus(old))
        yield m.rx_idle.eq(0)
        yield from cycles_until(p.ch0_ffs_rlol, 0, 10*US)
        for _ in range(40):
            yield
        state["locked"] = True
        for _ in range(200):
            yield

    def until(sig, value, limit=50):
        for n in range(limit):
            if (yield sig) == value:
                return n
            yield
        return None

    @passive
    def tx():
        while not state["locked"]:
            yield
        yield b.tx_bus.eq(bus(new))
        yield
        log["tx"] = 1 + (yield from until(m.tx_word, new))
        yield p.ch0_ffc_ei_en.eq(1)
        yield
        log["ei"] = 1 + (yield from until(m.tx_idle, 1))

    @passive
    def rx():
        yield m.rx_word.eq(old)
        while not state["locked"]:
            yield
        yield m.rx_word.eq(new)
        yield
        log["rx"] = 1 + (yield from until(b.rx_bus, bus(new)))

    run_dcua_sim(b, {"dcu": main(), "sata_tx": tx(), "sata_rx": rx()})
    # Counted from the write, which takes one cycle.
    assert log["tx"] == 1 + tx_latency
    assert log["ei"] == tx_latency          # the idle request has no bus register
    assert log["rx"] == 1 + rx_latency


def test_a_latency_below_the_bus_register_is_refused():
    with pytest.raises(ValueError, match="tx_latency = 0"):
        ModelBench(tx_latency=0)
