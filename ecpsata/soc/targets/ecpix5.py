# SPDX-License-Identifier: BSD-2-Clause
"""Target: LambdaConcept ECPIX-5 (LFE5UM5G-85F). SATA connector on a DCU channel, Etherbone."""

from litex_boards.platforms import lambdaconcept_ecpix5
from liteeth.phy.ecp5rgmii import LiteEthPHYRGMII

from ecpsata.platforms import ecpix5 as ecpix5_pins
from ecpsata.soc.analyzer import add_sata_analyzer
from ecpsata.soc.boards import Board
from ecpsata.soc.builder import ECPSATASoC, add_board_args, board_options
from ecpsata.soc.ecp5_crg import ECP5CRG

BOARD = Board("ecpix5", 2, "LambdaConcept ECPIX-5 (LFE5UM5G-85F): SATA connector, Etherbone",
              programmer=("--board", "ecpix5"), simulated_variant="ecpix5_sim")
SYS_CLK_FREQ = 75e6       # the SATA core's dword rate at Gen2 (3.0 Gb/s / 40 bits per dword)
ETH_CORE_CLK_FREQ = 50e6  # MAC/IP/UDP layers of Etherbone, apart from sys


def make_platform():
    return lambdaconcept_ecpix5.Platform(device="85F", toolchain="trellis")


class ECPIX5SoC(ECPSATASoC):
    def __init__(self, firmware_init=None, sys_clk_freq=SYS_CLK_FREQ, with_etherbone=True,
                 eth_ip="192.168.1.50", with_sata=True,
                 ncq=True, engines=True, analyzer_depth=None, gen1_method=True, frame_check=True):
        platform = make_platform()
        self.crg = ECP5CRG(platform, sys_clk_freq)
        features = {"etherbone"} if with_etherbone else set()
        ECPSATASoC.__init__(self, platform, BOARD, sys_clk_freq, uart="crossover+uartbone",
                            features=features, firmware_init=firmware_init)
        if with_etherbone:
            self.ethphy = LiteEthPHYRGMII(
                clock_pads = platform.request("eth_clocks"),
                pads       = platform.request("eth"),
                rx_delay   = 0e-9)
            self.crg.add_clock("eth_core", ETH_CORE_CLK_FREQ)
            self.add_etherbone_bridge(self.ethphy, eth_ip, core_cd="eth_core",
                               core_clk_freq=ETH_CORE_CLK_FREQ)
        if with_sata:
            platform.add_extension(ecpix5_pins.extensions)
            self.add_ecp5_sata(platform.request("sata_serdes"), dual=ecpix5_pins.SATA_DUAL,
                               channel=ecpix5_pins.SATA_CHANNEL, ncq=ncq, with_engines=engines,
                               gen1_method=gen1_method, frame_check=frame_check)
        if analyzer_depth:
            add_sata_analyzer(self, analyzer_depth)
        self.add_identity()


def add_args(parser):
    add_board_args(parser, SYS_CLK_FREQ)
    parser.add_argument("--eth-ip", default="192.168.1.50", help="Etherbone IP address of the board.")


def make_soc(firmware_init, args):
    return ECPIX5SoC(firmware_init, eth_ip=args.eth_ip, **board_options(args))


def build_kwargs(args):
    return dict(seed=1)
