#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Placement smoke build of the ECP5 DCU SerDes wrapper.

A tiny top: a fabric PLL on the board oscillator makes ``sys`` and the 150 MHz DCU reference clock
(x20 -> 3.0 GHz), the wrapper, a raw-word pattern generator on ``sata_tx`` and a checker on
``sata_rx`` (loop TX to RX with cables to see the LEDs). Builds with LiteX's trellis toolchain (Yosys,
nextpnr-ecp5, ecppack) into build/<board>_serdes_smoke/ and prints fmax per clock and resource use.

    python ecpsata/phy/ecp5/smoke.py --board ecpix5
    python ecpsata/phy/ecp5/smoke.py --board versa_ecp5 [--gen 1] [--refclk extref]

Board pins (to move to ecpsata/platforms/):
- ECPIX-5: the litex-boards ``sata`` resource also carries the DCU reference-clock pads AF12/AF13;
  with a fabric reference they must not be requested, so ``sata_serdes`` below holds the TX/RX pairs
  only (TX AD16/AD17, RX AF15/AF16: DCU1 channel 0). ``--refclk extref`` requests the whole
  ``sata`` resource and feeds clk_p/clk_n to an EXTREFB: placement check only, the ECPIX-5 has a
  100 MHz oscillator there (per a public ECPIX-5 SATA bench), and 100 MHz x {8,10,16,20,25} cannot
  make 1.5 or 3.0 Gb/s.
- Versa ECP5-5G: ``sma_tx`` (W8/W9) / ``sma_rx`` (Y7/Y8) are DCU0 channel 1; ``refclk`` 0 (Y11/Y12)
  is the DCU0 reference input.
"""

import argparse
import os
import re
import subprocess
import sys
import time

from migen import *
from migen.genlib.cdc import MultiReg

from litex.gen import *
from litex.build.generic_platform import Subsignal, Pins
from litex.soc.cores.clock import ECP5PLL

from ecpsata.phy.serdes import GEN1, GEN2
from ecpsata.phy.ecp5.serdes import ECP5SATASerDes, sata_pads

from ecpsata.paths import ROOT as REPO, TOOLS

# Boards -------------------------------------------------------------------------------------------

_ecpix5_sata_serdes = [
    ("sata_serdes", 0,
        Subsignal("tx_p", Pins("AD16")),
        Subsignal("tx_n", Pins("AD17")),
        Subsignal("rx_p", Pins("AF15")),
        Subsignal("rx_n", Pins("AF16")),
    ),
]


def board_ecpix5(refclk_src):
    from litex_boards.platforms import lambdaconcept_ecpix5
    platform = lambdaconcept_ecpix5.Platform(device="85F", toolchain="trellis")
    if refclk_src == "extref":
        sata = platform.request("sata")
        pads, extref = sata, sata
    else:
        platform.add_extension(_ecpix5_sata_serdes)
        pads, extref = platform.request("sata_serdes"), None
    rgb  = platform.request("rgb_led", 0)
    leds = [rgb.r, rgb.g, rgb.b]  # active low
    return dict(platform=platform, pads=pads, extref=extref, dual=1, channel=0, leds=leds,
        clk=platform.request("clk100"), clk_freq=100e6)


def board_versa_ecp5(refclk_src):
    from litex_boards.platforms import lattice_versa_ecp5
    platform = lattice_versa_ecp5.Platform(device="LFE5UM5G", toolchain="trellis")
    pads = sata_pads(tx=platform.request("sma_tx"), rx=platform.request("sma_rx"))
    extref = platform.request("refclk", 0) if refclk_src == "extref" else None
    leds = [platform.request("user_led", i) for i in range(3)]  # active low
    return dict(platform=platform, pads=pads, extref=extref, dual=0, channel=1, leds=leds,
        clk=platform.request("clk100"), clk_freq=100e6)


BOARDS = {"ecpix5": board_ecpix5, "versa_ecp5": board_versa_ecp5}

# Top ----------------------------------------------------------------------------------------------

class SmokeTop(LiteXModule):
    def __init__(self, board, sys_clk_freq=75e6, gen=GEN2, refclk_src="pll"):
        platform = board["platform"]

        # Clocking: sys and the DCU reference from one fabric PLL.
        self.cd_sys    = ClockDomain()
        self.cd_refclk = ClockDomain(reset_less=True)
        self.pll = pll = ECP5PLL()
        pll.register_clkin(board["clk"], board["clk_freq"])
        pll.create_clkout(self.cd_sys, sys_clk_freq)
        if refclk_src == "pll":
            pll.create_clkout(self.cd_refclk, 150e6, margin=0, with_reset=False)
            refclk = self.cd_refclk.clk
        else:
            refclk = board["extref"]

        # SerDes.
        self.serdes = serdes = ECP5SATASerDes(board["pads"], refclk, sys_clk_freq,
            refclk_freq = 150e6,
            dual        = board["dual"],
            channel     = board["channel"],
            refclk_mul  = 20,
            gen         = gen,
        )
        serdes.add_timing_constraints(platform)

        # Raw-word pattern generator (sata_tx): OOB-like bursts and gaps, then LFSR words.
        lfsr  = Signal(23, reset=1)
        phase = Signal(12)
        burst = Signal()
        self.sync.sata_tx += [
            phase.eq(phase + 1),
            burst.eq(~burst),
            lfsr.eq(Cat(lfsr[1:], lfsr[0] ^ lfsr[5])),  # x^23 + x^18 + 1 (PRBS23 class)
        ]
        self.comb += [
            If(phase[11],
                serdes.tx_data.eq(lfsr[:20]),                             # data words
            ).Elif(phase[4],
                serdes.tx_data.eq(0),                                     # gap (no transitions)
            ).Else(
                serdes.tx_data.eq(Mux(burst, 0xF0F0F, 0x0F0F0)),          # burst
            ),
            serdes.tx_idle.eq(0),
        ]

        # Checker (sata_rx): a word equal to the previous one shifted by the LFSR step counts as
        # good; drives an LED so that the receive datapath is kept.
        rx_prev = Signal(20)
        good    = Signal(16)
        self.sync.sata_rx += [
            rx_prev.eq(serdes.rx_data),
            If((serdes.rx_data[:19] == rx_prev[1:20]), good.eq(good + 1)),
        ]

        # Seam controls: hold the CDR while the line is idle, Gen2, no inversion.
        los = Signal()
        self.specials += MultiReg(serdes.rx_los, los)
        self.comb += [
            serdes.gen.eq(gen),
            serdes.rx_cdr_hold.eq(los),
        ]

        leds = board["leds"]
        good_s = Signal()
        self.specials += MultiReg(good[15], good_s)
        self.comb += [
            leds[0].eq(~serdes.tx_ready),
            leds[1].eq(~(serdes.rx_ready & ~los)),
            leds[2].eq(~good_s),
        ]

# Build --------------------------------------------------------------------------------------------

def parse_report(log):
    fmax = re.findall(r"Max frequency for clock\s+'([^']+)':\s+([\d.]+) MHz \((PASS|FAIL) at ([\d.]+) MHz\)", log)
    # Keep the last report (after routing).
    result = {}
    for name, f, status, target in fmax:
        result[name] = (float(f), status, float(target))
    util = {}
    block = log.rfind("Device utilisation:")
    if block >= 0:
        for m in re.finditer(r"Info:\s+(\w+):\s+(\d+)/\s*(\d+)\s+(\d+)%", log[block:block+4000]):
            util[m.group(1)] = (int(m.group(2)), int(m.group(3)))
    return result, util


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--board",   choices=sorted(BOARDS), required=True)
    parser.add_argument("--gen",     type=int, choices=[1, 2], default=2, help="Build-time top rate.")
    parser.add_argument("--refclk",  choices=["pll", "extref"], default="pll",
        help="DCU reference: fabric PLL at 150 MHz (default) or the board's EXTREF pads (150 MHz needed).")
    parser.add_argument("--sys-clk-freq", type=float, default=75e6)
    parser.add_argument("--seed",    type=int, default=1)
    parser.add_argument("--no-run",  action="store_true", help="Only generate the project.")
    args = parser.parse_args()

    gen   = {1: GEN1, 2: GEN2}[args.gen]
    if args.refclk == "extref":
        print("Note: --refclk extref checks placement only; the wrapper assumes 150 MHz on the EXTREF "
              "pads (the ECPIX-5 has a 100 MHz oscillator there, which cannot make 1.5/3.0 Gb/s).")
    board = BOARDS[args.board](args.refclk)
    platform = board["platform"]
    top = SmokeTop(board, sys_clk_freq=args.sys_clk_freq, gen=gen, refclk_src=args.refclk)

    # Default build in build/<board>_serdes_smoke/, variants in their own folders.
    name      = "{}_serdes_smoke".format(args.board)
    name     += "_gen1" if gen == GEN1 else ""
    name     += "_extref" if args.refclk == "extref" else ""
    build_dir = os.path.join(REPO, "build", name)
    platform.build(top, build_dir=build_dir, build_name=name, run=False, seed=args.seed)
    if args.no_run:
        return

    env = dict(os.environ)
    env["PATH"] = TOOLS + os.pathsep + env.get("PATH", "")
    start = time.time()
    with open(os.path.join(build_dir, "build.log"), "w") as f:
        proc = subprocess.run(["bash", "build_{}.sh".format(name)], cwd=build_dir, env=env,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        f.write(proc.stdout)
    wall = time.time() - start
    log = proc.stdout
    if proc.returncode != 0:
        print(log[-6000:])
        print("BUILD FAILED ({:.0f} s), log: {}".format(wall, os.path.join(build_dir, "build.log")))
        sys.exit(1)

    fmax, util = parse_report(log)
    print("Board {}, Gen{} build, refclk {}: bitstream {} ({:.0f} s wall)".format(
        args.board, args.gen, args.refclk, os.path.join(build_dir, name + ".bit"), wall))
    print("fmax per clock:")
    ok = True
    for clk, (f, status, target) in sorted(fmax.items()):
        print("  {:40s} {:8.2f} MHz  {} at {:.2f} MHz".format(clk, f, status, target))
        ok &= status == "PASS"
    print("resources:")
    for kind in ("TRELLIS_COMB", "TRELLIS_FF", "TRELLIS_RAMW", "DCUA", "EXTREFB", "EHXPLLL", "DCCA", "TRELLIS_IO"):
        if kind in util:
            print("  {:14s} {:6d} / {}".format(kind, *util[kind]))
    if not ok:
        print("TIMING FAILED")
        sys.exit(2)


if __name__ == "__main__":
    main()
