# SPDX-License-Identifier: BSD-2-Clause
"""Sector buffer: one READ/WRITE DMA EXT of up to `sectors` sectors between a user port of our
crossbar and a memory on the SoC bus, for the console and the host tools (small transfers; bulk
data moves through the benchmark engine); also any non-data command (FLUSH CACHE EXT, SET
FEATURES: `control.nodata` with `command`, `features` and `count` as its fields), and any command
that moves blocks of 512 bytes (`control.custom`: `command` and `features` with `lba` and `count`
as its fields, by DMA data-in, DMA data-out with `control.write`, or PIO data-in with
`control.pio`: SMART READ DATA, READ LOG EXT, READ LOG DMA EXT, DATA SET MANAGEMENT). The
drive's ending Register D2H (status, error, LBA, count: SMART RETURN STATUS, SANITIZE STATUS EXT
answer there) is in the error block's task-file registers (ecpsata/frontend/errors.py).

The CPU or the host fills/reads the buffer through the bus, writes `lba` and `count`, then
`control` (op + start). `status` says done, failed (the drive's status, a CRC error or an
incomplete transfer; the core's `cmd_reason` says which) or timeout (no completion within
`timeout` sys cycles). On a timeout `core_reset` pulses: the SoC resets the core with it, which
also ends a frame we were sending with SYNC (an escape) instead of leaving the drive waiting for
the rest. Only data beats enter the buffer: the command's closing response (`end`) is what
completes it. Byte order: a dword's first byte on the wire is its least significant byte, at the
lowest address of the buffer.
"""

from migen import *

from litex.gen import LiteXModule
from litex.soc.interconnect import stream, wishbone
from litex.soc.interconnect.csr import CSRStorage, CSRStatus, CSRField

from ecpsata.pipe import ReadyPipe

SECTOR_BYTES = 512


class ECPSATASectorBuffer(LiteXModule):
    autocsr_exclude = {"mem"}

    def __init__(self, port, sectors=16, sys_clk_freq=100e6, timeout_s=2.0):
        words = sectors * SECTOR_BYTES // 4
        self.mem = Memory(32, words)
        self.bus = wishbone.Interface(data_width=32, address_width=32, addressing="word")
        self.sram = wishbone.SRAM(self.mem, bus=self.bus)
        self.sectors = sectors

        self.lba     = CSRStorage(48, description="First sector.")
        self.count   = CSRStorage(16, description=f"Sectors, 1..{sectors} (non-data: the count field).")
        self.command  = CSRStorage(8, description="Non-data command: the ATA command code.")
        self.features = CSRStorage(16, description="Non-data command: the features field.")
        self.timeout = CSRStorage(32, reset=int(timeout_s * sys_clk_freq),
                                  description="sys cycles before a command is abandoned.")
        self.control = CSRStorage(fields=[
            CSRField("start", size=1, pulse=True, description="Write 1 to issue the command."),
            CSRField("write", size=1, description="0: read the drive into the buffer, 1: write the buffer."),
            CSRField("nodata", size=1, description="1: the non-data command ``command`` instead."),
            CSRField("custom", size=1, description="1: read or write with ``command`` and "
                     "``features`` as the command's code and features (count: 512-byte blocks)."),
            CSRField("pio", size=1, description="With custom: the read is PIO data-in."),
        ])
        self.status = CSRStatus(fields=[
            CSRField("done",    size=1, description="Idle; the last command has ended."),
            CSRField("failed",  size=1, description="The last command failed (drive error, CRC, short)."),
            CSRField("timeout", size=1, description="The last command did not end in time."),
            CSRField("refused", size=1, description="count was 0 or larger than the buffer: nothing sent."),
        ])

        self.core_reset = Signal()    # out: pulses after a timeout (OR it into the core's reset)

        # # #

        # One port for the state machine (the bus has the other): two ports map to one block RAM.
        port_m = self.mem.get_port(write_capable=True)
        self.specials += port_m

        words_total = Signal(max=words + 1)
        index   = Signal(max=words + 1)
        timer   = Signal(32)
        write   = Signal()
        custom  = Signal()
        pio     = Signal()
        failed  = Signal()
        tmo     = Signal()
        refused = Signal()
        self.comb += [
            self.status.fields.failed.eq(failed),
            self.status.fields.timeout.eq(tmo),
            self.status.fields.refused.eq(refused),
            words_total.eq(self.count.storage * (SECTOR_BYTES // 4)),
        ]

        # The state machine drives the port through a ready register (ecpsata/pipe.py): the
        # `ready` it sees is a flip-flop, so the command layer's `ready` (decided by the link and
        # the queue share) ends at that register, not at the memory's address below. The register
        # may still hold the last beat when the state machine waits for the answer: an answer that
        # comes before the command layer took it marks the command failed (short). Emptied and
        # silent in IDLE: a beat left over from a command that ended early or timed out never
        # reaches the next one.
        # The responses come through a valid register: the crossbar hands a response on in the
        # cycle the command layer decides it (from the queued layer's count of outstanding tags
        # through the transport's verdict), and the memory's write enable, placed at a block RAM
        # far from the core, must not be the end of that path.
        self.pipe = pipe = ResetInserter()(ReadyPipe(port.sink.description))
        self.response = response = stream.PipeValid(port.source.description)
        self.comb += port.source.connect(response.sink)
        sink, source = pipe.sink, response.source
        self.fsm = fsm = FSM(reset_state="IDLE")
        self.comb += [
            pipe.source.connect(port.sink, omit={"valid"}),
            port.sink.valid.eq(pipe.source.valid & ~fsm.ongoing("IDLE")),
            pipe.reset.eq(fsm.ongoing("IDLE")),
        ]
        fsm.act("IDLE",
            self.status.fields.done.eq(1),
            source.ready.eq(1),  # drop anything stray
            If(self.control.fields.start,
                NextValue(failed, 0), NextValue(tmo, 0), NextValue(refused, 0),
                NextValue(index, 0), NextValue(timer, 0),
                NextValue(write, self.control.fields.write),
                NextValue(custom, self.control.fields.custom),
                NextValue(pio, self.control.fields.custom & self.control.fields.pio &
                               ~self.control.fields.write),
                If(self.control.fields.nodata,
                    NextState("NODATA")
                ).Elif((self.count.storage == 0) | (self.count.storage > sectors),
                    NextValue(refused, 1)
                ).Elif(self.control.fields.write,
                    NextState("WRITE")
                ).Else(
                    NextState("READ-CMD")
                )
            )
        )
        self.sync += If(~fsm.ongoing("IDLE"), timer.eq(timer + 1))
        expired = (self.timeout.storage != 0) & (timer >= self.timeout.storage)
        reset_count = Signal(5)
        self.comb += self.core_reset.eq(reset_count != 0)
        self.sync += If(expired & ~fsm.ongoing("IDLE"),
            reset_count.eq(16)
        ).Elif(reset_count != 0,
            reset_count.eq(reset_count - 1)
        )

        # Non-data command: one beat, then the closing response.
        fsm.act("NODATA",
            sink.valid.eq(1), sink.last.eq(1), sink.nodata.eq(1),
            sink.command.eq(self.command.storage), sink.features.eq(self.features.storage),
            sink.sector.eq(self.lba.storage), sink.count.eq(self.count.storage),
            If(sink.ready, NextState("WRITE-ACK")),
            If(expired, NextValue(tmo, 1), NextState("IDLE"))
        )

        # Read: the command, then data beats into memory until the closing response.
        custom_fields = [sink.custom.eq(custom), sink.command.eq(self.command.storage),
                         sink.features.eq(self.features.storage)]
        fsm.act("READ-CMD",
            sink.valid.eq(1), sink.last.eq(1), sink.read.eq(~pio), sink.identify.eq(pio),
            sink.sector.eq(self.lba.storage), sink.count.eq(self.count.storage),
            *custom_fields,
            If(sink.ready, NextState("READ-DATA")),
            If(expired, NextValue(tmo, 1), NextState("IDLE"))
        )
        # PIO data-in ends on its last data dword (``end`` set on it), or on a beat of its own
        # when it failed: the end beat is data when it completes the count.
        pio_end_data = Signal()
        self.comb += pio_end_data.eq(pio & (index == words_total - 1))
        fsm.act("READ-DATA",
            source.ready.eq(1),
            port_m.dat_w.eq(source.data),
            If(source.valid,
                If(source.end,
                    If(pio_end_data, port_m.we.eq(1)),
                    NextValue(failed, source.failed | ((index != words_total) & ~pio_end_data)),
                    NextState("IDLE")
                ).Else(
                    If(source.failed, NextValue(failed, 1)),
                    If(index < words_total,
                        port_m.we.eq(1),
                        NextValue(index, index + 1)
                    )
                )
            ),
            If(expired, NextValue(tmo, 1), NextState("IDLE"))
        )

        # Write: command and data go together on the sink; the memory is read one word ahead.
        # Reads: the address runs one word ahead of the handshake (synchronous read port).
        self.comb += port_m.adr.eq(
            Mux(fsm.ongoing("READ-DATA"), index,
            Mux(fsm.ongoing("WRITE"), Mux(sink.valid & sink.ready, index + 1, index), 0)))
        fsm.act("WRITE",
            sink.valid.eq(1), sink.write.eq(1),
            sink.sector.eq(self.lba.storage), sink.count.eq(self.count.storage),
            *custom_fields,
            sink.data.eq(port_m.dat_r),
            sink.last.eq(index == words_total - 1),
            If(sink.ready,
                NextValue(index, index + 1),
                If(sink.last, NextState("WRITE-ACK"))
            ),
            If(expired, NextValue(tmo, 1), NextState("IDLE"))
        )
        fsm.act("WRITE-ACK",
            source.ready.eq(1),
            If(source.valid & source.end,
                NextValue(failed, source.failed | port.sink.valid),
                NextState("IDLE")
            ),
            If(expired, NextValue(tmo, 1), NextState("IDLE"))
        )
