# SPDX-License-Identifier: BSD-2-Clause
"""Target: the ECPIX-5 itself, simulated (Verilator): the board's SoC with its DCU wrapper
(ecpsata/phy/ecp5/serdes.py) on the behavioural DCUA model (ecpsata/phy/ecp5/dcua_model.py), whose line
side faces the virtual drive.

What is the board's: sys at 75 MHz, the DCU wrapper with its reset sequencing, SCI writes, clock
meters and half-rate pins, the board UART carrying litex_server's bridge with the console as a
crossover UART behind it, Etherbone with its MAC/IP/UDP layers in their own 50 MHz domain. What is
not: the fabric PLL (the clocks come from the simulator), the DCUA (the model), the RGMII PHY
(LiteEth's PHY model, frames to a tap interface), and the pins.

The model's word clocks: ``tx_ce`` says on which edge of the reference clock the TX word clock
ticks; it is sampled on the falling edge and gates the reference clock, so the wrapper's sata_tx
runs as on the DCU's FF_TX_PCLK. The receiver runs on the drive's own word clock (the recovered
clock, the vdrive pad ``rx_clk``), gated while the model's receiver is powered down.
"""

from types import SimpleNamespace

from migen import *

from litex.gen import LiteXModule
from litex.soc.interconnect.csr import CSRField, CSRStorage
from migen.genlib.cdc import MultiReg
from litex.soc.cores.uart import RS232PHYModel, UARTBone
from liteeth.phy.model import LiteEthPHYModel

from ecpsata.platforms import ecpix5_sim as simplatform
from ecpsata.phy.ecp5.dcua_model import DCUAModel, FAULTS
from ecpsata.phy.ecp5.serdes import ECP5SATASerDes
from ecpsata.phy.serdes import GEN2
from ecpsata.platforms.ecpix5 import SATA_DUAL, SATA_CHANNEL
from ecpsata.soc.boards import Board
from ecpsata.soc.builder import ECPSATASoC, add_frame_check_args

BOARD = Board("ecpix5_sim", 4, "the ECPIX-5's own SoC, simulated: the DCUA model, the virtual drive, "
              "Etherbone in a network namespace", simulated=True)
SIM_MODULES = ["tcpuart", "vdrive"]


class _SimCRG(LiteXModule):
    """The board's clock domains from the simulator's clocks (the PLL is not simulated)."""
    def __init__(self, platform):
        self.cd_sys      = ClockDomain()
        self.cd_eth_core = ClockDomain()
        self.cd_dcu      = ClockDomain(reset_less=True)   # the DCU reference clock
        self.cd_dcu_n    = ClockDomain(reset_less=True)   # its falling edge (clock gating)
        # Power-on reset: nothing in the simulator drives sys_rst, and without a reset pulse the
        # CPU started from whatever state its registers held: it ran no firmware (no banner on the
        # console) and kept the shared bus busy, which slowed every bridge access about threefold,
        # until a CPU reset through ctrl_reset. The board's CRG holds sys in reset until its PLL
        # locks (ecp5_crg.py).
        self.cd_por = ClockDomain(reset_less=True)
        por_count = Signal(4, reset=15)
        self.comb += self.cd_por.clk.eq(platform.request("sys_clk"))
        self.sync.por += If(por_count != 0, por_count.eq(por_count - 1))
        rst = Signal()
        self.comb += rst.eq((por_count != 0) | platform.request("sys_rst"))
        ref = platform.request("sata_ref_clk")
        self.comb += [
            self.cd_sys.clk.eq(self.cd_por.clk),
            self.cd_sys.rst.eq(rst),
            self.cd_eth_core.clk.eq(platform.request("eth_core_clk")),
            self.cd_eth_core.rst.eq(rst),
            self.cd_dcu.clk.eq(ref),
            self.cd_dcu_n.clk.eq(~ref),
        ]
        self.refclk = ref


class DCUALine(LiteXModule):
    """The DCUA model in place of the wrapper's Instance, its line side on the vdrive pads."""
    def __init__(self, serdes, pads, dcu_clk):
        # The simulation has no DCUA: the model drives the Instance's outputs instead.
        serdes._fragment.specials.remove(serdes.dcu)
        self.model = model = DCUAModel(serdes.dcu, refclk_freq=150e6, domain="dcu")

        # The model's fault switches, set at run time by tests (CSR ``dcua_line_faults``).
        self.faults = CSRStorage(fields=[CSRField(name, size=1, offset=bit)
                                         for name, bit in FAULTS.items()],
                                 description="DCUA model faults (simulation only).")
        self.specials += MultiReg(self.faults.storage, model.faults, "dcu")
        # The RX pair's amplitude in loss-of-signal threshold steps (CSR ``dcua_line_level``):
        # below the DCU's threshold (los_lvl) the drive's OOB bursts go unseen.
        self.level = CSRStorage(3, reset=7, description="DCUA model: the RX pair's amplitude in "
                                "loss-of-signal threshold steps (simulation only).")
        self.specials += MultiReg(self.level.storage, model.rx_level, "dcu")

        # Word clocks.
        tx_en = Signal()
        rx_en = Signal()
        self.cd_drive_n = ClockDomain(reset_less=True)
        self.comb += self.cd_drive_n.clk.eq(~pads.rx_clk)
        self.sync.dcu_n += tx_en.eq(model.tx_ce)
        self.sync.drive_n += rx_en.eq(model.rx_running)
        self.comb += [
            serdes.tx_clk.eq(dcu_clk & tx_en),
            serdes.rx_clk.eq(pads.rx_clk & rx_en),
        ]

        # Line: the drive takes our words on our TX word clock and sends its own on rx_clk.
        self.comb += [
            pads.clk.eq(serdes.tx_clk),
            pads.tx.eq(Mux(model.tx_idle, 0, model.tx_word)),
            pads.gen.eq(model.tx_gen == GEN2),
            model.rx_word.eq(pads.rx),
            model.rx_idle.eq(pads.rx_los),
            # The drive's line rate is not on a pad: the CDR takes any active line for its own
            # rate (a drive at another rate sends words the PHY cannot decode, as on a board).
            model.rx_gen.eq(model.tx_gen),
        ]


class SimECPIX5SoC(ECPSATASoC):
    def __init__(self, firmware_init=None, frame_check=True):
        platform = simplatform.Platform()
        sys_clk_freq = int(simplatform.SYS_CLK_FREQ)
        self.crg = _SimCRG(platform)
        # The board's UART layout: a crossover console behind litex_server's bridge on the board
        # UART (LiteX's UARTPHY does not take the simulator's stream pads: the model PHY here).
        ECPSATASoC.__init__(self, platform, BOARD, sys_clk_freq, uart="crossover",
                            features={"simulated", "uartbone", "etherbone"},
                            firmware_init=firmware_init)
        self.uartbone_phy = RS232PHYModel(platform.request("serial"))
        self.uartbone = UARTBone(phy=self.uartbone_phy, clk_freq=sys_clk_freq,
                                 address_width=self.bus.address_width)
        self.bus.add_master(name="uartbone", master=self.uartbone.wishbone)
        # Etherbone as on the board (MAC/IP/UDP in their own 50 MHz domain), on LiteEth's PHY model.
        self.ethphy = LiteEthPHYModel(platform.request("eth"))
        self.add_etherbone_bridge(self.ethphy, simplatform.BOARD_IP, core_cd="eth_core",
                           core_clk_freq=simplatform.ETH_CORE_CLK_FREQ)
        pins = SimpleNamespace(tx_p=Signal(), tx_n=Signal(), rx_p=Signal(), rx_n=Signal())
        # With the Gen1 method at run time, as the boards' default builds.
        self.sata_serdes = ECP5SATASerDes(pins, self.crg.refclk, sys_clk_freq, refclk_freq=150e6,
                                          dual=SATA_DUAL, channel=SATA_CHANNEL, refclk_mul=20,
                                          gen1_method=True)
        self.dcua_line = DCUALine(self.sata_serdes, platform.request("sata_phy"),
                                             ClockSignal("dcu"))
        self.add_serdes_bringup(self.sata_serdes)
        self.add_ecpsata(self.sata_serdes, frame_check=frame_check)
        self.add_identity()


def add_args(parser):
    add_frame_check_args(parser)


def make_soc(firmware_init, args):
    return SimECPIX5SoC(firmware_init, frame_check=args.frame_check)


def build_kwargs(args):
    # LiteX compiles the simulator modules the configuration names: the ethernet one included.
    return dict(sim_config=simplatform.sim_config(etherbone=True), opt_level="O2",
                interactive=False)
