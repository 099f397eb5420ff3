"""Target: LambdaConcept ECPIX-5 (LFE5UM5G-85F). SATA connector on a DCU channel, Etherbone."""

from litex_boards.platforms import lambdaconcept_ecpix5
from liteeth.phy.ecp5rgmii import LiteEthPHYRGMII

from platforms import ecpix5 as ecpix5_pins
from soc.builder import EcpsataSoC
from soc.ecp5_crg import ECP5CRG

BOARD = "ecpix5"
SYS_CLK_FREQ = 70e6  # fmax measured 75.3-78.1 MHz: keep margin (Etherbone UDP/IP core limits it)


def make_platform():
    return lambdaconcept_ecpix5.Platform(device="85F", toolchain="trellis")


class ECPIX5SoC(EcpsataSoC):
    def __init__(self, firmware_init=None, sys_clk_freq=SYS_CLK_FREQ, with_etherbone=True,
                 eth_ip="192.168.1.50", with_sata=False):
        platform = make_platform()
        self.crg = ECP5CRG(platform, sys_clk_freq)
        features = {"etherbone"} if with_etherbone else set()
        EcpsataSoC.__init__(self, platform, BOARD, sys_clk_freq, uart="crossover+uartbone",
                            features=features, firmware_init=firmware_init)
        if with_etherbone:
            self.ethphy = LiteEthPHYRGMII(
                clock_pads = platform.request("eth_clocks"),
                pads       = platform.request("eth"),
                rx_delay   = 0e-9)
            self.add_etherbone_sys(self.ethphy, eth_ip)
        if with_sata:
            platform.add_extension(ecpix5_pins.extensions)
            self.add_ecp5_sata(platform.request("sata_serdes"), ecpix5_pins.SATA_DUAL,
                               ecpix5_pins.SATA_CHANNEL)
        self.add_identity()


def add_args(parser):
    parser.add_argument("--sys-clk-freq", type=float, default=SYS_CLK_FREQ, help="sys clock in Hz.")
    parser.add_argument("--eth-ip", default="192.168.1.50", help="Etherbone IP address of the board.")
    parser.add_argument("--with-sata", action="store_true",
                        help="SATA PHY on the DCU and the LiteSATA core (does not meet timing yet).")


def make_soc(firmware_init, args):
    return ECPIX5SoC(firmware_init, sys_clk_freq=args.sys_clk_freq, eth_ip=args.eth_ip,
                     with_sata=args.with_sata)


def build_kwargs(args):
    return dict(seed=1)
