# SPDX-License-Identifier: BSD-2-Clause
"""A register stage between a Wishbone master and the SoC bus.

The master's request (address, data, byte selects, direction) is copied into registers and
presented to the bus from the next cycle; the bus's answer (data, ack or err) goes back to the
master as it comes. One cycle more per access, and every path from the master's logic into the
bus ends at these registers instead of running through the bus arbiter and the address decoder
into the slaves (on ECP5, Etherbone's record FIFO, a block RAM whose output is slow, ran that way
into the write enables of the main RAM's sixteen block RAMs).

For a master that holds `cyc` and `stb` until it gets `ack` or `err` and presents its next
request (or none) from the cycle after, as Wishbone classic asks (LiteEth's Etherbone master
does). A slave that never answers is the bus timeout's business: its `err` comes back like a
slave's.
"""

from migen import *

from litex.gen import LiteXModule
from litex.soc.interconnect import wishbone


class WishboneStage(LiteXModule):
    def __init__(self, master):
        self.master = master
        self.bus = bus = wishbone.Interface.like(master)

        # # #

        busy = Signal()
        self.comb += [
            bus.cyc.eq(busy),
            bus.stb.eq(busy),
            master.ack.eq(busy & bus.ack),
            master.err.eq(busy & bus.err),
            master.dat_r.eq(bus.dat_r),
        ]
        self.sync += [
            If(~busy,
                If(master.cyc & master.stb,
                    busy.eq(1),
                    bus.adr.eq(master.adr),
                    bus.dat_w.eq(master.dat_w),
                    bus.sel.eq(master.sel),
                    bus.we.eq(master.we),
                )
            ).Elif(bus.ack | bus.err,
                busy.eq(0),
            )
        ]
