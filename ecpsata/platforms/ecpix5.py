# SPDX-License-Identifier: BSD-2-Clause
"""ECPIX-5 additions to the litex-boards platform.

The litex-boards `sata` resource also carries the DCU reference-clock pads (AF12/AF13); with the
fabric-PLL reference proven on hardware they must stay unrequested, so `sata_serdes` holds only the
TX/RX pairs of the SATA connector (DCU1 channel 0).
"""

from litex.build.generic_platform import Pins, Subsignal

SATA_DUAL, SATA_CHANNEL = 1, 0

extensions = [
    ("sata_serdes", 0,
        Subsignal("tx_p", Pins("AD16")),
        Subsignal("tx_n", Pins("AD17")),
        Subsignal("rx_p", Pins("AF15")),
        Subsignal("rx_n", Pins("AF16")),
    ),
]
