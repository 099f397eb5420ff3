# SPDX-License-Identifier: BSD-2-Clause
"""Clocks and resets for ECP5 boards: power-on reset, one fabric PLL from the board oscillator."""

from migen import *

from litex.gen import LiteXModule
from litex.soc.cores.clock import ECP5PLL


class ECP5CRG(LiteXModule):
    """sys from a PLL on the board oscillator; the reset button (active low) and a power-on counter
    hold the PLL in reset. Further outputs (the SerDes reference clock) are added by the SATA PHY."""
    def __init__(self, platform, sys_clk_freq, clk_name="clk100", clk_freq=100e6, rst_n_name="rst_n"):
        self.rst    = Signal()
        self.cd_sys = ClockDomain()
        self.cd_por = ClockDomain(reset_less=True)

        # # #

        clk = platform.request(clk_name)
        rst_n = platform.request(rst_n_name) if rst_n_name else 1
        por_count = Signal(16, reset=2**16 - 1)
        por_done  = Signal()
        self.comb += [self.cd_por.clk.eq(clk), por_done.eq(por_count == 0)]
        self.sync.por += If(~por_done, por_count.eq(por_count - 1))

        self.pll = pll = ECP5PLL()
        self.comb += pll.reset.eq(~por_done | ~rst_n | self.rst)
        pll.register_clkin(clk, clk_freq)
        pll.create_clkout(self.cd_sys, sys_clk_freq)  # holds sys in reset until the PLL locks

    def add_clock(self, name, freq):
        """A further clock domain from the PLL (reset until the PLL locks)."""
        cd = ClockDomain(name)
        setattr(self, f"cd_{name}", cd)
        self.pll.create_clkout(cd, freq)
        return cd

    def add_serdes_refclk(self, freq=150e6):
        """The DCU reference clock from the same fabric PLL (150 MHz x20 = 3.0 GHz linked on an
        ECPIX-5; doc/ecp5-serdes.md)."""
        self.cd_sata_ref = ClockDomain(reset_less=True)
        self.pll.create_clkout(self.cd_sata_ref, freq, margin=0, with_reset=False)
        return self.cd_sata_ref.clk
