#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""LiteX's BIOS on our PHY and core, in the simulated SoC: a stock LiteX SoCCore with LiteX's
BIOS in ROM and our SATA PHY (ECPSATAPHY on the simulation SerDes, with LiteSATA's ``enable``
register), and above it either

- ``--core litesata`` (the default): LiteX's own ``soc.add_sata(phy=..., mode="read+write")``,
  which builds LiteSATA's core, crossbar, IDENTIFY frontend and DMA frontends on our PHY;
- ``--core ecpsata``: our core through ``add_ecpsata(soc, serdes, with_dma=True)``, with
  LiteSATA's IDENTIFY and DMA frontends on our crossbar, under LiteX's register names.

No code of ours runs on the CPU: the BIOS's ``sata_init``, ``sata_read`` and ``sata_write`` talk
to the virtual drive (ecpsata/sim/vdrive).

    python examples/litex_add_sata_sim.py [--core ecpsata]          # build (Verilator)
    python examples/litex_add_sata_sim.py [--core ecpsata] --run    # and run: the BIOS here
    litex> sata_init
    litex> sata_read 0

tests/system/test_examples_sim.py builds both and runs those commands.
"""

import argparse
import os
import subprocess

from litex.build.io import CRG
from litex.soc.integration.builder import Builder
from litex.soc.integration.soc_core import SoCCore

from ecpsata import ECPSATAPHY, add_ecpsata
from ecpsata.paths import TOOLS
from ecpsata.phy.sim_serdes import SimSerDes
from ecpsata.platforms import sim as simplatform
from ecpsata.soc.build import sim_modules

SYS_CLK_FREQ = int(simplatform.SYS_CLK_FREQ)     # 75 MHz: LiteX's add_sata asks for gen2's half


CORES = ("litesata", "ecpsata")


class BIOSSATASoC(SoCCore):
    def __init__(self, core="litesata"):
        platform = simplatform.Platform()
        self.crg = CRG(platform.request("sys_clk"))
        SoCCore.__init__(self, platform, SYS_CLK_FREQ, ident="LiteX add_sata on the ecpsata PHY",
                         cpu_type="vexriscv", uart_name="sim", integrated_rom_size=0x10000,
                         integrated_sram_size=0x4000, integrated_main_ram_size=0x10000)
        # No serial boot to wait for here: the BIOS's quarter second for one (a minute of the
        # simulation's wall time) goes, its SATA boot and every SATA wait stay.
        self.add_config("BIOS_NO_DELAYS")
        serdes = SimSerDes(platform.request("sata_phy"), platform.request("sata_clk"))
        self.sata_serdes = serdes
        if core == "litesata":
            self.sata_phy = ECPSATAPHY(serdes, SYS_CLK_FREQ, with_litesata_csr=True)
            self.add_sata(phy=self.sata_phy, mode="read+write")
        else:
            add_ecpsata(self, serdes, with_dma=True, with_litesata_csr=True)


def build(output_dir, compile_gateware=True, core="litesata"):
    """Generate the SoC and its BIOS, then compile the Verilator model; returns the gateware
    folder (its obj_dir/Vsim is the simulation)."""
    # LiteX's BIOS build and Verilator's call `python3` and the tools of this environment
    os.environ["PATH"] = TOOLS + os.pathsep + os.environ.get("PATH", "")
    soc = BIOSSATASoC(core)
    output_dir = os.path.abspath(output_dir)
    builder = Builder(soc, output_dir=output_dir, csr_csv=os.path.join(output_dir, "csr.csv"))
    builder.build(sim_config=simplatform.sim_config(vdrive=""), run=False, interactive=False,
                  opt_level="O2", **sim_modules(output_dir, ["tcpuart", "vdrive"]))
    if compile_gateware:
        with open(os.path.join(builder.gateware_dir, "build.log"), "w") as log:
            subprocess.run(["bash", "build_sim.sh"], cwd=builder.gateware_dir, check=True,
                           stdout=log, stderr=subprocess.STDOUT)
    return builder.gateware_dir


def run(gateware, vdrive, console="stdio", console_port=None):
    """Start the simulation with the virtual drive `vdrive` (a configuration string,
    ecpsata/sim/vdrive/README.md); console on this terminal, or on a loopback TCP port."""
    simplatform.write_sim_config(os.path.join(gateware, "sim_config.js"), console=console,
                                 console_port=console_port, vdrive=vdrive)
    return subprocess.Popen([os.path.join(gateware, "obj_dir", "Vsim")], cwd=gateware)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--output-dir", default=os.path.join("build", "example_litex_add_sata"),
                        help="build folder (default build/example_litex_add_sata)")
    parser.add_argument("--core", choices=CORES, default="litesata",
                        help="litesata: LiteX's add_sata on our PHY (default); ecpsata: our core "
                             "(add_ecpsata) with LiteSATA's frontends")
    parser.add_argument("--run", action="store_true", help="run the simulation after the build")
    args = parser.parse_args(argv)
    gateware = build(args.output_dir, core=args.core)
    if args.run:
        run_dir = os.path.join(os.path.abspath(args.output_dir), "run")
        os.makedirs(run_dir, exist_ok=True)
        run(gateware, simplatform.default_vdrive(run_dir)).wait()


if __name__ == "__main__":
    main()
