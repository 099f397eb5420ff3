# SPDX-License-Identifier: BSD-2-Clause
"""The SerDes seam: the only vendor-specific boundary of the SATA PHY.

Everything above this interface (OOB generation and detection, 8b10b, comma alignment, speed
negotiation, LiteSATA) is the same code on a board and in simulation. Two implementations exist:
the ECP5 DCU wrapper (ecpsata/phy/ecp5/serdes.py) and the sim SerDes (ecpsata/phy/sim_serdes.py).

Conventions
- A word is 20 bits: two 10-bit line symbols, the first symbol in bits [0:10]. Within a symbol bit 0
  is transmitted first (so K28.5 with negative running disparity is 0x17C, positive 0x283).
- An electrically idle line has no transitions; the TX side makes OOB gaps by sending a constant
  word (all zeros) with electrical idle released, bursts by alternating 0x0F0F0 / 0xF0F0F.
- Clock domains provided by the implementation: ``sata_tx`` (TX word clock) and ``sata_rx``
  (recovered RX word clock). Word clock = line rate / 20: 150 MHz at Gen2, 75 MHz at Gen1.
"""

from migen import *

WORD_BITS   = 20
SYMBOL_BITS = 10

GEN1 = 0
GEN2 = 1


class SerDesInterface:
    """Signals of the SerDes seam.

    sata_tx domain: ``tx_data`` (raw word sent next), ``tx_idle`` (electrical idle request; the
    default OOB method keeps it 0).
    sata_rx domain: ``rx_data`` (raw received word, not aligned to symbol boundaries).
    An implementation registers both words (``rx_data`` comes from a flip-flop, ``tx_data`` and
    ``tx_idle`` go into one before the line): the PHY's datapaths add no register of their own.
    Asynchronous levels (synchronise before use): ``rx_los`` (1 = no signal on the line, from the
    receiver's squelch), ``tx_ready``, ``rx_ready`` (word clocks running and stable; separate because
    the receive CDR loses lock while the device line is idle).
    Controls (held static by the user, sampled asynchronously by the implementation): ``gen`` (line
    rate, GEN1 or GEN2; changing it restarts the clocks and drops the ready flags), ``tx_polarity``,
    ``rx_polarity`` (1 = invert), ``rx_cdr_hold`` (freeze the CDR while the line carries OOB).
    """
    def __init__(self):
        self.tx_data     = Signal(WORD_BITS)
        self.tx_idle     = Signal()
        self.rx_data     = Signal(WORD_BITS)
        self.rx_los      = Signal(reset=1)
        self.tx_ready    = Signal()
        self.rx_ready    = Signal()
        self.gen         = Signal(reset=GEN2)
        self.tx_polarity = Signal()
        self.rx_polarity = Signal()
        self.rx_cdr_hold = Signal()
