"""Transport layer additions for Native Command Queuing: the DMA Setup FIS (SATA 3.x 10.5.9, 0x41,
7 dwords) and the Set Device Bits FIS (10.5.7, 0xA1, 2 dwords), device to host.

LiteSATA's transport RX knows neither; it drops their dwords frame by frame (gateware/sata_cmd.py
keeps it on frame boundaries). `ECPSATAQueueFISRX` decodes them from the same dwords as they go by,
so the transport RX and everything it feeds stay as they are.
"""

from migen import *

from litex.gen import LiteXModule

FIS_DMA_SETUP       = 0x41
FIS_SET_DEVICE_BITS = 0xA1
DMA_SETUP_DWORDS    = 7
SDB_DWORDS          = 2


class ECPSATAQueueFISRX(LiteXModule):
    """Decodes DMA Setup and Set Device Bits FISes from the link's received frames.

    Watches the dwords the link layer hands to the transport RX (which drops these two types) and
    presents each well-formed one as a one-cycle pulse with its fields. A frame whose CRC failed
    (the link answered R_ERR, the drive repeats it) or whose length is wrong is ignored.
    """
    def __init__(self, link):
        self.setup        = Signal()      # pulse: a DMA Setup FIS
        self.setup_d      = Signal()      # direction: 1 = device to host (a read)
        self.setup_a      = Signal()      # auto-activate: the host may send the first Data FIS
        self.setup_tag    = Signal(5)     # DMA Buffer Identifier Low 4:0 (the NCQ tag)
        self.setup_count  = Signal(32)    # DMA Transfer Count, bytes
        self.sdb          = Signal()      # pulse: a Set Device Bits FIS
        self.sdb_i        = Signal()
        self.sdb_status   = Signal(8)     # status bits 6:4 and 2:0
        self.sdb_error    = Signal(8)
        self.sdb_sactive  = Signal(32)    # tags completed

        # # #

        src = link.source
        taken = src.valid & src.ready
        first = Signal(reset=1)           # the next dword starts a frame
        kind  = Signal(2)                 # 0: other FIS, 1: DMA Setup, 2: SDB
        n     = Signal(4)                 # dwords of the frame so far (saturates at 8)
        dw0, dw1, dw5 = Signal(32), Signal(32), Signal(32)

        kind_now = Signal(2)
        n_now    = Signal(4)
        self.comb += [
            If(first,
                n_now.eq(1),
                Case(src.data[:8], {
                    FIS_DMA_SETUP:       kind_now.eq(1),
                    FIS_SET_DEVICE_BITS: kind_now.eq(2),
                    "default":           kind_now.eq(0),
                })
            ).Else(
                kind_now.eq(kind),
                n_now.eq(Mux(n == 8, 8, n + 1))
            )
        ]
        good = taken & src.last & ~src.error
        self.sync += [
            self.setup.eq(good & (kind_now == 1) & (n_now == DMA_SETUP_DWORDS)),
            self.sdb.eq(good & (kind_now == 2) & (n_now == SDB_DWORDS)),
            If(taken,
                first.eq(src.last),
                kind.eq(kind_now),
                n.eq(n_now),
                If(first, dw0.eq(src.data)),
                If(n_now == 2, dw1.eq(src.data)),
                If(n_now == 6, dw5.eq(src.data)),
            )
        ]
        self.comb += [
            self.setup_d.eq(dw0[13]),
            self.setup_a.eq(dw0[15]),
            self.setup_tag.eq(dw1[:5]),
            self.setup_count.eq(dw5),
            self.sdb_i.eq(dw0[14]),
            self.sdb_status.eq(dw0[16:24] & 0x77),
            self.sdb_error.eq(dw0[24:32]),
            self.sdb_sactive.eq(dw1),
        ]
