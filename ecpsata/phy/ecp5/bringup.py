# SPDX-License-Identifier: BSD-2-Clause
"""The ECP5 SerDes wrapper's bring-up registers: its flags, its word-clock meters and raw SCI
access, read and set at run time by `ecpsata phy` and the console's `phy` (doc/bringup.md,
"Settings at run time").

# Ref: Lattice TN1261 / FPGA-TN-02206 (ECP5 and ECP5-5G SERDES/PCS Usage Guide): SCI, the channel
#      and dual register map.

The registers live in a module of their own rather than in the wrapper: the SoC and the PHY both
hold the wrapper (the SoC for its clocks and constraints, the PHY as its SerDes), and LiteX would
collect the wrapper's registers once through each.

CSRs (the SoC names the module ``sata_serdes_bringup``):

    ============  ===  =======================================================================
    status        ro   tx_ready, rx_ready, tx_pll_locked, rx_cdr_locked, rx_los, half_rate,
                       rate_pins (with the Gen1 method)
    gen1_method   rw   dividers: Gen1 from the dividers (written through the SCI), not the pins;
                       only with the wrapper's ``gen1_method`` (the boards' builds unless
                       ``--without-gen1-method``, the simulated ECPIX-5)
    tx_clk_count  ro   TX word clock edges / 2**div_log2 per ``window`` sys cycles
    rx_clk_count  ro   the same for the RX word clock
    sci_control   rw   adr, dat_w, we, aux; a write starts one SCI access
    sci_status    ro   dat_r (the last read), busy
    ============  ===  =======================================================================
"""

from migen import *
from migen.genlib.cdc import MultiReg

from litex.gen import LiteXModule
from litex.soc.interconnect.csr import CSRField, CSRStatus, CSRStorage


# The DCU channel's loopback control: SCI channel register 0x15. TN1261's register map (Lattice
# FPGA-TN-02206, the same guide's current number) gives lb_ctl in bits 0-3, one enable per path:
# bit 0 the serializer's line into the receiver (slb_t2r_en, the only near-end loopback), bit 1
# the equaliser's output to the TX driver, bits 2/3 the CDR's clock / data to the TX driver
# (far-end loopbacks: the board echoes what it receives; bits 4-5, tdrv_dat_sel, pick the echo
# as the driver's input). The self-test's near-end modes, as (mask, value) over the register;
# t2r is what LiteICLink's ECP5 SerDes writes (noting it may not be enough on silicon). LUNA's
# USB 3 PHY writes 0b110010 into bits 0-5 for its loopback: bit 1 with tdrv_dat_sel = 11, the
# equaliser-to-driver echo that USB 3's loopback state asks of a device, not a self-test of our
# own data.
SCI_CH_LOOPBACK = 0x15
LOOPBACK_MODES = {
    "t2r": (0x0F, 0x01),
}
LOOPBACK_DEFAULT = "t2r"

# The TX driver's six slices, each a select (power down, main, pre- or post-cursor data) and a
# current: (address, lowest bit, bits) of the DCUA parameter CHx_<name>. TN1261's register map
# places the selects of slices 0-3 in channel register 0x12 and the currents in 0x13-0x15; it marks
# 0x13 bits 0-3 internal, which is where prjtrellis's bit order of the DCUA parameters (the
# same order as TN1261's fields around them) puts the selects of slices 4 and 5.
TX_DRIVER_FIELDS = {
    "TDRV_SLICE0_SEL": (0x12, 0, 2), "TDRV_SLICE1_SEL": (0x12, 2, 2),
    "TDRV_SLICE2_SEL": (0x12, 4, 2), "TDRV_SLICE3_SEL": (0x12, 6, 2),
    "TDRV_SLICE4_SEL": (0x13, 0, 2), "TDRV_SLICE5_SEL": (0x13, 2, 2),
    "TDRV_SLICE3_CUR": (0x13, 4, 2), "TDRV_SLICE4_CUR": (0x13, 6, 2),
    "TDRV_SLICE0_CUR": (0x14, 0, 3), "TDRV_SLICE1_CUR": (0x14, 3, 3),
    "TDRV_SLICE2_CUR": (0x14, 6, 2), "TDRV_SLICE5_CUR": (0x15, 6, 2),
}

# Settings in DCU registers, from TN1261's register map, as (address, lowest bit, bits, the DCUA
# parameter that sets it at build time or None); an address with DUAL set is a dual (aux)
# register, the others are the channel's. The register reads the parameter's value until written.
DUAL = 0x40
SCI_FIELDS = {
    "lb_ctl":       (SCI_CH_LOOPBACK, 0, 4, None),
    "tdrv_dat_sel": (SCI_CH_LOOPBACK, 4, 2, "CHX_TDRV_DAT_SEL"),
    "tx_slice2":    (*TX_DRIVER_FIELDS["TDRV_SLICE2_SEL"], "CHX_TDRV_SLICE2_SEL"),
    "rx_term":      (0x17, 0, 5, "CHX_RTERM_RX"),
    "rx_term_cm":   (0x16, 6, 2, "CHX_RXTERM_CM"),
    "rx_eq":        (0x19, 0, 1, "CHX_REQ_EN"),
    "rx_eq_pole":   (0x19, 1, 4, "CHX_RX_RATE_SEL"),
    "rx_eq_level":  (0x19, 5, 2, "CHX_REQ_LVL_SET"),
    "pden":         (0x1A, 3, 1, "CHX_PDEN_SEL"),
    "los_lvl":      (0x1B, 0, 3, "CHX_RX_LOS_LVL"),
    "los_ceq":      (0x1B, 3, 2, "CHX_RX_LOS_CEQ"),
    "los_hyst":     (0x1B, 5, 1, "CHX_RX_LOS_HYST_EN"),
    "cdr_lol":      (DUAL | 0x0C, 0, 2, "D_CDR_LOL_SET"),
    "tx_vco_div":   (DUAL | 0x0D, 0, 3, "D_TX_VCO_CK_DIV"),
    "rx_dco_div":   (0x1A, 0, 3, "CHX_RX_DCO_CK_DIV"),
}
# tx_vco_div and rx_dco_div: TN1261's tx_vco_ck_div and rx_dco_ck_div, coded as VCO_CK_DIV of
# ecpsata/phy/ecp5/serdes.py. TN1261 names the registers; the bits (0-2 in both) are where
# prjtrellis's frame order puts them, as for the fields around them (doc/ecp5-serdes.md).


def tx_swing_writes(swing):
    """{address: (mask, value)}: the channel register bits that give the build's TX driver for
    `swing` (TX_SWING of ecpsata/phy/ecp5/serdes.py, mV nominal)."""
    from ecpsata.phy.ecp5.serdes import TX_SWING
    out = {}
    for name, text in TX_SWING[swing].items():
        adr, lo, size = TX_DRIVER_FIELDS[name]
        mask, value = out.get(adr, (0, 0))
        out[adr] = (mask | (1 << size) - 1 << lo, value | int(text, 0) << lo)
    return out


class ECP5SerDesBringup(LiteXModule):
    """Registers over an ``ECP5SATASerDes`` (``serdes``); ``div_log2`` and ``window`` are its clock
    meters' scale (the SoC exports them as constants: frequency = count * 2**div_log2 * sys clock
    / window)."""
    def __init__(self, serdes):
        meters = (serdes.tx_meter, serdes.rx_meter)
        assert len({(m.div_log2, m.window) for m in meters}) == 1, "both meters on one scale"
        self.div_log2, self.window = serdes.tx_meter.div_log2, serdes.tx_meter.window

        self.status = CSRStatus(fields=[
            CSRField("tx_ready",      size=1, description="TX PLL locked, TX lane out of reset, TX clock at rate."),
            CSRField("rx_ready",      size=1, description="CDR locked, RX lane out of reset."),
            CSRField("tx_pll_locked", size=1, description="D_FFS_PLOL low."),
            CSRField("rx_cdr_locked", size=1, description="CHx_FFS_RLOL low."),
            CSRField("rx_los",        size=1, description="Loss of signal (CHx_FFS_RLOS)."),
            CSRField("half_rate",     size=1, description="Gen1 on a Gen2 build applied."),
        ] + ([
            CSRField("rate_pins",     size=1, description="The half-rate pins (FFC_RATE_MODE_TX/RX) set."),
        ] if serdes.gen1_method else []))
        if serdes.gen1_method:
            self.gen1_method = CSRStorage(fields=[
                CSRField("dividers", size=1, values=[
                    ("``0b0``", "Gen1 through the half-rate pins (the build's dividers stay)."),
                    ("``0b1``", "Gen1 through the TX and CDR dividers, written /2 through the SCI "
                                "beforehand: the pins stay at full rate."),
                ]),
            ], description="How a Gen2 build runs Gen1; a change resets both lanes.")
        self.tx_clk_count = CSRStatus(len(serdes.tx_clk_count),
            description=f"TX word clock edges (divided by 2**{self.div_log2}) per {self.window} sys cycles.")
        self.rx_clk_count = CSRStatus(len(serdes.rx_clk_count),
            description=f"RX word clock edges (divided by 2**{self.div_log2}) per {self.window} sys cycles.")
        self.sci_control = CSRStorage(fields=[
            CSRField("adr",   size=6, description="SCI register address."),
            CSRField("dat_w", size=8, offset=8, description="Write data."),
            CSRField("we",    size=1, offset=16, description="1: write, 0: read."),
            CSRField("aux",   size=1, offset=17, description="1: dual (aux) register, 0: channel register."),
        ], description="Writing starts one SCI access (none starts while electrical idle is on).")
        self.sci_status = CSRStatus(fields=[
            CSRField("dat_r", size=8, description="Read data of the last read."),
            CSRField("busy",  size=1, offset=8, description="Access pending."),
        ])

        # # #

        rx_los = Signal()
        self.specials += MultiReg(serdes.rx_los, rx_los)
        f, sci = self.status.fields, serdes.sci
        self.comb += [
            f.tx_ready.eq(serdes.tx_ready),
            f.rx_ready.eq(serdes.rx_ready),
            f.tx_pll_locked.eq(serdes.tx_pll_locked),
            f.rx_cdr_locked.eq(serdes.rx_cdr_locked),
            f.rx_los.eq(rx_los),
            f.half_rate.eq(serdes.rate_half),
        ] + ([
            f.rate_pins.eq(serdes.rate_pins),
            serdes.gen1_dividers.eq(self.gen1_method.fields.dividers),
        ] if serdes.gen1_method else []) + [
            self.tx_clk_count.status.eq(serdes.tx_clk_count),
            self.rx_clk_count.status.eq(serdes.rx_clk_count),
            sci.ext_start.eq(self.sci_control.re),
            sci.ext_adr.eq(self.sci_control.fields.adr),
            sci.ext_dat_w.eq(self.sci_control.fields.dat_w),
            sci.ext_we.eq(self.sci_control.fields.we),
            sci.ext_aux.eq(self.sci_control.fields.aux),
            self.sci_status.fields.dat_r.eq(sci.ext_dat_r),
            self.sci_status.fields.busy.eq(sci.ext_busy | self.sci_control.re),
        ]
