# SPDX-License-Identifier: BSD-2-Clause
"""ECP5 DCU implementation of the SerDes seam (ecpsata/phy/serdes.py).

One DCU channel in 10BSER mode (PCS bypass: 8b10b and comma alignment are done in fabric by the
vendor-neutral PHY), 1:2 gearing: a 20-bit fabric word (two raw 10-bit symbols, the first in bits
[0:10]) at line rate / 20, carried on the DCU's 24-bit bus at bits [0:10] and [12:22].

# Ref: Lattice TN1261 (ECP5 and ECP5-5G SERDES/PCS Usage Guide); prjtrellis DCU fuzzing and nextpnr
#      ecp5/dcu_bitstream.h (which DCUA parameters reach the bitstream); doc/ecp5-serdes.md
#      (settings proven on hardware); Diamond-generated DCUA netlists (rate-dependent CDR values).

Settings that matter (see the module docs in the report / README):
- nextpnr maps only parameters that have bitstream bits. ``D_TX_MAX_RATE``, ``CHx_CDR_MAX_RATE``,
  ``CHx_PROTOCOL`` and ``CHx_TXAMPLITUDE`` are Diamond-only: the rate-dependent bits (dividers,
  ``CHx_RATE_MODE_*``, ``CHx_DCO*`` CDR tuning, TX driver slices) are set explicitly here.
- Runtime Gen2 <-> Gen1: the channel's half-rate pins ``CHx_FFC_RATE_MODE_TX/RX`` follow
  ``serdes.gen`` (TX PLL and CDR DCO keep running at the Gen2 rate), or, with ``gen1_dividers``,
  stay at full rate while the host has written /2 into the TX and CDR dividers through the SCI
  (ecpsata/host/phy.py's ``gen1_method``). The CDR tuning profile is static
  (chosen by the ``gen`` build argument or ``cdr``) and can be changed on hardware through the SCI
  port.
"""

from types import SimpleNamespace

from migen import *
from migen.genlib.cdc import MultiReg
from migen.genlib.resetsync import AsyncResetSynchronizer

from litex.gen import *

from ecpsata.phy.serdes import SerDesInterface, WORD_BITS, GEN1, GEN2
from ecpsata.phy.ecp5.sci import ECP5SCIMaster, ECP5SCIControl
from ecpsata.phy.ecp5.reset import ECP5ResetSequencer, ClockMeter, TIMINGS

# Encodings (TN1261, prjtrellis) ------------------------------------------------------------------

REFCK_MODE = {25: "0b100", 20: "0b000", 16: "0b010", 10: "0b001", 8: "0b011"}
VCO_CK_DIV = {1: "0b000", 2: "0b010", 4: "0b100", 8: "0b101", 16: "0b110", 32: "0b111"}

LINE_RATE = {GEN1: 1.5e9, GEN2: 3.0e9}

# CDR (receive DCO) tuning profiles. Values from Diamond-generated netlists; the DCO bits are
# undocumented. "gen2": the 10BSER sample-code set LiteICLink uses (also what Diamond emits for
# generic G8B10B at 2 Gb/s), the set under which Gen2 linked on an ECPIX-5. "gen1": the set Diamond
# emits for its low-rate presets (GbE 1.25 Gb/s, PCIe 2.5 Gb/s); Gen1 receive was dead on hardware
# with the gen2 set, so this is the first thing to try, not a proven value.
CDR_PROFILES = {
    "gen2": dict(
        DCOCALDIV="0b000", DCOCTLGI="0b011", DCODISBDAVOID="0b0", DCOFLTDAC="0b00",
        DCOFTNRG="0b001", DCOIOSTUNE="0b010", DCOITUNE="0b00", DCOITUNE4LSB="0b010",
        DCOIUPDNX2="0b1", DCONUOFLSB="0b100", DCOSCALEI="0b01", DCOSTARTVAL="0b010",
        DCOSTEP="0b11", DCOATDCFG="0b00", DCOATDDLY="0b00", DCOBYPSATD="0b1",
        CALIB_CK_MODE="0b0",
    ),
    "gen1": dict(
        DCOCALDIV="0b001", DCOCTLGI="0b010", DCODISBDAVOID="0b0", DCOFLTDAC="0b01",
        DCOFTNRG="0b110", DCOIOSTUNE="0b000", DCOITUNE="0b00", DCOITUNE4LSB="0b111",
        DCOIUPDNX2="0b1", DCONUOFLSB="0b101", DCOSCALEI="0b00", DCOSTARTVAL="0b000",
        DCOSTEP="0b00", DCOATDCFG="0b00", DCOATDDLY="0b00", DCOBYPSATD="0b1",
        CALIB_CK_MODE="0b0",
    ),
}

# DCU-wide analog bias settings paired with the profiles (same sources). The CDR bias D_REQ_ISET
# needs 010 or 011 (LUNA, doc/ecp5-serdes.md): gen1 takes 011, the value of the set that linked at Gen2
# (Diamond's low-rate presets emit 000). No public Gen1 setting has linked, so the other gen1 values
# stay Diamond's until one does.
DCU_BIAS_PROFILES = {
    "gen2": dict(D_SETIRPOLY_AUX="0b01", D_SETICONST_AUX="0b01", D_SETIRPOLY_CH="0b01",
                 D_SETICONST_CH="0b10", D_REQ_ISET="0b011", D_PD_ISET="0b11"),
    "gen1": dict(D_SETIRPOLY_AUX="0b00", D_SETICONST_AUX="0b00", D_SETIRPOLY_CH="0b00",
                 D_SETICONST_CH="0b00", D_REQ_ISET="0b011", D_PD_ISET="0b00"),
}

# TX driver slices for a nominal swing. 600: liteiclink's slices (400 + 3200 + 2400 uA on main
# data), the set that linked with a drive (doc/ecp5-serdes.md), the default; "600" on Diamond's scale,
# whose 800 and 1000 mV sets (Diamond netlists for TXAMPLITUDE 800 / 1000) drive 8.0 and 10.0 mA.
# SATA Gen2i allows 400..700 mVppd at the connector.
TX_SWING = {
    600:  dict(TDRV_SLICE0_SEL="0b01", TDRV_SLICE0_CUR="0b011", TDRV_SLICE1_SEL="0b00",
               TDRV_SLICE1_CUR="0b000", TDRV_SLICE2_SEL="0b01", TDRV_SLICE2_CUR="0b11",
               TDRV_SLICE3_SEL="0b01", TDRV_SLICE3_CUR="0b10", TDRV_SLICE4_SEL="0b00",
               TDRV_SLICE4_CUR="0b00", TDRV_SLICE5_SEL="0b00", TDRV_SLICE5_CUR="0b00"),
    800:  dict(TDRV_SLICE0_SEL="0b00", TDRV_SLICE0_CUR="0b000", TDRV_SLICE1_SEL="0b00",
               TDRV_SLICE1_CUR="0b000", TDRV_SLICE2_SEL="0b01", TDRV_SLICE2_CUR="0b11",
               TDRV_SLICE3_SEL="0b01", TDRV_SLICE3_CUR="0b11", TDRV_SLICE4_SEL="0b01",
               TDRV_SLICE4_CUR="0b01", TDRV_SLICE5_SEL="0b00", TDRV_SLICE5_CUR="0b00"),
    1000: dict(TDRV_SLICE0_SEL="0b01", TDRV_SLICE0_CUR="0b011", TDRV_SLICE1_SEL="0b00",
               TDRV_SLICE1_CUR="0b000", TDRV_SLICE2_SEL="0b01", TDRV_SLICE2_CUR="0b11",
               TDRV_SLICE3_SEL="0b01", TDRV_SLICE3_CUR="0b11", TDRV_SLICE4_SEL="0b01",
               TDRV_SLICE4_CUR="0b11", TDRV_SLICE5_SEL="0b00", TDRV_SLICE5_CUR="0b00"),
}

class ECP5SATASerDes(SerDesInterface, LiteXModule):
    """ECP5 DCU channel behind the SerDes seam.

    The seam's signals are attributes of this module (it subclasses ``SerDesInterface``).

    pads: object with ``tx_p``, ``tx_n``, ``rx_p``, ``rx_n`` (the litex-boards ``sata`` resource
      requested without its clock subsignals, or built from ``sma_tx``/``sma_rx``).
    refclk: the DCU reference clock: a fabric clock Signal (fabric PLL, default and proven), or an
      object with ``p``/``n`` (or ``clk_p``/``clk_n``) dedicated reference-clock pads, for which an
      ``EXTREFB`` is instantiated (``extref`` selects EXTREF0/1; defaults to ``dual``).
    sys_clk_freq: frequency of ``sys``, which runs the reset sequencer and the SCI master.
    refclk_freq * refclk_mul must be 3.0 GHz (the TX PLL and CDR run at the Gen2 rate; Gen1 is the
      half-rate mode, or a /2 divider when built with ``gen=GEN1``).
    gen: build-time top rate. GEN2: dividers /1, runtime Gen1 through the half-rate pins. GEN1:
      dividers /2, ``serdes.gen`` ignored (always Gen1).
    mode: "10bser" (raw symbols, default) or "g8b10b" (DCU 8b10b: each 10-bit slot then carries
      the DCU's {flags, K, byte} layout instead of a raw symbol; OOB patterns cannot be sent).
    tx_polarity, rx_polarity: build-time inversion; ``serdes.tx_polarity``/``rx_polarity`` invert
      further at run time through SCI.
    oob_method: "serializer" (OOB as raw words; ``tx_idle`` still drives ``FFC_EI_EN``), "ei"
      (same wiring, named for clarity when the OOB generator uses ``tx_idle``), or "ldr" (adds
      ``ldr_enable``: while set, the TX pads follow ``tx_data[0]`` sampled per word through the
      low-data-rate path; hardware experiments only).
    cdr: CDR profile name ("gen1"/"gen2") or dict of CHx_DCO* overrides; default follows ``gen``.
    tx_swing: 600 (default, the drive that linked), 800 or 1000 (mV nominal), see ``TX_SWING``.
    word_clk: "pclk" (FF_TX_PCLK/FF_RX_PCLK, default: what Diamond netlists and every public ECP5
      SerDes design use) or "h_clk" (FF_TX_H_CLK/FF_RX_H_CLK, the same rate with the 1:2 gearing).
    gen1_method: True: ``gen1_dividers`` chooses at run time between the half-rate pins and the
      dividers for Gen1 (ecpsata/phy/ecp5/bringup.py puts it in a register; the boards' builds
      unless ``--without-gen1-method``, and the simulated ECPIX-5); False (default here): the pins
      only, and no such logic (a core with the fewest parts).

    Clock domains created: ``sata_tx`` (reset while not ``tx_ready``), ``sata_rx`` (reset while not
    ``rx_ready``). Extra status (sys domain): ``tx_clk_count``, ``rx_clk_count`` (clock meter),
    ``tx_pll_locked``, ``rx_cdr_locked``, ``tx_fsm``/``rx_fsm`` (the reset sequencer's, TN1261's
    order: ecpsata/phy/ecp5/reset.py); ``sci`` has a raw register port (``sci.ext_*``).
    ecpsata/phy/ecp5/bringup.py puts that port, the flags and the clock meters in registers.

    Simulation: tests/support/dcua_harness.py runs the wrapper on the behavioural DCUA model
    (ecpsata/phy/ecp5/dcua_model.py) built from ``self.dcu``, the Instance the build emits.
    """

    def __init__(self, pads, refclk, sys_clk_freq,
        refclk_freq = 150e6,
        dual        = 0,
        channel     = 0,
        refclk_mul  = 20,
        gen         = GEN2,
        mode        = "10bser",
        tx_polarity = 0,
        rx_polarity = 0,
        oob_method  = "serializer",
        cdr         = None,
        tx_swing    = 600,
        word_clk    = "pclk",
        extref      = None,
        timings     = None,
        gen1_method = False):
        SerDesInterface.__init__(self)
        assert dual in (0, 1) and channel in (0, 1)
        assert gen in (GEN1, GEN2)
        assert mode in ("10bser", "g8b10b")
        assert oob_method in ("serializer", "ei", "ldr")
        assert word_clk in ("h_clk", "pclk")
        assert refclk_mul in REFCK_MODE
        vco = refclk_freq*refclk_mul
        if abs(vco - LINE_RATE[GEN2]) > 1e6:
            raise ValueError("refclk {:.3f} MHz x{} = {:.3f} GHz, need 3.0 GHz".format(
                refclk_freq/1e6, refclk_mul, vco/1e9))
        self.dual       = dual
        self.channel    = channel
        self.build_gen  = gen
        self.mode       = mode
        self.oob_method = oob_method
        self.line_rate  = LINE_RATE[gen]
        self.word_clk_freq = self.line_rate/WORD_BITS
        tim = dict(TIMINGS, **(timings or {}))

        # Status, sys domain.
        self.tx_pll_locked = Signal()
        self.rx_cdr_locked = Signal()
        self.rate_half     = Signal()  # applied Gen1 on a Gen2 build (pins or dividers)
        # The Gen1 method at run time (``gen1_method``): with ``gen1_dividers`` set, Gen1 comes from
        # the dividers (written by the host), not the pins. Without it the pins follow rate_half.
        self.gen1_method   = gen1_method
        if gen1_method:
            self.rate_pins = Signal()  # the half-rate pins set
        else:
            self.rate_pins = self.rate_half
        self.gen1_dividers = Signal()  # in
        if oob_method == "ldr":
            self.ldr_enable = Signal()  # sata_tx domain
        if mode == "g8b10b":
            self.rx_cgalign = Signal()  # pulse (async) to re-arm the DCU comma aligner

        # # #

        # Reference clock --------------------------------------------------------------------------
        if hasattr(refclk, "p") or hasattr(refclk, "clk_p"):
            p = getattr(refclk, "p", None) if hasattr(refclk, "p") else refclk.clk_p
            n = getattr(refclk, "n", None) if hasattr(refclk, "n") else refclk.clk_n
            self.refclk = Signal()
            self.specials.extrefb = Instance("EXTREFB",
                i_REFCLKP = p,
                i_REFCLKN = n,
                o_REFCLKO = self.refclk,
                p_REFCK_PWDNB     = "0b1",
                p_REFCK_RTERM     = "0b1",  # 100 ohm differential termination
                p_REFCK_DCBIAS_EN = "0b0",  # AC-coupled
            )
            self.extrefb.attr.add(("LOC", "EXTREF{}".format(dual if extref is None else extref)))
        else:
            self.refclk = refclk

        # DCU status and controls --------------------------------------------------------------------
        tx_lol    = Signal()
        rx_lol    = Signal()
        rx_los    = Signal()
        tx_clk    = Signal()
        rx_clk    = Signal()
        tx_bus    = Signal(24)
        rx_bus    = Signal(24)
        # Resets of the DCU, registered from the sequencers below: their decode from several state
        # bits could glitch when a state machine moves between two states that both release a
        # reset, and the DCU's reset inputs act at once (asserted while sys is in reset).
        macro_rst  = Signal(reset=1)
        tx_pll_rst = Signal(reset=1)
        tx_pcs_rst = Signal(reset=1)
        rx_cdr_rst = Signal(reset=1)
        rx_pcs_rst = Signal(reset=1)

        # Clock domains ------------------------------------------------------------------------------
        self.cd_sata_tx = ClockDomain()
        self.cd_sata_rx = ClockDomain()
        self.comb += [
            self.cd_sata_tx.clk.eq(tx_clk),
            self.cd_sata_rx.clk.eq(rx_clk),
        ]
        self.specials += [
            AsyncResetSynchronizer(self.cd_sata_tx, ~self.tx_ready),
            AsyncResetSynchronizer(self.cd_sata_rx, ~self.rx_ready),
        ]
        self.tx_clk = tx_clk
        self.rx_clk = rx_clk

        # Clock meters: TX PLL lock is only trusted when the TX word clock runs at the rate asked
        # for (ECPIX-5: the TX clock was seen dead with the PLL reporting lock).
        f_max = LINE_RATE[gen]/WORD_BITS
        self.tx_meter = ClockMeter("sata_tx", f_max, sys_clk_freq, tim["meter_window"])
        self.rx_meter = ClockMeter("sata_rx", f_max, sys_clk_freq, tim["meter_window"])
        self.tx_clk_count = self.tx_meter.count
        self.rx_clk_count = self.rx_meter.count

        # Rate (Gen2 <-> Gen1 through the half-rate pins, or the dividers) ----------------------------
        # With ``gen1_dividers`` the host has written /2 into both dividers through the SCI and the
        # pins stay at full rate; the gateware still runs Gen1's timing and expects half the word
        # clock. Either change resets both lanes.
        gen_req = Signal(reset=GEN2)
        self.specials += MultiReg(self.gen, gen_req, reset=GEN2)
        rate_change = Signal()
        if gen == GEN2:
            self.sync += [
                rate_change.eq(0),
                If((gen_req == GEN1) != self.rate_half,
                    self.rate_half.eq(gen_req == GEN1),
                    rate_change.eq(1),
                ),
            ]
            if gen1_method:
                self.sync += If(((gen_req == GEN1) & ~self.gen1_dividers) != self.rate_pins,
                    self.rate_pins.eq((gen_req == GEN1) & ~self.gen1_dividers),
                    rate_change.eq(1),
                )
        exp_full = self.tx_meter.expected(f_max, sys_clk_freq)
        tx_clk_ok = Signal()
        tx_clk_ok_lo = Signal(max=self.tx_meter.window + 1)
        tx_clk_ok_hi = Signal(max=self.tx_meter.window + 1)
        self.comb += [
            If(self.rate_half,
                tx_clk_ok_lo.eq(int(exp_full/2*0.8)), tx_clk_ok_hi.eq(int(exp_full/2*1.2) + 1),
            ).Else(
                tx_clk_ok_lo.eq(int(exp_full*0.8)),   tx_clk_ok_hi.eq(int(exp_full*1.2) + 1),
            )
        ]
        self.sync += If(self.tx_meter.update,
            tx_clk_ok.eq((self.tx_meter.count >= tx_clk_ok_lo) & (self.tx_meter.count <= tx_clk_ok_hi))
        )
        self.tx_clk_ok = tx_clk_ok

        # Reset sequencing (TN1261 order) ---------------------------------------------------------------
        self.sequencer = reset = ECP5ResetSequencer(sys_clk_freq, tim)
        self.comb += [
            reset.tx_lol.eq(tx_lol),
            reset.rx_lol.eq(rx_lol),
            reset.tx_clk_ok.eq(tx_clk_ok),
            reset.meter_update.eq(self.tx_meter.update),
            reset.rate_change.eq(rate_change),
            self.tx_pll_locked.eq(reset.tx_pll_locked),
            self.rx_cdr_locked.eq(reset.rx_cdr_locked),
        ]
        self.sync += [
            macro_rst.eq(reset.macro_rst),
            tx_pll_rst.eq(reset.tx_pll_rst),
            tx_pcs_rst.eq(reset.tx_pcs_rst),
            rx_cdr_rst.eq(reset.rx_cdr_rst),
            rx_pcs_rst.eq(reset.rx_pcs_rst),
            # (in step with the resets, and the word clock domains' reset requests from a flop)
            self.tx_ready.eq(reset.tx_ready),
            self.rx_ready.eq(reset.rx_ready),
        ]
        self.tx_fsm = reset.tx_fsm
        self.rx_fsm = reset.rx_fsm

        # SCI: polarity and CDR hold ------------------------------------------------------------------
        self.sci_master = sci_master = ECP5SCIMaster()
        self.sci = sci = ECP5SCIControl(sci_master, rx_invert=rx_polarity, tx_invert=tx_polarity)
        tx_ei = Signal()                 # tx_idle registered in sata_tx (the DCU's FFC_EI_EN)
        tx_ready_d = Signal()
        rx_ready_d = Signal()
        self.sync += [tx_ready_d.eq(self.tx_ready), rx_ready_d.eq(self.rx_ready)]
        self.comb += [
            sci.rx_polarity.eq(self.rx_polarity),
            sci.tx_polarity.eq(self.tx_polarity),
            sci.rx_cdr_hold.eq(self.rx_cdr_hold),
            sci.tx_idle.eq(tx_ei),       # a flip-flop: the SCI control takes it into sys
            # Rewrite after the DCU-level reset and whenever a lane comes out of reset.
            sci.refresh.eq((self.tx_ready & ~tx_ready_d) | (self.rx_ready & ~rx_ready_d)),
        ]

        # Datapath -------------------------------------------------------------------------------------
        tx_word = Signal(WORD_BITS)
        self.sync.sata_tx += [
            tx_word.eq(self.tx_data),
            tx_ei.eq(self.tx_idle),
        ]
        self.comb += [
            tx_bus[0:10].eq(tx_word[0:10]),
            tx_bus[12:22].eq(tx_word[10:20]),
        ]
        rx_word = Signal(WORD_BITS)
        self.sync.sata_rx += [
            rx_word[0:10].eq(rx_bus[0:10]),
            rx_word[10:20].eq(rx_bus[12:22]),
        ]
        self.comb += [
            self.rx_data.eq(rx_word),
            self.rx_los.eq(rx_los),
        ]

        # DCUA parameters ------------------------------------------------------------------------------
        div = {GEN2: 1, GEN1: 2}[gen]
        if cdr is None:
            cdr = "gen1" if gen == GEN1 else "gen2"
        if isinstance(cdr, str):
            bias = DCU_BIAS_PROFILES[cdr]
            cdr = CDR_PROFILES[cdr]
        else:
            bias = DCU_BIAS_PROFILES["gen1" if gen == GEN1 else "gen2"]
            cdr = dict(CDR_PROFILES["gen1" if gen == GEN1 else "gen2"], **cdr)
        self.cdr_profile = cdr

        raw = mode == "10bser"
        p = dict(
            # DCU: power, resets, reference clock, TX PLL.
            p_D_MACROPDB          = "0b1",
            p_D_IB_PWDNB          = "0b1",   # undocumented, needed for RX
            p_D_TXPLL_PWDNB       = "0b1",
            i_D_FFC_MACROPDB      = 1,
            i_D_FFC_MACRO_RST     = macro_rst,
            i_D_FFC_DUAL_RST      = macro_rst,
            i_D_FFC_TRST          = tx_pll_rst,
            i_D_REFCLKI           = self.refclk,
            o_D_FFS_PLOL          = tx_lol,
            p_D_REFCK_MODE        = REFCK_MODE[refclk_mul],
            p_D_TX_VCO_CK_DIV     = VCO_CK_DIV[div],
            p_D_TX_MAX_RATE       = "{:.1f}".format(self.line_rate/1e9),  # Diamond-only, documents
            p_D_BITCLK_LOCAL_EN   = "0b1",   # TX bit clock from this DCU's PLL
            p_D_BITCLK_ND_EN      = "0b0",
            p_D_BITCLK_FROM_ND_EN = "0b0",
            p_D_SYNC_LOCAL_EN     = "0b1",   # TX word clock dead on ECPIX-5 without it
            p_D_SYNC_ND_EN        = "0b0",
            p_D_PLL_LOL_SET       = "0b00",
            p_D_CDR_LOL_SET       = "0b10",
            p_D_SETPLLRC          = "0d1",
            p_D_CMUSETBIASI       = "0b00",  # TX PLL tuning (undocumented, Diamond values)
            p_D_CMUSETI4CPP       = "0d3",
            p_D_CMUSETI4CPZ       = "0d3",
            p_D_CMUSETI4VCO       = "0b00",
            p_D_CMUSETICP4P       = "0b01",
            p_D_CMUSETICP4Z       = "0b101",
            p_D_CMUSETINITVCT     = "0b00",
            p_D_CMUSETISCL4VCO    = "0b000",
            p_D_CMUSETP1GM        = "0b000",
            p_D_CMUSETP2AGM       = "0b000",
            p_D_CMUSETZGM         = "0b000",
            p_D_RG_EN             = "0b0",
            p_D_RG_SET            = "0b00",
            p_D_ISETLOS           = "0d0",
            p_D_DCO_CALIB_TIME_SEL= "0b00",
            p_D_XGE_MODE          = "0b0",
            p_D_BUS8BIT_SEL       = "0b0",
            p_D_LOW_MARK          = "0d4",
            p_D_HIGH_MARK         = "0d12",
            **{"p_" + k: v for k, v in bias.items()},

            # Channel: protocol / PCS.
            p_CHX_PROTOCOL        = "10BSER" if raw else "G8B10B",  # Diamond-only, documents
            p_CHX_UC_MODE         = "0b1",
            p_CHX_PCIE_MODE       = "0b0",
            p_CHX_RIO_MODE        = "0b0",
            p_CHX_ENC_BYPASS      = "0b1" if raw else "0b0",
            p_CHX_DEC_BYPASS      = "0b1" if raw else "0b0",
            p_CHX_WA_BYPASS       = "0b1" if raw else "0b0",
            p_CHX_ENABLE_CG_ALIGN = "0b0" if raw else "0b1",
            p_CHX_LSM_DISABLE     = "0b1",
            p_CHX_UDF_COMMA_MASK  = "0x3ff",
            p_CHX_UDF_COMMA_A     = "0x283",
            p_CHX_UDF_COMMA_B     = "0x17c",
            p_CHX_CTC_BYPASS      = "0b1",
            p_CHX_MIN_IPG_CNT     = "0b11",
            p_CHX_MATCH_2_ENABLE  = "0b0",
            p_CHX_MATCH_4_ENABLE  = "0b0",
            p_CHX_TX_GEAR_MODE    = "0b1",   # 1:2 gearing, 20-bit word
            p_CHX_RX_GEAR_MODE    = "0b1",
            p_CHX_TX_GEAR_BYPASS  = "0b0",
            p_CHX_RX_GEAR_BYPASS  = "0b0",
            p_CHX_SB_BYPASS       = "0b0",
            p_CHX_RX_SB_BYPASS    = "0b0",
            p_CHX_INVERT_TX       = "0b{}".format(int(tx_polarity)),
            p_CHX_INVERT_RX       = "0b{}".format(int(rx_polarity)),
            i_CHX_FFC_TX_GEAR_MODE= 1,
            i_CHX_FFC_RX_GEAR_MODE= 1,
            i_CHX_FFC_DIV11_MODE_TX = 0,
            i_CHX_FFC_DIV11_MODE_RX = 0,
            i_CHX_FFC_SIGNAL_DETECT = 0,
            i_CHX_FFC_SB_INV_RX   = 0,
            i_CHX_FFC_FB_LOOPBACK = 0,
            i_CHX_FFC_SB_PFIFO_LP = 0,
            i_CHX_FFC_PFIFO_CLR   = 0,
            i_CHX_FFC_PCIE_DET_EN = 0,
            i_CHX_FFC_PCIE_CT     = 0,
            i_CHX_FFC_CDR_EN_BITSLIP = 0,

            # Channel: rate. Gen2 build: full rate, half-rate pins follow serdes.gen.
            p_CHX_RATE_MODE_TX    = "0b0",
            p_CHX_RATE_MODE_RX    = "0b0",
            i_CHX_FFC_RATE_MODE_TX= self.rate_pins,
            i_CHX_FFC_RATE_MODE_RX= self.rate_pins,
            p_CHX_CDR_MAX_RATE    = "{:.1f}".format(self.line_rate/1e9),  # Diamond-only, documents
            p_CHX_RX_DCO_CK_DIV   = VCO_CK_DIV[div],
            p_CHX_TX_DIV11_SEL    = "0b0",
            p_CHX_RX_DIV11_SEL    = "0b0",

            # Channel: receiver.
            p_CHX_RPWDNB          = "0b1",
            i_CHX_FFC_RXPWDNB     = 1,
            i_CHX_FFC_RRST        = rx_cdr_rst,
            i_CHX_FFC_LANE_RX_RST = rx_pcs_rst,
            i_CHX_HDINP           = pads.rx_p,
            i_CHX_HDINN           = pads.rx_n,
            i_CHX_RX_REFCLK       = self.refclk,
            o_CHX_FFS_RLOL        = rx_lol,
            p_CHX_RTERM_RX        = "0d19",  # 50 ohm
            p_CHX_RXIN_CM         = "0b11",
            p_CHX_RXTERM_CM       = "0b10",  # RLOS worked with this (ECPIX-5)
            p_CHX_RCV_DCC_EN      = "0b0",   # AC-coupled
            p_CHX_REQ_EN          = "0b1",   # receive equaliser
            p_CHX_REQ_LVL_SET     = "0b01",
            p_CHX_RX_RATE_SEL     = "0d10",  # equaliser pole
            p_CHX_LEQ_OFFSET_SEL  = "0b0",
            p_CHX_LEQ_OFFSET_TRIM = "0b000",
            p_CHX_PDEN_SEL        = "0b0",   # keep the phase detector on during LOS
            p_CHX_SEL_SD_RX_CLK   = "0b1",   # RX FIFO on the recovered clock
            p_CHX_FF_RX_H_CLK_EN  = "0b1",   # word (half) clock out
            p_CHX_FF_RX_F_CLK_DIS = "0b1",
            p_CHX_AUTO_FACQ_EN    = "0b1",
            p_CHX_AUTO_CALIB_EN   = "0b1",
            p_CHX_BAND_THRESHOLD  = "0d0",
            p_CHX_CDR_CNT4SEL     = "0b00",
            p_CHX_CDR_CNT8SEL     = "0b00",
            p_CHX_REG_BAND_OFFSET = "0d0",
            p_CHX_REG_BAND_SEL    = "0d0",
            p_CHX_REG_IDAC_SEL    = "0d0",
            p_CHX_REG_IDAC_EN     = "0b0",
            **{"p_CHX_" + k: v for k, v in cdr.items()},
            # Loss of signal (OOB detection): settings that resolved COMINIT bursts/gaps.
            o_CHX_FFS_RLOS        = rx_los,
            p_CHX_RLOS_SEL        = "0b1",
            p_CHX_RX_LOS_EN       = "0b1",
            p_CHX_RX_LOS_LVL      = "0b010",
            p_CHX_RX_LOS_CEQ      = "0b11",
            p_CHX_RX_LOS_HYST_EN  = "0b0",
            p_CHX_LDR_RX2CORE_SEL = "0b0",
            **{"o_CHX_FF_RX_D_%d" % n: rx_bus[n] for n in range(24)},

            # Channel: transmitter.
            p_CHX_TPWDNB          = "0b1",
            i_CHX_FFC_TXPWDNB     = 1,
            i_CHX_FFC_LANE_TX_RST = tx_pcs_rst,
            o_CHX_HDOUTP          = pads.tx_p,
            o_CHX_HDOUTN          = pads.tx_n,
            p_CHX_RTERM_TX        = "0d19",  # 50 ohm
            p_CHX_TX_CM_SEL       = "0b00",
            p_CHX_TDRV_DAT_SEL    = "0b00",  # serializer
            p_CHX_TDRV_PRE_EN     = "0b0",
            p_CHX_TDRV_POST_EN    = "0b0",
            p_CHX_TX_PRE_SIGN     = "0b0",
            p_CHX_TX_POST_SIGN    = "0b0",
            p_CHX_TXAMPLITUDE     = "0d{}".format(tx_swing),  # Diamond-only, documents
            **{"p_CHX_" + k: v for k, v in TX_SWING[tx_swing].items()},
            p_CHX_FF_TX_H_CLK_EN  = "0b1",
            p_CHX_FF_TX_F_CLK_DIS = "0b1",
            p_CHX_PCIE_EI_EN      = "0b0",
            i_CHX_FFC_EI_EN       = tx_ei,
            **{"i_CHX_FF_TX_D_%d" % n: tx_bus[n] for n in range(24)},
        )
        # Word clocks, fed back to the channel's FIFO clocks. PCLK by default (doc/ecp5-serdes.md: vendor
        # netlists and every public ECP5 SerDes design); H_CLK is kept for bring-up comparisons.
        if word_clk == "h_clk":
            p.update(o_CHX_FF_TX_H_CLK=tx_clk, o_CHX_FF_RX_H_CLK=rx_clk)
        else:
            p.update(o_CHX_FF_TX_PCLK=tx_clk, o_CHX_FF_RX_PCLK=rx_clk)
        p.update(i_CHX_FF_TXI_CLK=tx_clk, i_CHX_FF_RXI_CLK=rx_clk)

        # Low-data-rate TX path (OOB experiments).
        if oob_method == "ldr":
            ldr_en  = Signal()
            ldr_bit = Signal()
            self.sync.sata_tx += [ldr_en.eq(self.ldr_enable), ldr_bit.eq(self.tx_data[0])]
            p.update(p_CHX_LDR_CORE2TX_SEL="0b0", i_CHX_FFC_LDR_CORE2TX_EN=ldr_en,
                i_CHX_LDR_CORE2TX=ldr_bit)
        else:
            p.update(p_CHX_LDR_CORE2TX_SEL="0b0", i_CHX_FFC_LDR_CORE2TX_EN=0, i_CHX_LDR_CORE2TX=0)

        if mode == "g8b10b":
            p.update(i_CHX_FFC_ENABLE_CGALIGN=self.rx_cgalign)
        else:
            p.update(i_CHX_FFC_ENABLE_CGALIGN=0)

        p.update(sci_master.dcua_params(channel))

        self.dcua_params = {k.replace("CHX", "CH{}".format(channel)): v for k, v in p.items()}
        self.specials.dcu = Instance("DCUA", **self.dcua_params)
        self.dcu.attr.add(("LOC", "DCU{}".format(dual)))
        self.dcu.attr.add(("CHAN", "CH{}".format(channel)))

    def add_timing_constraints(self, platform):
        """Period constraints on the DCU word clocks at the build's top rate."""
        period = 1e9/self.word_clk_freq
        platform.add_period_constraint(self.tx_clk, period)
        platform.add_period_constraint(self.rx_clk, period)


def sata_pads(resource=None, tx=None, rx=None):
    """TX/RX pads for the wrapper from a ``sata``-like resource or from ``sma_tx``/``sma_rx``."""
    if resource is not None:
        return resource
    return SimpleNamespace(tx_p=tx.p, tx_n=tx.n, rx_p=rx.p, rx_n=rx.n)
