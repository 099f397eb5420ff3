#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""A LiteX SoC with our SATA PHY and core and LiteSATA's BIST (generator, checker, IDENTIFY), on a
LambdaConcept ECPIX-5: the pieces put together by hand, with a CRG of the example's own (one
fabric PLL: sys and the SerDes reference clock). doc/core.md explains each piece.

    python examples/sata_bist_ecpix5.py              # the Verilog and csr.csv only
    python examples/sata_bist_ecpix5.py --build      # and the bitstream (Yosys, nextpnr)

LiteSATA's BIST registers are then `sata_bist_generator_*`, `sata_bist_checker_*` and
`sata_bist_identify_*`, as with any LiteSATA PHY; the PHY's are `sata_phy_*`.
"""

import argparse
import os

from migen import ClockDomain, Signal

from litex.gen import LiteXModule
from litex.soc.cores.clock import ECP5PLL
from litex.soc.integration.builder import Builder
from litex.soc.integration.soc_core import SoCCore
from litex_boards.platforms import lambdaconcept_ecpix5
from litesata.frontend.bist import LiteSATABIST

from ecpsata import ECP5SATASerDes, ECPSATACore, ECPSATACrossbar, ECPSATAPHY, sata_pads
from ecpsata.platforms import ecpix5 as ecpix5_pins

SYS_CLK_FREQ = 75e6       # the dword rate at Gen2: the least the PHY and core need
REFCLK_FREQ = 150e6       # x20 in the DCU = 3.0 GHz, the Gen2 line rate


class CRG(LiteXModule):
    """sys and the SerDes reference clock from one PLL on the board's 100 MHz oscillator."""
    def __init__(self, platform):
        self.cd_sys = ClockDomain()
        self.refclk = Signal()
        self.cd_refclk = ClockDomain(reset_less=True)
        self.pll = pll = ECP5PLL()
        pll.register_clkin(platform.request("clk100"), 100e6)
        pll.create_clkout(self.cd_sys, SYS_CLK_FREQ)
        pll.create_clkout(self.cd_refclk, REFCLK_FREQ)
        self.comb += self.refclk.eq(self.cd_refclk.clk)


class SATABISTSoC(SoCCore):
    def __init__(self):
        platform = lambdaconcept_ecpix5.Platform(device="85F", toolchain="trellis")
        platform.add_extension(ecpix5_pins.extensions)
        self.crg = CRG(platform)
        SoCCore.__init__(self, platform, SYS_CLK_FREQ, ident="SATA BIST on ecpsata",
                         integrated_rom_size=0x8000, uart_name="serial")

        # The DCU channel of the board's SATA connector; its word clocks are asynchronous to sys
        # (the PHY crosses them).
        serdes = ECP5SATASerDes(sata_pads(platform.request("sata_serdes")), self.crg.refclk,
                                SYS_CLK_FREQ, refclk_freq=REFCLK_FREQ, refclk_mul=20,
                                dual=ecpix5_pins.SATA_DUAL, channel=ecpix5_pins.SATA_CHANNEL)
        self.sata_serdes = serdes
        serdes.add_timing_constraints(platform)
        platform.add_false_path_constraints(self.crg.cd_sys.clk, serdes.tx_clk, serdes.rx_clk)

        # PHY, core, crossbar; LiteSATA's BIST on the crossbar's ports.
        self.sata_phy      = ECPSATAPHY(serdes, SYS_CLK_FREQ)
        self.sata_core     = ECPSATACore(self.sata_phy, SYS_CLK_FREQ)
        self.sata_crossbar = ECPSATACrossbar(self.sata_core)
        self.sata_bist     = LiteSATABIST(self.sata_crossbar, with_csr=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", action="store_true", help="also run Yosys and nextpnr")
    parser.add_argument("--output-dir", default=os.path.join("build", "example_sata_bist_ecpix5"),
                        help="build folder (default build/example_sata_bist_ecpix5)")
    args = parser.parse_args(argv)
    soc = SATABISTSoC()
    builder = Builder(soc, output_dir=args.output_dir, compile_software=args.build,
                      csr_csv=os.path.join(args.output_dir, "csr.csv"))
    builder.build(run=args.build)
    return soc


if __name__ == "__main__":
    main()
