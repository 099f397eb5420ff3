"""LiteSATA's link layer, assembled for our PHY.

Same parts as ``litesata.core.link.LiteSATALink`` (link TX and RX state machines, CRC, scrambler,
CONT and ALIGN removal, the 256-dword RX buffer with HOLD at half full), with two differences:

- no ALIGN inserter and no ALIGN remover: our PHY sends the ALIGN pairs itself and drops the
  received ones before its clock crossing (gateware/phy/datapath.py), which keeps an ALIGN
  comparison off sys' receive path (the path from the RX FIFO through the link state machines
  to the CRC checker is sys' longest on ECP5);
- no registered stage between the PHY and the link state machines. Our PHY registers its side
  (the TX buffer in gateware/phy/phy.py, the RX FIFO), and every register on that path adds to
  the turnaround of each primitive handshake (R_OK, SYNC, R_RDY: three per Data FIS), which
  bounds sequential throughput.
"""

from migen import *

from litex.gen import LiteXModule
from litex.soc.interconnect import stream
from litex.soc.interconnect.stream import Pipeline

from litesata.common import link_description
from litesata.core.link import LiteSATALinkTX, LiteSATALinkRX, LiteSATACONTRemover
from litesata.common import phy_description

RX_BUFFER_DWORDS = 256


class ECPSATALink(LiteXModule):
    def __init__(self, phy):
        # TX: link state machine straight to the PHY's (registered) sink.
        self.tx = LiteSATALinkTX()
        self.tx_pipeline = Pipeline(self.tx, phy)

        # RX: CONT removal, link state machine, buffer (HOLD when half full).
        self.rx_cont   = LiteSATACONTRemover(phy_description(32))
        self.rx        = LiteSATALinkRX()
        self.rx_buffer = stream.SyncFIFO(link_description(32), RX_BUFFER_DWORDS)
        self.rx_pipeline = Pipeline(phy, self.rx_cont, self.rx, self.rx_buffer)

        self.comb += [
            self.rx.to_tx.connect(self.tx.from_rx),
            self.rx.hold.eq(self.rx_buffer.level > RX_BUFFER_DWORDS // 2),
        ]
        self.sink, self.source = self.tx_pipeline.sink, self.rx_pipeline.source
