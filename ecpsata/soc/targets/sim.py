# SPDX-License-Identifier: BSD-2-Clause
"""Target: the simulated board (Verilator), console and bridge on loopback TCP or the terminal."""

from migen import *

from litex.build.generic_platform import *
from litex.build.io import CRG
from litex.soc.cores.uart import RS232PHYModel, UARTBone

from ecpsata.platforms import sim as simplatform
from ecpsata.phy.sim_serdes import SimSerDes
from ecpsata.soc.boards import Board
from ecpsata.soc.builder import ECPSATASoC, add_frame_check_args

BOARD = Board("sim", 1, "the simulated board: Verilator, the virtual drive, console and bridge on TCP",
              simulated=True)
SIM_MODULES = ["tcpuart", "vdrive"]


class SimSoC(ECPSATASoC):
    def __init__(self, firmware_init=None, frame_check=True):
        platform = simplatform.Platform()
        sys_clk_freq = int(simplatform.SYS_CLK_FREQ)
        self.crg = CRG(platform.request("sys_clk"))
        ECPSATASoC.__init__(self, platform, BOARD, sys_clk_freq, uart="sim",
                            features={"uartbone", "simulated"}, firmware_init=firmware_init)
        # litex_server's bridge: a second stream UART so that the console stays free.
        self.bridge_phy = RS232PHYModel(platform.request("bridge"))
        self.bridge = UARTBone(phy=self.bridge_phy, clk_freq=sys_clk_freq,
                               address_width=self.bus.address_width)
        self.bus.add_master(name="bridge", master=self.bridge.wishbone)
        # SATA: the sim SerDes faces the virtual drive (ecpsata/sim/vdrive) through the sata_phy pads.
        self.sata_serdes = SimSerDes(platform.request("sata_phy"), platform.request("sata_clk"))
        self.add_ecpsata(self.sata_serdes, frame_check=frame_check)
        self.add_identity()


def add_args(parser):
    add_frame_check_args(parser)


def make_soc(firmware_init, args):
    return SimSoC(firmware_init, frame_check=args.frame_check)


def build_kwargs(args):
    return dict(sim_config=simplatform.sim_config(), opt_level="O2", interactive=False)
