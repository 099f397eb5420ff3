# SPDX-License-Identifier: BSD-2-Clause
"""ECP5 DCU SerDes wrapper: DCUA parameters, reset sequencing, datapath mapping and SCI control.

Elaboration and Migen simulation only (no place and route): the DCUA and the reset synchroniser are
replaced by stand-ins, and the test drives the DCU's status outputs and data bus directly.
"""

from types import SimpleNamespace

import pytest

from migen import *
from migen.genlib.resetsync import AsyncResetSynchronizer

from ecpsata.phy.serdes import SerDesInterface, GEN1, GEN2
from ecpsata.phy.ecp5.serdes import ECP5SATASerDes, CDR_PROFILES, sata_pads
from ecpsata.phy.ecp5.sci import ECP5SCIMaster, ECP5SCIControl


def make_pads():
    return SimpleNamespace(tx_p=Signal(), tx_n=Signal(), rx_p=Signal(), rx_n=Signal())


def make(**kwargs):
    args = dict(pads=make_pads(), refclk=Signal(), sys_clk_freq=75e6)
    args.update(kwargs)
    return ECP5SATASerDes(**args)


def instances(module, of_type):
    return [s for s in module.get_fragment().specials
            if isinstance(s, Instance) and s.of == of_type]


# DCUA parameters ----------------------------------------------------------------------------------

def test_is_a_serdes_interface():
    m = make()
    assert isinstance(m, SerDesInterface)
    assert len(m.tx_data) == 20 and len(m.rx_data) == 20


def test_gen2_parameters():
    m = make(dual=1, channel=0)
    p = m.dcua_params
    # Reference clock x20 from 150 MHz, no division: 3.0 Gb/s.
    assert p["p_D_REFCK_MODE"] == "0b000"
    assert p["p_D_TX_VCO_CK_DIV"] == "0b000"
    assert p["p_CH0_RX_DCO_CK_DIV"] == "0b000"
    assert p["p_CH0_RATE_MODE_TX"] == "0b0" and p["p_CH0_RATE_MODE_RX"] == "0b0"
    # Runtime Gen1 through the half-rate pins (or the dividers: the pins then stay low).
    assert p["i_CH0_FFC_RATE_MODE_TX"] is m.rate_pins
    assert p["i_CH0_FFC_RATE_MODE_RX"] is m.rate_pins
    # 10BSER, PCS bypassed, 1:2 gearing, word clock = PCLK (the geared half clock).
    assert p["p_CH0_PROTOCOL"] == "10BSER"
    assert p["p_CH0_ENC_BYPASS"] == "0b1" and p["p_CH0_DEC_BYPASS"] == "0b1"
    assert p["p_CH0_WA_BYPASS"] == "0b1"
    assert p["p_CH0_TX_GEAR_MODE"] == "0b1" and p["p_CH0_RX_GEAR_MODE"] == "0b1"
    assert p["p_CH0_FF_TX_H_CLK_EN"] == "0b1" and p["p_CH0_FF_TX_F_CLK_DIS"] == "0b1"
    assert p["p_CH0_FF_RX_H_CLK_EN"] == "0b1" and p["p_CH0_FF_RX_F_CLK_DIS"] == "0b1"
    assert p["o_CH0_FF_TX_PCLK"] is m.tx_clk and p["i_CH0_FF_TXI_CLK"] is m.tx_clk
    assert p["o_CH0_FF_RX_PCLK"] is m.rx_clk and p["i_CH0_FF_RXI_CLK"] is m.rx_clk
    m = make(word_clk="h_clk")
    p = m.dcua_params
    assert p["o_CH0_FF_TX_H_CLK"] is m.tx_clk and p["i_CH0_FF_TXI_CLK"] is m.tx_clk
    assert p["o_CH0_FF_RX_H_CLK"] is m.rx_clk and p["i_CH0_FF_RXI_CLK"] is m.rx_clk
    m = make(dual=1, channel=0)
    p = m.dcua_params
    # Clocking facts from hardware.
    assert p["p_D_SYNC_LOCAL_EN"] == "0b1"
    assert p["p_D_BITCLK_LOCAL_EN"] == "0b1"
    # RLOS / receiver settings that resolved OOB on an ECPIX-5.
    assert p["p_CH0_RX_LOS_LVL"] == "0b010"
    assert p["p_CH0_RX_LOS_HYST_EN"] == "0b0"
    assert p["p_CH0_REQ_EN"] == "0b1"
    assert p["p_CH0_REQ_LVL_SET"] == "0b01"
    assert p["p_CH0_RXTERM_CM"] == "0b10"
    assert p["p_CH0_PDEN_SEL"] == "0b0"
    assert p["p_D_CDR_LOL_SET"] == "0b10"
    assert p["o_CH0_FFS_RLOS"] is not None
    # Gen2 CDR profile.
    for k, v in CDR_PROFILES["gen2"].items():
        assert p["p_CH0_" + k] == v
    # Placement and no stray channel-1 settings.
    dcu, = instances(m, "DCUA")
    attrs = dict(dcu.attr)
    assert attrs == {"LOC": "DCU1", "CHAN": "CH0"}
    assert not any("CH1_" in k for k in p)
    assert not any("CHX" in k for k in p)


def test_gen1_build_parameters():
    m = make(gen=GEN1, dual=0, channel=1)
    p = m.dcua_params
    assert p["p_D_TX_VCO_CK_DIV"] == "0b010"       # /2: 1.5 Gb/s
    assert p["p_CH1_RX_DCO_CK_DIV"] == "0b010"
    for k, v in CDR_PROFILES["gen1"].items():
        assert p["p_CH1_" + k] == v
    assert CDR_PROFILES["gen1"]["DCOFTNRG"] != CDR_PROFILES["gen2"]["DCOFTNRG"]
    assert p["p_D_SETICONST_CH"] == "0b00"
    assert m.word_clk_freq == 75e6
    assert not any("CH0_" in k for k in p)
    dcu, = instances(m, "DCUA")
    assert dict(dcu.attr) == {"LOC": "DCU0", "CHAN": "CH1"}


def test_cdr_override():
    m = make(cdr={"DCOSTEP": "0b01"})
    assert m.dcua_params["p_CH0_DCOSTEP"] == "0b01"
    assert m.dcua_params["p_CH0_DCOCTLGI"] == CDR_PROFILES["gen2"]["DCOCTLGI"]
    m = make(gen=GEN2, cdr="gen1")
    assert m.dcua_params["p_CH0_DCOFTNRG"] == CDR_PROFILES["gen1"]["DCOFTNRG"]


@pytest.mark.parametrize("freq,mul,mode", [(150e6, 20, "0b000"), (120e6, 25, "0b100")])
def test_refclk_multiplier(freq, mul, mode):
    m = make(refclk_freq=freq, refclk_mul=mul)
    assert m.dcua_params["p_D_REFCK_MODE"] == mode


def test_refclk_x10_rejected_for_150mhz():
    with pytest.raises(ValueError):
        make(refclk_freq=150e6, refclk_mul=10)


def test_fabric_refclk_goes_to_pll_and_cdr():
    refclk = Signal()
    m = make(refclk=refclk)
    assert m.dcua_params["i_D_REFCLKI"] is refclk
    assert m.dcua_params["i_CH0_RX_REFCLK"] is refclk
    assert instances(m, "EXTREFB") == []


def test_extrefb_refclk():
    pads = SimpleNamespace(clk_p=Signal(), clk_n=Signal())
    m = make(refclk=pads, dual=1)
    ext, = instances(m, "EXTREFB")
    assert dict(ext.attr) == {"LOC": "EXTREF1"}
    ports = {item.name: item.expr for item in ext.items if isinstance(item, Instance.Input)}
    assert ports["REFCLKP"] is pads.clk_p and ports["REFCLKN"] is pads.clk_n
    assert m.dcua_params["i_D_REFCLKI"] is m.refclk
    assert m.dcua_params["i_CH0_RX_REFCLK"] is m.refclk


def test_polarity_build_time():
    m = make(tx_polarity=1, rx_polarity=0)
    assert m.dcua_params["p_CH0_INVERT_TX"] == "0b1"
    assert m.dcua_params["p_CH0_INVERT_RX"] == "0b0"


def test_tx_idle_and_ldr():
    m = make()
    assert m.dcua_params["i_CH0_FFC_LDR_CORE2TX_EN"] == 0
    assert isinstance(m.dcua_params["i_CH0_FFC_EI_EN"], Signal)
    m = make(oob_method="ldr")
    assert isinstance(m.dcua_params["i_CH0_FFC_LDR_CORE2TX_EN"], Signal)
    assert m.dcua_params["p_CH0_LDR_CORE2TX_SEL"] == "0b0"


def test_g8b10b_mode():
    m = make(mode="g8b10b")
    p = m.dcua_params
    assert p["p_CH0_PROTOCOL"] == "G8B10B"
    assert p["p_CH0_ENC_BYPASS"] == "0b0" and p["p_CH0_DEC_BYPASS"] == "0b0"
    assert p["p_CH0_LSM_DISABLE"] == "0b1"
    assert p["p_CH0_UDF_COMMA_A"] == "0x283" and p["p_CH0_UDF_COMMA_B"] == "0x17c"
    assert p["i_CH0_FFC_ENABLE_CGALIGN"] is m.rx_cgalign


def test_sata_pads_from_sma():
    tx = SimpleNamespace(p=Signal(), n=Signal())
    rx = SimpleNamespace(p=Signal(), n=Signal())
    pads = sata_pads(tx=tx, rx=rx)
    m = make(pads=pads)
    assert m.dcua_params["o_CH0_HDOUTP"] is tx.p and m.dcua_params["o_CH0_HDOUTN"] is tx.n
    assert m.dcua_params["i_CH0_HDINP"] is rx.p and m.dcua_params["i_CH0_HDINN"] is rx.n


def test_timing_constraints():
    class Platform:
        def __init__(self):
            self.constraints = []
        def add_period_constraint(self, clk, period):
            self.constraints.append((clk, period))
    m, plat = make(), Platform()
    m.add_timing_constraints(plat)
    assert plat.constraints == [(m.tx_clk, pytest.approx(1e9/150e6)), (m.rx_clk, pytest.approx(1e9/150e6))]


# Simulation: reset sequencing and datapath ----------------------------------------------------------

class _NoInstance:
    @staticmethod
    def lower(dr):
        return Module()


class _SimResetSync:
    @staticmethod
    def lower(dr):
        m = Module()
        m.comb += dr.cd.rst.eq(dr.async_reset)
        return m


SIM_OVERRIDES = {Instance: _NoInstance, AsyncResetSynchronizer: _SimResetSync}
# sys 50 MHz (period 30), Gen2 word clock 150 MHz (period 10).
SIM_CLOCKS = {"sys": 30, "sata_tx": 10, "sata_rx": 10}
SIM_TIMINGS = dict(por=0.2e-6, tx_pll_reset=0.2e-6, tx_pll_lock=1e-6, tx_pll_timeout=40e-6,
    tx_pcs_reset=0.2e-6, rx_cdr_reset=0.2e-6, rx_cdr_lock=1e-6, rx_cdr_timeout=20e-6,
    rx_pcs_reset=0.2e-6, meter_window=64)


def test_reset_sequencing_and_datapath():
    m = make(sys_clk_freq=50e6, timings=SIM_TIMINGS)
    p = m.dcua_params
    plol, rlol = p["o_D_FFS_PLOL"], p["o_CH0_FFS_RLOL"]
    tx_bus = [p["i_CH0_FF_TX_D_%d" % n] for n in range(24)]
    rx_bus = [p["o_CH0_FF_RX_D_%d" % n] for n in range(24)]
    log = {}

    def wait_for(sig, value, limit):
        for n in range(limit):
            if (yield sig) == value:
                return n
            yield
        raise AssertionError("timeout waiting for {} == {}".format(sig, value))

    def sys_gen():
        yield plol.eq(1)
        yield rlol.eq(1)
        for _ in range(200):
            yield
        assert (yield m.tx_ready) == 0 and (yield m.rx_ready) == 0
        assert (yield p["i_D_FFC_TRST"]) == 0          # PLL out of reset, waiting for lock
        assert (yield p["i_CH0_FFC_LANE_TX_RST"]) == 1  # lane held until the PLL locks
        yield plol.eq(0)
        # PLL lock (1 us) + lane reset + at least one full meter window (64 cycles).
        n = yield from wait_for(m.tx_ready, 1, 1000)
        assert 50 + 10 + 64 <= n <= 50 + 10 + 3*64 + 20
        assert (yield m.rx_ready) == 0                  # TX not gated on RX
        assert (yield p["i_CH0_FFC_LANE_TX_RST"]) == 0
        log["tx_count"] = (yield m.tx_clk_count)
        yield rlol.eq(0)
        yield from wait_for(m.rx_ready, 1, 200)
        assert (yield p["i_CH0_FFC_RRST"]) == 0 and (yield p["i_CH0_FFC_LANE_RX_RST"]) == 0
        # Datapath: raw TX word to bus bits [0:10] and [12:22].
        log["sys_ready"] = True
        for _ in range(30):
            yield
        # CDR loses lock (line idle): RX drops, TX stays.
        yield rlol.eq(1)
        for _ in range(5):
            yield
        assert (yield m.rx_ready) == 0 and (yield m.tx_ready) == 1
        # Rate change to Gen1: half-rate pins set, TX restarts; the (simulated) TX clock stays at
        # the Gen2 rate, so the clock meter must keep TX not ready.
        yield m.gen.eq(GEN1)
        yield from wait_for(m.rate_half, 1, 10)
        for _ in range(5):
            yield
        assert (yield m.tx_ready) == 0
        for _ in range(600):
            yield
            assert (yield m.tx_ready) == 0
        log["done"] = True

    @passive
    def tx_gen():
        while not log.get("sys_ready"):
            yield
        yield m.tx_data.eq(0xA5C3F)
        for _ in range(3):
            yield
        word = 0
        for n in range(24):
            word |= (yield tx_bus[n]) << n
        log["tx_bus"] = word

    @passive
    def rx_gen():
        while not log.get("sys_ready"):
            yield
        value = (0x2B7 << 12) | 0x17C | (1 << 10) | (1 << 23)  # junk in unused bits
        for n in range(24):
            yield rx_bus[n].eq((value >> n) & 1)
        for _ in range(3):
            yield
        log["rx_data"] = (yield m.rx_data)

    run_simulation(m, {"sys": [sys_gen()], "sata_tx": [tx_gen()], "sata_rx": [rx_gen()]},
        clocks=SIM_CLOCKS, special_overrides=SIM_OVERRIDES)
    assert log.get("done")
    # Expected edges per 64-cycle window: 64 * 150/50 / 2**div_log2.
    assert abs(log["tx_count"] - m.tx_meter.expected(150e6, 50e6)) <= 2
    assert log["tx_bus"] == (0xA5C3F & 0x3FF) | ((0xA5C3F >> 10) << 12)
    assert log["tx_bus"] == 0x29703F
    assert log["tx_bus"] & ((1 << 10) | (1 << 11) | (1 << 22) | (1 << 23)) == 0
    assert log["rx_data"] == (0x2B7 << 10) | 0x17C


# SCI ----------------------------------------------------------------------------------------------

class SCIDut(Module):
    def __init__(self, **kwargs):
        self.submodules.master = ECP5SCIMaster()
        self.submodules.ctrl = ECP5SCIControl(self.master, **kwargs)


def sci_model(master, regs, log):
    """DCU side of the SCI bus: channel registers in ``regs``, dual registers at 0x100 + adr."""
    @passive
    def gen():
        while True:
            ch, aux = (yield master.sci_ch), (yield master.sci_aux)
            adr = (yield master.sci_addr) + (0x100 if aux else 0)
            if (ch or aux) and (yield master.sci_rd):
                yield master.sci_rdata.eq(regs.get(adr, 0))
            if (ch or aux) and not (yield master.sci_wstn):
                value = (yield master.sci_wdata)
                if not log or log[-1] != (adr, value):
                    log.append((adr, value))
                regs[adr] = value
            assert not (ch and aux)
            yield
    return gen()


def ext_start(ctrl, adr, we=0, dat_w=0, aux=0):
    """One access on the SCI control's raw port (a one-cycle start)."""
    yield ctrl.ext_aux.eq(aux)
    yield ctrl.ext_adr.eq(adr)
    yield ctrl.ext_dat_w.eq(dat_w)
    yield ctrl.ext_we.eq(we)
    yield ctrl.ext_start.eq(1)
    yield
    yield ctrl.ext_start.eq(0)


def test_sci_polarity_and_cdr_hold():
    dut = SCIDut(rx_invert=0, tx_invert=1)
    regs = {0x01: 0xA4, 0x18: 0x81}
    log = []

    def main():
        # After reset the polarity register is written once: TX inverted (build time), others kept.
        for _ in range(60):
            yield
        assert regs[0x01] == 0xA4 | 0b10
        assert regs[0x18] == 0x81
        yield dut.ctrl.rx_polarity.eq(1)
        yield dut.ctrl.tx_polarity.eq(1)   # cancels the build-time inversion
        for _ in range(60):
            yield
        assert regs[0x01] == 0xA4 | 0b01
        yield dut.ctrl.rx_cdr_hold.eq(1)
        for _ in range(40):
            yield
        assert regs[0x18] == 0x81 | 0x40
        yield dut.ctrl.rx_cdr_hold.eq(0)
        for _ in range(40):
            yield
        assert regs[0x18] == 0x81
        # Raw port: read a dual register, write a channel register.
        regs[0x100 + 0x05] = 0x5A
        yield from ext_start(dut.ctrl, 0x05, aux=1)
        for _ in range(20):
            yield
        assert (yield dut.ctrl.ext_dat_r) == 0x5A
        assert (yield dut.ctrl.ext_busy) == 0
        yield from ext_start(dut.ctrl, 0x2C, we=1, dat_w=0x33)
        for _ in range(20):
            yield
        assert regs[0x2C] == 0x33
        # Refresh rewrites the polarity register (e.g. after a DCU reset restored defaults).
        regs[0x01] = 0xA4
        yield dut.ctrl.refresh.eq(1)
        yield
        yield dut.ctrl.refresh.eq(0)
        for _ in range(60):
            yield
        assert regs[0x01] == 0xA4 | 0b01

    run_simulation(dut, [main(), sci_model(dut.master, regs, log)])
    written = [adr for adr, _ in log]
    assert written == [0x01, 0x18, 0x01, 0x18, 0x18, 0x18, 0x2C, 0x01, 0x18]


def test_no_sci_access_starts_under_electrical_idle():
    """Rewriting a channel register while electrical idle was on made a drive abandon its ALIGN
    stream: requests (a polarity change, a raw write, a refresh) wait for the idle to end."""
    dut = SCIDut(rx_invert=0, tx_invert=0)
    regs = {0x01: 0x00}
    log = []

    def main():
        for _ in range(60):               # the write after reset
            yield
        del log[:]
        yield dut.ctrl.tx_idle.eq(1)
        for _ in range(4):                # (through the synchroniser)
            yield
        yield dut.ctrl.rx_polarity.eq(1)
        yield from ext_start(dut.ctrl, 0x2C, we=1, dat_w=0x33)
        yield dut.ctrl.refresh.eq(1)
        yield
        yield dut.ctrl.refresh.eq(0)
        for _ in range(200):
            assert (yield dut.master.start) == 0
            yield
        assert log == [] and (yield dut.ctrl.ext_busy) == 1
        yield dut.ctrl.tx_idle.eq(0)
        for _ in range(120):
            yield
        assert regs[0x01] & 1 == 1 and regs[0x2C] == 0x33 and (yield dut.ctrl.ext_busy) == 0

    run_simulation(dut, [main(), sci_model(dut.master, regs, log)])
    assert [adr for adr, _ in log] == [0x01, 0x18, 0x2C]   # (a refresh rewrites both)


def test_bringup_registers_in_a_module_of_their_own():
    """The registers sit beside the wrapper, which has none: the SoC and the PHY both hold the
    wrapper, and a register of it would be collected twice under two names."""
    from ecpsata.phy.ecp5.bringup import ECP5SerDesBringup
    m = make(gen1_method=True)
    regs = ECP5SerDesBringup(m)
    assert m.get_csrs() == []
    names = sorted(c.name for c in regs.get_csrs())
    assert names == ["gen1_method", "rx_clk_count", "sci_control", "sci_status", "status",
                     "tx_clk_count"]
    assert [f.name for f in regs.status.fields.fields] == [
        "tx_ready", "rx_ready", "tx_pll_locked", "rx_cdr_locked", "rx_los", "half_rate",
        "rate_pins"]
    assert (regs.div_log2, regs.window) == (m.tx_meter.div_log2, m.tx_meter.window)


def test_without_the_gen1_method_the_pins_follow_the_rate_and_no_register_is_added():
    """A board's build with --without-gen1-method: no Gen1 method logic, the half-rate pins driven
    by rate_half itself (the netlist of the build without the setting), no gen1_method register."""
    from ecpsata.phy.ecp5.bringup import ECP5SerDesBringup
    m = make()
    p = m.dcua_params
    assert p["i_CH0_FFC_RATE_MODE_TX"] is m.rate_half and p["i_CH0_FFC_RATE_MODE_RX"] is m.rate_half
    regs = ECP5SerDesBringup(m)
    assert "gen1_method" not in [c.name for c in regs.get_csrs()]
    assert "rate_pins" not in [f.name for f in regs.status.fields.fields]


# On the behavioural DCUA model ----------------------------------------------------------------------
# (tests/support/dcua_harness.py: the wrapper's own DCUA Instance, modelled; sys at the boards' 75 MHz.)

from ecpsata.phy.ecp5.dcua_model import drive_current_ua
from tests.support.dcua_harness import DCUABench, line_words, run_dcua_sim, us

FAST_TX = dict(tx_pll_lock=5e-6, meter_window=256)
WORDS = (0x17C | (0x2AA << 10), 0x2AA | (0x0F3 << 10))


def _link_up(bench, limit_us=120, before=None):
    """Runs until both ready flags and a received word; returns times in us and the state seen.
    `before`: a generator run first (on sys, the line already active); the times count after it."""
    serdes, model = bench.serdes, bench.model
    log = {}

    def main():
        yield model.rx_idle.eq(0)
        if before is not None:
            yield from before
        for n in range(us(limit_us)):
            if (yield serdes.tx_ready) and "tx_ready" not in log:
                log["tx_ready"] = n/75
            if (yield serdes.rx_ready) and (yield serdes.rx_data) in WORDS and "rx_word" not in log:
                log["rx_word"] = n/75
            if "tx_ready" in log and "rx_word" in log:
                break
            yield
        log["tx_gen"] = (yield model.tx_gen)
        log["pins"] = (yield serdes.rate_pins)
        log["tx_clk_count"] = (yield serdes.tx_clk_count)

    run_dcua_sim(bench, {"sys": main(), "sata_rx": line_words(model, WORDS)})
    return log


def test_word_clocks_from_pclk_by_default():
    m = make(timings=FAST_TX)
    p = m.dcua_params
    assert p.get("o_CH0_FF_TX_PCLK") is m.tx_clk and p.get("o_CH0_FF_RX_PCLK") is m.rx_clk
    assert "o_CH0_FF_TX_H_CLK" not in p and "o_CH0_FF_RX_H_CLK" not in p
    bench = DCUABench(m)
    assert (bench.model.tx_clk_source, bench.model.rx_clk_source) == ("FF_TX_PCLK", "FF_RX_PCLK")
    log = _link_up(bench)
    assert "tx_ready" in log and "rx_word" in log
    assert log["tx_gen"] == GEN2
    assert abs(log["tx_clk_count"] - m.tx_meter.expected(150e6, 75e6)) <= 2


def test_runtime_gen1_through_half_rate_pins():
    m = make(timings=FAST_TX)
    bench = DCUABench(m)
    bench.model.rx_gen.reset = GEN1   # the drive answers at Gen1
    m.gen.reset = GEN1
    log = _link_up(bench)
    assert "tx_ready" in log and "rx_word" in log
    assert log["tx_gen"] == GEN1
    assert abs(log["tx_clk_count"] - m.tx_meter.expected(75e6, 75e6)) <= 2


def _gen1_by_dividers(codes, dividers, limit_us=150):
    """The host's order for the Gen1 method: linked at Gen2 first, then /2 (`codes`:
    tx_vco_ck_div, rx_dco_ck_div) written through the raw SCI port into dual register 0x0d and
    channel register 0x1a, then `gen1_dividers` (1: dividers, 0: the half-rate pins) and Gen1
    asked for. Returns (serdes, {tx_ready, rx_word: us after the request, tx_gen, tx_clk_count})."""
    m = make(timings=FAST_TX, gen1_method=True)
    bench = DCUABench(m)
    model = bench.model

    def sci_write(adr, value, aux):
        yield m.sci.ext_adr.eq(adr)
        yield m.sci.ext_dat_w.eq(value)
        yield m.sci.ext_we.eq(1)
        yield m.sci.ext_aux.eq(aux)
        yield m.sci.ext_start.eq(1)
        yield
        yield m.sci.ext_start.eq(0)
        for _ in range(200):
            yield
            if not (yield m.sci.ext_busy):
                return
        raise AssertionError("SCI write did not finish")

    def at_gen2_then_gen1():
        for _ in range(us(60)):
            if (yield m.tx_ready) and (yield m.rx_ready):
                break
            yield
        assert (yield model.tx_gen) == GEN2
        yield from sci_write(0x0D, codes[0], 1)
        yield from sci_write(0x1A, codes[1], 0)
        yield m.gen1_dividers.eq(dividers)
        yield m.gen.eq(GEN1)
        yield model.rx_gen.eq(GEN1)               # the drive, offered Gen1, answers at Gen1
        for _ in range(20):
            yield

    return m, _link_up(bench, limit_us, before=at_gen2_then_gen1())


def test_runtime_gen1_through_the_dividers():
    # /2 in both dividers (TN1261's tx_vco_ck_div, dual 0x0d, and rx_dco_ck_div, channel 0x1a)
    # and the pins at full rate: Gen1 on the line, the word clock at 75 MHz, the link up again.
    m, log = _gen1_by_dividers((0b010, 0b010), 1)
    assert "tx_ready" in log and "rx_word" in log
    assert log["tx_gen"] == GEN1 and log["pins"] == 0
    assert abs(log["tx_clk_count"] - m.tx_meter.expected(75e6, 75e6)) <= 2


@pytest.mark.parametrize("codes, dividers, why", [
    ((0b000, 0b000), 1, "the method set, the dividers left at /1: Gen2 on the line"),
    ((0b010, 0b010), 0, "the dividers at /2 and the pins too: a quarter of the rate"),
])
def test_gen1_method_and_dividers_that_disagree_keep_tx_down(codes, dividers, why):
    # The clock meter sees a word clock that is not Gen1's: TX does not become ready again.
    m, log = _gen1_by_dividers(codes, dividers, limit_us=60)
    assert "tx_ready" not in log, why
    assert log["tx_gen"] != GEN1, why


def test_default_tx_swing_is_the_drive_that_linked():
    # liteiclink's slices, the set that linked with a drive (doc/ecp5-serdes.md):
    # 400 + 3200 + 2400 uA on main data, lower than a 1000 mV PCIe profile.
    m = make()
    p = m.dcua_params
    assert DCUABench(m).model.tx_drive_ua == 6000
    assert (p["p_CH0_TDRV_SLICE0_SEL"], p["p_CH0_TDRV_SLICE0_CUR"]) == ("0b01", "0b011")
    assert (p["p_CH0_TDRV_SLICE2_SEL"], p["p_CH0_TDRV_SLICE2_CUR"]) == ("0b01", "0b11")
    assert (p["p_CH0_TDRV_SLICE3_SEL"], p["p_CH0_TDRV_SLICE3_CUR"]) == ("0b01", "0b10")
    for n in (1, 4, 5):
        assert p["p_CH0_TDRV_SLICE%d_SEL" % n] == "0b00"
    assert drive_current_ua({n: (int(p["p_CH0_TDRV_SLICE%d_SEL" % n], 0),
                                 int(p["p_CH0_TDRV_SLICE%d_CUR" % n], 0)) for n in range(6)}) == 6000


def test_gen1_build_cdr_bias_lets_the_cdr_lock():
    # LUNA: the CDR bias D_REQ_ISET needs 010 or 011 (doc/ecp5-serdes.md); the model's CDR does not
    # lock otherwise.
    m = make(gen=GEN1, timings=FAST_TX)
    bench = DCUABench(m)
    bench.model.rx_gen.reset = GEN1
    log = _link_up(bench)
    assert "tx_ready" in log
    assert "rx_word" in log, "no word received at Gen1 in 120 us"
    assert log["tx_gen"] == GEN1
    assert m.dcua_params["p_D_REQ_ISET"] in ("0b010", "0b011")
