# SPDX-License-Identifier: BSD-2-Clause
"""A register stage between a Wishbone master and the SoC bus.

The master's request (address, data, byte selects, direction) is copied into registers and
presented to the bus from the next cycle; the bus's answer (data, ack or err) comes back to the
master one cycle after the bus gives it. Two cycles more per access, and every path from the
master's logic ends at these registers instead of running through the bus arbiter and the
address decoder into the slaves (on ECP5, Etherbone's record FIFO, a block RAM whose output is
slow, ran that way into the write enables of the main RAM's sixteen block RAMs).

For a master that holds `cyc` and `stb` until it gets `ack` or `err`, as Wishbone classic asks
(LiteEth's Etherbone master does). A slave that never answers is the bus timeout's business: its
`err` comes back like a slave's.
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
        answered = Signal()     # the master sees ack/err this cycle: its request is the old one
        self.comb += [
            bus.cyc.eq(busy),
            bus.stb.eq(busy),
            answered.eq(master.ack | master.err),
        ]
        self.sync += [
            master.ack.eq(0),
            master.err.eq(0),
            If(~busy,
                If(master.cyc & master.stb & ~answered,
                    busy.eq(1),
                    bus.adr.eq(master.adr),
                    bus.dat_w.eq(master.dat_w),
                    bus.sel.eq(master.sel),
                    bus.we.eq(master.we),
                )
            ).Elif(bus.ack | bus.err,
                busy.eq(0),
                master.ack.eq(bus.ack),
                master.err.eq(bus.err),
                master.dat_r.eq(bus.dat_r),
            )
        ]
