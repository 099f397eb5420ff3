#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""A board target in the form of litex-boards' targets, with SATA as they add it (`--with-sata`,
`--sata-gen`), here our host through one call: ``add_ecpsata_ecp5(soc, pads, refclk, ...)`` puts
the DCU channel, our PHY, core and crossbar, LiteSATA's IDENTIFY frontend, the error block and the
link event log in any LiteX SoC (ecpsata/soc/integration.py). With `--sata-mode read+write` (the
default, as LiteX's `add_sata`) LiteSATA's DMA frontends too, under LiteX's register names, so
that LiteX's BIOS (`sata_init`, `sata_read`, `sata_write`) and the Linux LiteSATA driver find what
they find on LiteSATA's core. The CRG is the example's own.

    python examples/add_ecpsata_ecpix5.py --with-sata                 # Verilog and csr.csv
    python examples/add_ecpsata_ecpix5.py --with-sata --sata-gen 1    # Gen1 only after reset
    python examples/add_ecpsata_ecpix5.py --with-sata --sata-mode identify   # no DMA frontends
    python examples/add_ecpsata_ecpix5.py --with-sata --build         # and the bitstream
"""

import argparse
import os

from migen import ClockDomain

from litex.gen import LiteXModule
from litex.soc.cores.clock import ECP5PLL
from litex.soc.integration.builder import Builder
from litex.soc.integration.soc_core import SoCCore
from litex_boards.platforms import lambdaconcept_ecpix5

from ecpsata import add_ecpsata_ecp5, sata_pads
from ecpsata.platforms import ecpix5 as ecpix5_pins

SYS_CLK_FREQ = 75e6
REFCLK_FREQ = 150e6
SATA_GENS = {"auto": 0, "1": 1, "2": 2}     # ECPSATAPHY's force_gen after reset
SATA_MODES = ("read+write", "identify")      # with or without LiteSATA's DMA frontends


class CRG(LiteXModule):
    """sys, and with SATA the SerDes reference clock, from one PLL on the 100 MHz oscillator."""
    def __init__(self, platform, with_sata):
        self.cd_sys = ClockDomain()
        self.pll = pll = ECP5PLL()
        pll.register_clkin(platform.request("clk100"), 100e6)
        pll.create_clkout(self.cd_sys, SYS_CLK_FREQ)
        if with_sata:
            self.cd_sata_ref = ClockDomain(reset_less=True)
            pll.create_clkout(self.cd_sata_ref, REFCLK_FREQ)


class BaseSoC(SoCCore):
    def __init__(self, with_sata=False, sata_gen="auto", sata_mode="read+write", **kwargs):
        platform = lambdaconcept_ecpix5.Platform(device="85F", toolchain="trellis")
        self.crg = CRG(platform, with_sata)
        SoCCore.__init__(self, platform, SYS_CLK_FREQ, ident="ecpsata on a LiteX board target",
                         **kwargs)
        if with_sata:
            platform.add_extension(ecpix5_pins.extensions)
            add_ecpsata_ecp5(self, sata_pads(platform.request("sata_serdes")),
                             self.crg.cd_sata_ref.clk, refclk_freq=REFCLK_FREQ,
                             dual=ecpix5_pins.SATA_DUAL, channel=ecpix5_pins.SATA_CHANNEL,
                             force_gen=SATA_GENS[sata_gen], with_dma=sata_mode == "read+write",
                             with_litesata_csr=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--with-sata", action="store_true", help="add the SATA host")
    parser.add_argument("--sata-gen", choices=sorted(SATA_GENS), default="auto",
                        help="line rate after reset: 1, 2 or auto (Gen2, falling back to Gen1)")
    parser.add_argument("--sata-mode", choices=SATA_MODES, default="read+write",
                        help="read+write: LiteSATA's DMA frontends as LiteX's add_sata adds them "
                             "(default); identify: the IDENTIFY frontend only")
    parser.add_argument("--build", action="store_true", help="also run Yosys and nextpnr")
    parser.add_argument("--output-dir", default=os.path.join("build", "example_add_ecpsata"),
                        help="build folder (default build/example_add_ecpsata)")
    args = parser.parse_args(argv)
    soc = BaseSoC(with_sata=args.with_sata, sata_gen=args.sata_gen, sata_mode=args.sata_mode,
                  integrated_rom_size=0x10000, uart_name="serial",
                  # LiteX's BIOS with SATA needs a main RAM (sataboot loads there); the board's
                  # DDR3 (LiteDRAM) would serve in a full target: block RAM keeps the example short.
                  integrated_main_ram_size=0x8000)
    builder = Builder(soc, output_dir=args.output_dir, compile_software=args.build,
                      csr_csv=os.path.join(args.output_dir, "csr.csv"))
    builder.build(run=args.build)
    return soc


if __name__ == "__main__":
    main()
