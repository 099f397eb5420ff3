# SPDX-License-Identifier: BSD-2-Clause
"""The ECP5 SerDes wrapper's bring-up registers: its flags, its word-clock meters and raw SCI
access, read and set at run time by `ecpsata phy` and the console's `phy` (doc/bringup.md,
"Settings at run time").

# Ref: Lattice TN1261 (ECP5 and ECP5-5G SERDES/PCS Usage Guide): SCI, channel and dual registers.

The registers live in a module of their own rather than in the wrapper: the SoC and the PHY both
hold the wrapper (the SoC for its clocks and constraints, the PHY as its SerDes), and LiteX would
collect the wrapper's registers once through each.

CSRs (the SoC names the module ``sata_serdes_bringup``):

    ============  ===  =======================================================================
    status        ro   tx_ready, rx_ready, tx_pll_locked, rx_cdr_locked, rx_los, half_rate
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


# The DCU channel's loopback control: SCI channel register 0x15 (lb_ctl in bits 0-3). The two
# values public ECP5 designs write for a near-end loopback, as (mask, value) over the register:
# LiteICLink's ECP5 SerDes sets lb_ctl to 1 (and notes it may not be enough on silicon); LUNA's
# ECP5 PHY for USB 3 writes 0b110010 into bits 0-5 (lb_ctl 2 and bits 4 and 5).
SCI_CH_LOOPBACK = 0x15
LOOPBACK_MODES = {
    "liteiclink": (0x0F, 0x01),
    "luna":       (0x3F, 0x32),
}
LOOPBACK_DEFAULT = "liteiclink"  # the value the public SATA work on ECP5 used

# Settings in DCU channel registers, as (address, lowest bit, bits): lb_ctl (TN1261); the TX
# driver's slice 2 select and the RX termination where LUNA's ECP5 PHY writes them.
SCI_FIELDS = {
    "lb_ctl":    (SCI_CH_LOOPBACK, 0, 4),
    "tx_slice2": (0x12, 4, 2),
    "rx_term":   (0x17, 0, 5),
}


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
            CSRField("half_rate",     size=1, description="Half-rate (Gen1 on a Gen2 build) applied."),
        ])
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
