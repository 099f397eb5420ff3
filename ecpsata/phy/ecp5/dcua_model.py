# SPDX-License-Identifier: BSD-2-Clause
"""Behavioural model of the ECP5 DCUA primitive (one channel), for Migen simulation.

# Ref: Lattice TN1261 (ECP5 and ECP5-5G SERDES/PCS Usage Guide): ports, resets, SCI;
#      prjtrellis / nextpnr ecp5 DCUA port list; doc/ecp5-serdes.md (facts seen on
#      silicon).

The model reads the ports and parameters of a ``DCUA`` Instance (or its parameter dict, as
``ECP5SATASerDes.dcua_params``) and drives the Instance's outputs; the simulation drops the Instance
itself. It covers what the SATA wrapper uses: one channel, 10BSER (raw symbols), 1:2 gearing, a
3 GHz TX PLL / CDR with the /1 or /2 divider and the half-rate pins.

Clocks: Migen's simulator only runs clocks it generates. The model runs on ``domain``, a free-running
clock at the 3 Gb/s word rate (150 MHz, also the reference clock), and says on which of its edges the
word clocks tick: ``tx_ce`` / ``rx_ce`` (for the edge after next, registered), for a simulator that
fires ``tx_domain`` / ``rx_domain`` on those edges (tests/support/dcua_harness.py). A stopped word clock is
a CE that stays low; a half-rate one is high on every other edge.

Behaviour (times are ``CONFIG`` entries; the documentation gives no figures for them, so they are
plausible values to vary, not silicon's):

| Port / state          | Model                                                                     |
|-----------------------|---------------------------------------------------------------------------|
| ``D_FFS_PLOL``        | 1 while DCU reset, ``D_FFC_TRST``, power-down or no ``refclk_ok``; falls   |
|                       | ``pll_lock_time`` after they end                                           |
| TX word clock         | runs while the PLL is locked, the TX channel powered, ``D_SYNC_LOCAL_EN``  |
|                       | set (dead without it on an ECPIX-5) and the output the fabric uses enabled |
|                       | (``FF_TX_H_CLK`` needs ``H_CLK_EN``; ``FF_TX_PCLK`` is the geared clock)   |
| RX word clock         | runs while the RX channel is powered with its reference (the DCO free-runs |
|                       | near the rate when unlocked); same output rules                            |
| Rates                 | word rate / (divider x (2 if ``RATE_MODE_x`` or ``FFC_RATE_MODE_x``)), the |
|                       | dividers as SCI registers hold them (dual 0x0d, channel 0x1a bits 0-2;     |
|                       | reset from ``D_TX_VCO_CK_DIV`` / ``CHx_RX_DCO_CK_DIV``)                    |
| ``CHx_FFS_RLOS``      | follows ``rx_idle`` after ``los_delay``; stays high while the threshold    |
|                       | (``los_lvl``, SCI 0x1b bits 0-2) is above ``rx_level``, the RX pair's      |
|                       | amplitude in threshold steps (7 by default: seen at any threshold; TN1261 |
|                       | gives no volts per step, so the scale is the model's)                     |
| ``CHx_FFS_RLOL``      | 1 in ``FFC_RRST`` and while not locked; 0 while held (SCI 0x18 bit 6)      |
| CDR                   | locks ``cdr_lock_time`` after in-range data starts (not held); reports     |
|                       | loss of lock ``cdr_lol_time`` after the line goes idle or out of range    |
| CDR stuck             | released on out-of-range data for ``cdr_runaway_time``, or released from   |
|                       | ``FFC_RRST`` while the TX PLL is unlocked (``early_release_sticks``): no   |
|                       | lock until the next ``FFC_RRST`` (TN1261's order and "loss of lock -> CDR  |
|                       | reset" guard against this; FPGA-PB-02001)                                 |
| ``D_REQ_ISET``        | the CDR never locks unless 010 or 011 (LUNA's note; ``req_iset_required``) |
| ``FFC_LANE_RX_RST``   | RX bus reads 0 (FIFO flushed)                                             |
| ``FFC_LANE_TX_RST``   | the serializer sends all-zero words                                       |
| Data path latency     | ``tx_latency`` word clocks from the TX bus to the pins (the word and the  |
|                       | electrical-idle request), ``rx_latency`` from the pins to the RX bus: by  |
|                       | default the largest reading of TN1261's block latencies (``CONFIG``)      |
| SCI                   | 64 channel and 64 dual registers; channel 0x01 bits 0/1 invert RX/TX (reset |
|                       | value from ``CHx_INVERT_RX/TX``), 0x18 bit 6 holds the CDR; the DCU reset |
|                       | restores them (``macro_rst_clears_sci``); 0x15 bit 0 (lb_ctl's serial     |
|                       | TX-to-RX loopback): the receiver takes the TX line. The named fields      |
|                       | (``SCI_FIELDS``, ``TX_DRIVER_FIELDS``) reset to their parameters' values   |

Faults (``faults``, a run-time input, bits of ``FAULTS``) break one stage each, so that the
self-test's failure reports can be tested: the TX PLL never locks, the CDR never locks, bit 4 of
every received word stuck at 1, the RX pair swapped (the received line inverted).

Line side (plain signals, to attach the virtual drive later): ``tx_word`` / ``tx_idle`` / ``tx_gen``
(``tx_domain``), ``rx_word`` / ``rx_idle`` / ``rx_gen`` (inputs; ``rx_gen`` = ``LINE_OTHER`` for a
rate the CDR cannot follow, e.g. a 6 Gb/s drive's first offer). Words are 20 bits, the first symbol
in bits [0:10], as on the SerDes seam. Not modelled: G8B10B mode, the far-end loopbacks, the
equaliser and the other analog fields (their registers only hold values; the LOS level is
modelled against ``rx_level``), the low-data-rate path, TX de-emphasis, ppm offsets (the
recovered clock is the word rate exactly).
"""

from migen import *

from litex.gen import *

from ecpsata.phy.serdes import WORD_BITS, GEN1, GEN2
from ecpsata.phy.ecp5.bringup import DUAL, SCI_CH_LOOPBACK, SCI_FIELDS, TX_DRIVER_FIELDS

LINE_OTHER = 2  # rx_gen: a line rate the CDR cannot lock to

CONFIG = dict(
    pll_lock_time        = 5e-6,    # TX PLL lock after its reset ends ("some microseconds")
    cdr_lock_time        = 3e-6,    # CDR lock after in-range data starts
    cdr_lol_time         = 0.2e-6,  # idle / out-of-range line this long: loss of lock
    cdr_runaway_time     = 1e-6,    # out-of-range data this long while released: stuck (None: never)
    early_release_sticks = True,    # FFC_RRST released before TX PLL lock: stuck
    los_delay            = 10e-9,   # RLOS response (8-10 ns measured on an ECPIX-5)
    macro_rst_clears_sci = True,    # D_FFC_MACRO_RST restores the SCI registers
    req_iset_required    = True,    # D_REQ_ISET must be 010 or 011 for the CDR to lock
    tx_latency           = 9,       # word clocks from the TX bus to the pins (LATENCY below)
    rx_latency           = 10,      # word clocks from the pins to the RX bus
)

# The data path's latency in our mode (10BSER: the PCS's 8b10b coder, word aligner and clock
# tolerance FIFO bypassed; the 1:2 gearing's bridge FIFOs in use, as the 20-bit interface has no
# bypass for them), from the block latencies of TN1261's latency table as recalled, not read
# from the document here; so each is taken at its largest reading: its FIFO at its deepest (5
# clocks), a "word clock" as our 20-UI fabric word (not the PCS's 10-UI byte clock). TX: bridge
# FIFO 5 + bypassed encoder 1 + SERDES bridge 2 clocks + serializer 18 UI = 178 UI, 9 words.
# RX: deserializer 12 UI + SERDES bridge 2 + bypassed aligner 1 + bypassed clock tolerance FIFO
# 1 + bridge FIFO 5 clocks = 192 UI, 10 words. At Gen2 that is 60 / 67 ns; at Gen1 twice that.
# The 10-UI reading with average FIFOs would give about 5 words each way.

# Fault switches (bits of ``DCUAModel.faults``).
FAULTS = {
    "pll_never_locks": 0,
    "cdr_never_locks": 1,
    "stuck_bit":       2,
    "rx_pair_swapped": 3,
}
STUCK_BIT = 4  # the received word's bit that "stuck_bit" holds at 1


REFCK_MULT = {0b100: 25, 0b000: 20, 0b010: 16, 0b001: 10, 0b011: 8}
DCO_DIV    = {0b000: 1, 0b010: 2, 0b100: 4, 0b101: 8, 0b110: 16, 0b111: 32}
WORD_RATE  = 3.0e9  # the model's base clock is this line rate / 20

CDR_RESET, CDR_ACQUIRE, CDR_LOCKED, CDR_STUCK = range(4)


def parse_param(value):
    """A DCUA parameter string ("0b01", "0d19", "0x3ff") as an int; other strings unchanged."""
    if isinstance(value, int):
        return value
    s = str(value)
    for prefix, base in (("0b", 2), ("0d", 10), ("0x", 16)):
        if s.lower().startswith(prefix):
            return int(s[2:], base)
    return s


def dcua_ports(dcu):
    """{"p_NAME": value, "i_NAME": expr, "o_NAME": expr} of a DCUA Instance (or such a dict)."""
    if isinstance(dcu, dict):
        return dcu
    assert isinstance(dcu, Instance) and dcu.of == "DCUA"
    ports = {}
    for item in dcu.items:
        if isinstance(item, Instance.Parameter):
            ports["p_" + item.name] = item.value
        elif isinstance(item, Instance.Input):
            ports["i_" + item.name] = item.expr
        elif isinstance(item, Instance.Output):
            ports["o_" + item.name] = item.expr
    return ports


def drive_current_ua(slices):
    """Main-data TX driver current from ``{n: (sel, cur)}``: slices 0-1 100 uA x (cur + 1), slices
    2-5 800 uA x (cur + 1), counted when sel = 01 (the steps liteiclink's comments give)."""
    total = 0
    for n, (sel, cur) in slices.items():
        if sel == 0b01:
            total += (100 if n < 2 else 800)*(cur + 1)
    return total


class DCUAModel(LiteXModule):
    """Behavioural DCUA (one channel), see the module docstring for what it models and how."""
    def __init__(self, dcu, refclk_freq=150e6, domain="dcu", tx_domain="sata_tx",
                 rx_domain="sata_rx", **config):
        unknown = set(config) - set(CONFIG)
        if unknown:
            raise ValueError("unknown model settings: {}".format(sorted(unknown)))
        cfg = dict(CONFIG, **config)
        for key in ("tx_latency", "rx_latency"):
            if not (isinstance(cfg[key], int) and cfg[key] >= 1):
                raise ValueError(f"{key} = {cfg[key]!r}: a whole number of word clocks, at least 1 "
                                 f"(the bus register)")
        self.config = cfg
        ports = dcua_ports(dcu)
        ch = "CH0" if "i_CH0_FFC_RRST" in ports else "CH1"
        self.channel = int(ch[2])

        def P(name, default=0):
            return parse_param(ports.get("p_" + name.replace("CHX", ch), default))

        def I(name, default=0):
            v = ports.get("i_" + name.replace("CHX", ch), default)
            return C(v, 1) if isinstance(v, int) else v

        def O(name):
            return ports.get("o_" + name.replace("CHX", ch))

        cyc = lambda t: max(1, int(round(t*refclk_freq)))

        # Line side.
        self.refclk_ok = Signal(reset=1)           # the reference clock runs
        self.faults    = Signal(len(FAULTS))       # FAULTS bits (static levels)
        self.tx_word   = Signal(WORD_BITS)         # tx_domain
        self.tx_idle   = Signal(reset=1)           # no differential signal on the TX pair
        self.tx_gen    = Signal(2)
        self.rx_word   = Signal(WORD_BITS)         # rx_domain
        self.rx_idle   = Signal(reset=1)
        self.rx_gen    = Signal(2, reset=GEN2)
        self.rx_level  = Signal(3, reset=7)        # the RX pair's amplitude, in LOS-level steps
        # Word clock enables (domain), see the module docstring.
        self.tx_ce = Signal()
        self.rx_ce = Signal()
        # Probes (domain).
        self.pll_locked   = Signal()
        self.cdr_state    = Signal(2)
        self.cdr_held     = Signal()
        self.tx_running   = Signal()
        self.rx_running   = Signal()
        self.tx_polarity  = Signal()
        self.rx_polarity  = Signal()
        self.early_cdr_releases = Signal(16)  # FFC_RRST released while the TX PLL was unlocked
        self.cdr_releases = Signal(16)        # FFC_RRST falling edges

        # Static configuration ----------------------------------------------------------------------
        for name, want in (("CHX_TX_GEAR_MODE", 1), ("CHX_RX_GEAR_MODE", 1),
                           ("CHX_ENC_BYPASS", 1), ("CHX_DEC_BYPASS", 1)):
            if P(name) != want:
                raise NotImplementedError("model: {} = {} (only 10BSER, 1:2 gearing)".format(
                    name.replace("CHX", ch), P(name)))
        mult = REFCK_MULT[P("D_REFCK_MODE")]
        if abs(refclk_freq*mult - WORD_RATE) > 1e6:
            raise NotImplementedError("model: VCO {:.3f} GHz, only 3 GHz".format(refclk_freq*mult/1e9))
        assert DCO_DIV[P("D_TX_VCO_CK_DIV")] in (1, 2) and DCO_DIV[P("CHX_RX_DCO_CK_DIV")] in (1, 2), \
            "model: dividers /1 or /2"
        self.tx_drive_ua = drive_current_ua({n: (P("CHX_TDRV_SLICE%d_SEL" % n),
                                                 P("CHX_TDRV_SLICE%d_CUR" % n)) for n in range(6)})
        self.cdr_bias_ok = (not cfg["req_iset_required"]) or P("D_REQ_ISET") in (0b010, 0b011)
        self.sync_local  = P("D_SYNC_LOCAL_EN") == 1

        def clock_source(d):
            """Which word clock output feeds the fabric's FIFO clock (FF_TXI_CLK / FF_RXI_CLK)."""
            fifo = ports.get("i_{}_FF_{}I_CLK".format(ch, d))
            port = lambda n: ports.get("o_{}_FF_{}_{}".format(ch, d, n))
            outs = [n for n in ("PCLK", "H_CLK", "F_CLK") if port(n) is not None]
            for n in outs:
                if port(n) is fifo:
                    return n
            return outs[0] if outs else None

        def clock_enabled(d, source):
            if source == "PCLK":
                return True  # the geared (word) clock; needs no H_CLK_EN (assumed)
            if source == "H_CLK":
                return P("CHX_FF_{}_H_CLK_EN".format(d)) == 1
            if source == "F_CLK":
                raise NotImplementedError("model: F_CLK is twice the word rate with 1:2 gearing")
            return False

        self.tx_clk_source = "FF_TX_" + str(clock_source("TX"))
        self.rx_clk_source = "FF_RX_" + str(clock_source("RX"))
        tx_clk_en = clock_enabled("TX", clock_source("TX"))
        rx_clk_en = clock_enabled("RX", clock_source("RX"))

        # # #

        sync = getattr(self.sync, domain)

        # DCU level ---------------------------------------------------------------------------------
        powered   = Signal()
        macro_rst = Signal()
        self.comb += [
            powered.eq((P("D_MACROPDB") == 1) & I("D_FFC_MACROPDB")),
            macro_rst.eq(I("D_FFC_MACRO_RST") | I("D_FFC_DUAL_RST") | ~powered),
        ]

        # SCI registers -----------------------------------------------------------------------------
        # Reset values: the polarity bits and the named fields (SCI_FIELDS) from the parameters.
        reset = {0x01: P("CHX_INVERT_RX") | (P("CHX_INVERT_TX") << 1)}
        # (a set: slice 2's select is both a named field and one of the TX driver's)
        fields = {*SCI_FIELDS.values(), *((adr, lo, size, "CHX_" + name)
                                          for name, (adr, lo, size) in TX_DRIVER_FIELDS.items())}
        for adr, lo, size, param in fields:
            if param is not None:
                reset[adr] = reset.get(adr, 0) | (P(param) & (1 << size) - 1) << lo
        self.sci_ch  = [Signal(8, reset=reset.get(a, 0), name="sci_ch_{:02x}".format(a))
                        for a in range(64)]
        self.sci_aux = [Signal(8, reset=reset.get(DUAL | a, 0), name="sci_aux_{:02x}".format(a))
                        for a in range(64)]
        sci_adr   = Cat(*[I("D_SCIADDR%d" % n) for n in range(6)])
        sci_wdata = Cat(*[I("D_SCIWDATA%d" % n) for n in range(8)])
        sci_rdata = Signal(8)
        sel_ch    = Signal()
        sel_aux   = Signal()
        self.comb += [
            sel_ch.eq(I("CHX_SCIEN") & I("CHX_SCISEL")),
            sel_aux.eq(I("D_SCIENAUX") & I("D_SCISELAUX")),
        ]
        for n in range(8):
            if O("D_SCIRDATA%d" % n) is not None:
                self.comb += O("D_SCIRDATA%d" % n).eq(sci_rdata[n])
        ch_regs, aux_regs = Array(self.sci_ch), Array(self.sci_aux)
        clear = [r.eq(r.reset) for r in self.sci_ch + self.sci_aux]
        sync += [
            If(I("D_SCIRD"),
                If(sel_aux, sci_rdata.eq(aux_regs[sci_adr])).Elif(sel_ch, sci_rdata.eq(ch_regs[sci_adr]))
            ),
            If(macro_rst & cfg["macro_rst_clears_sci"],
                *clear
            ).Elif(~I("D_SCIWSTN"),
                If(sel_aux, aux_regs[sci_adr].eq(sci_wdata)).Elif(sel_ch, ch_regs[sci_adr].eq(sci_wdata))
            )
        ]
        self.comb += [
            self.rx_polarity.eq(self.sci_ch[0x01][0]),
            self.tx_polarity.eq(self.sci_ch[0x01][1]),
            self.cdr_held.eq(self.sci_ch[0x18][6]),
        ]

        # TX PLL ------------------------------------------------------------------------------------
        pll_n   = cyc(cfg["pll_lock_time"])
        pll_cnt = Signal(max=pll_n + 1)
        sync += If(macro_rst | I("D_FFC_TRST") | (P("D_TXPLL_PWDNB") != 1) | ~self.refclk_ok |
                   self.faults[FAULTS["pll_never_locks"]],
            pll_cnt.eq(0)
        ).Elif(pll_cnt != pll_n,
            pll_cnt.eq(pll_cnt + 1)
        )
        self.comb += self.pll_locked.eq(pll_cnt == pll_n)
        if O("D_FFS_PLOL") is not None:
            self.comb += O("D_FFS_PLOL").eq(~self.pll_locked)

        # Word clocks -------------------------------------------------------------------------------
        tx_half = Signal()
        rx_half = Signal()
        self.comb += [
            tx_half.eq((P("CHX_RATE_MODE_TX") == 1) | I("CHX_FFC_RATE_MODE_TX")),
            rx_half.eq((P("CHX_RATE_MODE_RX") == 1) | I("CHX_FFC_RATE_MODE_RX")),
            self.tx_running.eq(self.pll_locked & (P("CHX_TPWDNB") == 1) & I("CHX_FFC_TXPWDNB") &
                               self.sync_local & tx_clk_en),
            self.rx_running.eq(~macro_rst & self.refclk_ok & (P("CHX_RPWDNB") == 1) &
                               I("CHX_FFC_RXPWDNB") & rx_clk_en),
        ]
        # The dividers as their SCI registers hold them (reset: the parameters): tx_vco_ck_div in
        # dual register 0x0d, rx_dco_ck_div in channel register 0x1a (SCI_FIELDS); /4 and below
        # count as /4.
        def divider(field):
            adr, lo, _, _ = SCI_FIELDS[field]
            reg = self.sci_aux[adr & ~DUAL] if adr & DUAL else self.sci_ch[adr]
            code = reg[lo:lo + 3]
            return Mux(code[2], 4, Mux(code[1], 2, 1))
        tx_div = Signal(4)
        rx_div = Signal(4)
        cdr_gen = Signal(2)
        self.comb += [
            # Line rates: GEN2 = the full 3 Gb/s, GEN1 = half of it, 3 = a quarter or less (not SATA).
            tx_div.eq(Mux(tx_half, 2*divider("tx_vco_div"), divider("tx_vco_div"))),
            rx_div.eq(Mux(rx_half, 2*divider("rx_dco_div"), divider("rx_dco_div"))),
            self.tx_gen.eq(Mux(tx_div == 1, GEN2, Mux(tx_div == 2, GEN1, 3))),
            cdr_gen.eq(Mux(rx_div == 1, GEN2, Mux(rx_div == 2, GEN1, 3))),
        ]
        for ce, div, running in ((self.tx_ce, tx_div, self.tx_running),
                                 (self.rx_ce, rx_div, self.rx_running)):
            phase = Signal(3)
            sync += [
                If(phase >= div - 1, phase.eq(0)).Else(phase.eq(phase + 1)),
                ce.eq(running & (phase >= div - 1)),
            ]

        # Loopback: lb_ctl bit 0 (TN1261's serial TX-to-RX loopback) makes the receiver take the
        # transmitted line instead of the RX pair. The far-end loopbacks (bits 1-3, the received
        # line echoed on the TX pair) are not modelled: the receiver keeps the RX pair.
        self.loopback = Signal()
        line_word, line_idle, line_gen = Signal(WORD_BITS), Signal(), Signal(2)
        self.comb += [
            self.loopback.eq(self.sci_ch[SCI_CH_LOOPBACK][0]),
            line_word.eq(Mux(self.loopback, self.tx_word, self.rx_word)),
            line_idle.eq(Mux(self.loopback, self.tx_idle, self.rx_idle)),
            line_gen.eq(Mux(self.loopback, self.tx_gen, self.rx_gen)),
        ]

        # Loss of signal ----------------------------------------------------------------------------
        los_n = cyc(cfg["los_delay"])
        los = Signal(los_n, reset=2**los_n - 1)
        # The detector sees the RX pair only while its threshold (los_lvl, SCI_FIELDS) is at
        # most the pair's level (``rx_level``); the looped-back line is always seen.
        lvl_adr, lvl_lo, lvl_size, _ = SCI_FIELDS["los_lvl"]
        below = Signal()
        self.comb += below.eq(~self.loopback &
                              (self.sci_ch[lvl_adr][lvl_lo:lvl_lo + lvl_size] > self.rx_level))
        sync += los.eq(Cat(line_idle | ~self.rx_running | below, los[:-1]))
        if O("CHX_FFS_RLOS") is not None:
            self.comb += O("CHX_FFS_RLOS").eq(los[-1] & (P("CHX_RX_LOS_EN") == 1))

        # CDR ---------------------------------------------------------------------------------------
        cdr_rst   = Signal()
        rrst_d    = Signal(reset=1)
        in_range  = Signal()
        foreign   = Signal()
        self.comb += [
            cdr_rst.eq(I("CHX_FFC_RRST") | macro_rst | ~self.rx_running),
            in_range.eq(~line_idle & (line_gen == cdr_gen)),
            foreign.eq(~line_idle & (line_gen != cdr_gen)),
        ]
        lock_n, lol_n = cyc(cfg["cdr_lock_time"]), cyc(cfg["cdr_lol_time"])
        run_n = cyc(cfg["cdr_runaway_time"]) if cfg["cdr_runaway_time"] is not None else None
        cnt = Signal(max=max(lock_n, lol_n) + 1)
        run_cnt = Signal(max=(run_n or 1) + 1)
        state = self.cdr_state
        sync += [
            rrst_d.eq(I("CHX_FFC_RRST")),
            If(~I("CHX_FFC_RRST") & rrst_d, self.cdr_releases.eq(self.cdr_releases + 1)),
            If(cdr_rst,
                state.eq(CDR_RESET), cnt.eq(0), run_cnt.eq(0),
            ).Elif(state == CDR_RESET,
                If(~self.pll_locked,
                    self.early_cdr_releases.eq(self.early_cdr_releases + 1),
                    state.eq(CDR_STUCK if cfg["early_release_sticks"] else CDR_ACQUIRE),
                ).Else(
                    state.eq(CDR_ACQUIRE),
                )
            ).Elif(self.cdr_held,
                # Frozen: nothing changes until released.
            ).Elif(state == CDR_ACQUIRE,
                If(in_range & self.cdr_bias_ok & ~self.faults[FAULTS["cdr_never_locks"]],
                    cnt.eq(cnt + 1), run_cnt.eq(0),
                    If(cnt == lock_n - 1, state.eq(CDR_LOCKED), cnt.eq(0)),
                ).Elif(foreign & (run_n is not None),
                    cnt.eq(0), run_cnt.eq(run_cnt + 1),
                    If(run_cnt == (run_n or 1) - 1, state.eq(CDR_STUCK)),
                ).Else(
                    cnt.eq(0), run_cnt.eq(0),
                )
            ).Elif(state == CDR_LOCKED,
                If(~in_range,
                    cnt.eq(cnt + 1),
                    If(cnt == lol_n - 1, state.eq(CDR_ACQUIRE), cnt.eq(0)),
                ).Else(
                    cnt.eq(0),
                )
            )
        ]
        locked = Signal()
        self.comb += locked.eq(state == CDR_LOCKED)
        if O("CHX_FFS_RLOL") is not None:
            self.comb += O("CHX_FFS_RLOL").eq(~locked & ~(self.cdr_held & (state != CDR_RESET)))

        # Datapath (registers of the word-clock domains are reset-less: the wrapper resets those
        # domains, the DCU's registers are not on that reset) --------------------------------------
        tx_bus = Cat(*[I("CHX_FF_TX_D_%d" % n) for n in range(24)])
        tx_rst = Signal()
        rx_rst = Signal()
        self.comb += [
            tx_rst.eq(I("CHX_FFC_LANE_TX_RST") | macro_rst),
            rx_rst.eq(I("CHX_FFC_LANE_RX_RST") | macro_rst),
        ]
        tx_word = Signal(WORD_BITS, reset_less=True)
        getattr(self.sync, tx_domain).__iadd__(
            tx_word.eq(Mux(tx_rst, 0, Cat(tx_bus[0:10], tx_bus[12:22]) ^
                                      Replicate(self.tx_polarity, WORD_BITS))))
        # The transmit latency: the word and the electrical-idle request reach the pins
        # tx_latency word clocks after the bus, the register above being the first (a stopped
        # word clock idles the pins at once).
        tx_ei = Signal(reset=1)
        self.comb += tx_ei.eq(I("CHX_FFC_EI_EN"))
        tx_line = self._delay(tx_domain, Cat(tx_word, tx_ei), cfg["tx_latency"] - 1)
        self.comb += [
            self.tx_word.eq(tx_line[:WORD_BITS]),
            self.tx_idle.eq(~self.tx_running | tx_line[WORD_BITS]),
        ]

        # Unlocked CDR: the RX bus carries garbage (an LFSR); lane reset: zeros.
        garbage = Signal(WORD_BITS, reset_less=True, reset=1)
        rx_bus  = Signal(24, reset_less=True)
        rx_data = Signal(WORD_BITS)
        swapped = self.faults[FAULTS["rx_pair_swapped"]]
        stuck   = self.faults[FAULTS["stuck_bit"]] << STUCK_BIT
        self.comb += rx_data.eq(Mux(locked & in_range,
                                    (line_word ^ Replicate(self.rx_polarity ^ swapped, WORD_BITS)) |
                                    stuck, garbage))
        # The receive latency: a word on the pins reaches the bus rx_latency word clocks later,
        # the bus register below being the last.
        rx_late = self._delay(rx_domain, rx_data, cfg["rx_latency"] - 1)
        getattr(self.sync, rx_domain).__iadd__([
            garbage.eq(Cat(garbage[1:], garbage[0] ^ garbage[3])),
            If(rx_rst,
                rx_bus.eq(0),
            ).Else(
                rx_bus.eq(Cat(rx_late[0:10], C(0, 2), rx_late[10:20], C(0, 2))),
            )
        ])
        for n in range(24):
            if O("CHX_FF_RX_D_%d" % n) is not None:
                self.comb += O("CHX_FF_RX_D_%d" % n).eq(rx_bus[n])

    def _delay(self, domain, value, n):
        """`value` delayed by `n` cycles of `domain` (reset-less registers, as the datapath's)."""
        for i in range(n):
            late = Signal(len(value), reset_less=True, name=f"{domain}_late{i}")
            getattr(self.sync, domain).__iadd__(late.eq(value))
            value = late
        return value
