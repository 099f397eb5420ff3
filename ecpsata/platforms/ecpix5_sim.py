# SPDX-License-Identifier: BSD-2-Clause
"""The simulated ECPIX-5: pads of the Verilator top level of the board's SoC (ecpsata/soc/targets/ecpix5_sim.py),
each served by a LiteX sim module.

The board's clocks, scaled as in ecpsata/platforms/sim.py (the gateware believes the board's frequencies):
sys 75 MHz, the DCU reference 150 MHz (the Gen2 word rate) and the Etherbone core's 50 MHz. The
board UART carries litex_server's bridge (the console is a crossover UART behind it, as on the
board); the virtual drive faces the DCUA model's line side.
"""

from litex.build.generic_platform import Pins, Subsignal
from litex.build.sim import SimPlatform
from litex.build.sim.config import SimConfig

from ecpsata.platforms.sim import (SIM_SATA_PS, SIM_SYS_PS, SYS_CLK_FREQ, ClockPlacement,
                                   _stream_pads, sata_phy_pads, write_config)

ETH_CORE_CLK_FREQ = 50e6
SIM_ETH_CORE_PS   = int(SIM_SYS_PS * SYS_CLK_FREQ / ETH_CORE_CLK_FREQ)   # 12,000

_io = [
    ("sys_clk", 0, Pins(1)),
    ("sys_rst", 0, Pins(1)),
    ("sata_ref_clk", 0, Pins(1)),   # the DCU's reference clock (fabric PLL output on the board)
    ("eth_core_clk", 0, Pins(1)),
    _stream_pads("serial"),         # board UART: litex_server's bridge (tcpuart)
    ("eth_clocks", 0,               # LiteEth's PHY model (the RGMII PHY is not simulated)
        Subsignal("tx", Pins(1)),
        Subsignal("rx", Pins(1)),
    ),
    _stream_pads("eth"),            # frames to and from a tap interface (LiteX's ethernet module)
    sata_phy_pads(),                # the virtual drive on the DCUA model's line side
]


class Platform(SimPlatform):
    def __init__(self):
        SimPlatform.__init__(self, "SIM", _io)


# Etherbone: the board's address (ecpsata/soc/targets/ecpix5.py) and the host's end of the tap interface, which
# lives in a network namespace of its own (ecpsata/host/netns.py), never in the machine's.
BOARD_IP = "192.168.1.50"
HOST_IP  = "192.168.1.100"
TAP      = "ecpsata0"


CLOCK_PERIODS_PS = {"sys_clk": SIM_SYS_PS, "sata_ref_clk": SIM_SATA_PS,
                    "eth_core_clk": SIM_ETH_CORE_PS}


def sim_config(bridge_port=None, vdrive=None, etherbone=False, clocks=None):
    """The run-time configuration (sim_config.js). etherbone: serve the board's Ethernet on the tap
    interface TAP with the host's address HOST_IP (create it only inside a namespace of ours).
    clocks: a ClockPlacement (None: the nominal one)."""
    phase = (clocks or ClockPlacement()).phase_deg
    cfg = SimConfig()
    cfg.add_clocker("sys_clk", freq_hz=int(1e12 / SIM_SYS_PS))
    cfg.add_clocker("sata_ref_clk", freq_hz=int(1e12 / SIM_SATA_PS),
                    phase_deg=phase.get("sata_ref_clk", 0))
    cfg.add_clocker("eth_core_clk", freq_hz=int(1e12 / SIM_ETH_CORE_PS),
                    phase_deg=phase.get("eth_core_clk", 0))
    if bridge_port is not None:
        cfg.add_module("tcpuart", "serial", args={"port": int(bridge_port)})
    if vdrive is not None:
        cfg.add_module("vdrive", "sata_phy", clocks=[],
                       args={"config": vdrive, "word_ps": SIM_SATA_PS})
    if etherbone:
        cfg.add_module("ethernet", "eth", args={"interface": TAP, "ip": HOST_IP})
    return cfg


def write_sim_config(path, vdrive=None, **kwargs):
    return write_config(path, sim_config(vdrive=vdrive, **kwargs), vdrive)
