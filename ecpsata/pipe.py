# SPDX-License-Identifier: BSD-2-Clause
"""Stream helpers for timing: a ready register, and a block RAM FIFO with a LUT RAM FIFO's cycles.

`ReadyPipe`: the sink's `ready` does not depend on the source's. It behaves as LiteX's
`stream.PipeReady` (zero added latency while the source is ready, one beat held while it is not),
with one difference for timing: the holding register loads whenever it is
empty, whatever the source's `ready` says. Its clock enable is then a register's output, not the
end of the long path that decides `ready` downstream (on ECP5 that path ran from the PHY's
receive FIFO through the link, the transport and the command layers into the 32 enables of the
holding register). The copy made while the source is ready is never used: the beat went through
in that cycle and the register stays empty.
"""

from migen import *

from litex.gen import LiteXModule
from litex.soc.interconnect import stream


class ReadyPipe(LiteXModule):
    def __init__(self, layout):
        self.sink   = sink   = stream.Endpoint(layout)
        self.source = source = stream.Endpoint(layout)

        # # #

        full   = Signal()
        held   = stream.Endpoint(layout)
        self.sync += [
            If(sink.valid & ~source.ready,
                full.eq(1)
            ).Elif(source.ready,
                full.eq(0)
            ),
            If(~full, held.eq(sink)),
        ]
        self.comb += [
            sink.ready.eq(~full),
            If(full,
                held.connect(source, omit={"ready"})
            ).Else(
                sink.connect(source, omit={"ready"})
            )
        ]



class LookaheadFIFO(LiteXModule):
    """A first-word-fall-through stream FIFO in block RAM with the cycles of LiteX's
    `stream.SyncFIFO` (whose memory is LUT RAM read asynchronously), `level` included.

    The memory is read at every clock edge at the address the read pointer is about to take, so
    the word at the head of the FIFO is a block RAM's output, never a LUT RAM's read multiplexer
    (on ECP5 a 256-word FIFO of 35 bits in LUT RAM takes more than a thousand LUTs). A word
    written in the same cycle to that address is taken from a bypass register: the memory's own
    answer to a read and a write of one address in one cycle is never used. ``depth``: a power of
    two."""
    def __init__(self, layout, depth):
        assert depth >= 2 and depth & (depth - 1) == 0, "LookaheadFIFO: depth must be a power of two"
        self.sink   = sink   = stream.Endpoint(layout)
        self.source = source = stream.Endpoint(layout)
        self.level  = level  = Signal(max=depth + 1)

        # # #

        description = sink.description
        fifo_layout = [("payload", description.payload_layout),
                       ("param",   description.param_layout),
                       ("first", 1), ("last", 1)]
        fifo_in, fifo_out = Record(fifo_layout), Record(fifo_layout)
        width = layout_len(fifo_layout)
        self.comb += [
            fifo_in.payload.eq(sink.payload), fifo_in.param.eq(sink.param),
            fifo_in.first.eq(sink.first), fifo_in.last.eq(sink.last),
            source.payload.eq(fifo_out.payload), source.param.eq(fifo_out.param),
            source.first.eq(fifo_out.first), source.last.eq(fifo_out.last),
        ]

        do_write, do_read = Signal(), Signal()
        wr_ptr, rd_ptr, next_rd = Signal(max=depth), Signal(max=depth), Signal(max=depth)
        self.comb += [
            sink.ready.eq(level != depth),
            source.valid.eq(level != 0),
            do_write.eq(sink.valid & sink.ready),
            do_read.eq(source.valid & source.ready),
            next_rd.eq(rd_ptr + do_read),          # wraps: depth is a power of two
        ]
        self.sync += [
            If(do_write, wr_ptr.eq(wr_ptr + 1)),
            rd_ptr.eq(next_rd),
            If(do_write & ~do_read, level.eq(level + 1)
            ).Elif(do_read & ~do_write, level.eq(level - 1)),
        ]

        # Not an attribute: LiteX's AutoCSR maps a module's named memories onto the CSR bus,
        # a third port, which no block RAM has.
        mem = Memory(width, depth)
        wrport = mem.get_port(write_capable=True)
        rdport = mem.get_port(async_read=False, mode=READ_FIRST)
        self.specials += mem, wrport, rdport
        bypass, use_bypass = Signal(width), Signal()
        self.comb += [
            wrport.adr.eq(wr_ptr), wrport.dat_w.eq(fifo_in.raw_bits()), wrport.we.eq(do_write),
            rdport.adr.eq(next_rd),
        ]
        self.sync += [
            bypass.eq(fifo_in.raw_bits()),
            use_bypass.eq(do_write & (wr_ptr == next_rd)),
        ]
        self.comb += fifo_out.raw_bits().eq(Mux(use_bypass, bypass, rdport.dat_r))
