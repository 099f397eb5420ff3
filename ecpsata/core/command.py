# SPDX-License-Identifier: BSD-2-Clause
"""The ATA command layer, host side, for non-queued commands: READ/WRITE DMA (EXT) of up to 65,536
sectors, IDENTIFY DEVICE (PIO data-in in any number of DRQ blocks) and non-data commands (FLUSH
CACHE EXT, SET FEATURES), on our transport layer (ecpsata/core/transport.py).

The user port is LiteSATA's (``command_tx_description`` / ``command_rx_description``, so
LiteSATA's frontends work on it) with fields added to the command:

- ``lba28`` selects READ DMA 0xC8 / WRITE DMA 0xCA: LBA bits 23:0 in LBA low/mid/high, bits
  27:24 in the Device register with the LBA bit, count in the 8-bit Sector Count (256 goes out as
  0); the caller keeps count in 1..256 and LBA + count <= 2^28 (ACS-3 READ DMA, WRITE DMA);
- ``nodata`` sends the non-data command ``command`` with ``features``, ``count`` and ``sector``
  as its fields and waits for the drive's Register D2H (ACS-3 FLUSH CACHE EXT, SET FEATURES);
- ``custom`` with ``read``, ``write`` or ``identify`` sends ``command`` with ``features``,
  ``count`` and ``sector`` as its fields (Device: the LBA bit) and moves ``count`` 512-byte blocks
  by the protocol the flag names: DMA data-in (READ LOG DMA EXT), DMA data-out (DATA SET
  MANAGEMENT) or PIO data-in (SMART READ DATA, READ LOG EXT); the caller keeps the command and the
  protocol in agreement (ACS-3 gives each command's). Without ``custom``, ``identify`` is IDENTIFY
  DEVICE (one block) whatever ``count`` holds.
``count`` means sectors (blocks), 0 = 65,536 (the EXT count field encoding).

Every command ends with one beat that has ``end`` set (reads and non-data commands: a beat of its
own after the data; IDENTIFY: its last data dword, or a beat of its own when it failed), and
``failed`` when it did not complete; ``reason`` (``CMD_REASON``) says why, valid with that beat.
A command ends whatever the drive does:

- the drive's status is taken only once our command FIS was acknowledged (R_OK): a Register D2H
  that arrives before (a late signature, a stray) is not this command's status;
- a FIS that makes no sense in the command's state is refused (the link answers R_ERR, SATA 3.x
  10.4: the drive sends it again); ``FIS_REFUSALS`` refusals in a row end the command (PROTOCOL);
- a Data FIS that failed (bad CRC, or the drive abandoned it with a SYNC escape), more data than
  the command asked for, or a write whose data the drive ended early (DMAT) and then failed,
  fail the command; its status is still awaited (so that it does not end the next command), but
  for ``settle_cycles`` of silence at most;
- a Data FIS of ours that the drive refused (R_ERR) or that ended in its SYNC is the same
  failed transfer: the drive that refused it fails the command (ICRC, ABRT), but one that never
  saw it (a bit error in our SOF) still waits for the data it asked for and has no status to
  send, so after ``settle_cycles`` of silence the command fails (NO_STATUS), not at the command
  timeout;
- a refused frame that the drive neither sends again nor follows with any other frame within
  ``REPEAT_TIME`` fails the command (PROTOCOL): a drive need not repeat a frame, and without this
  bound the command would stay open;
- a Register D2H with BSY set, or DRQ set without ERR, is an interim status: taken, and the
  command goes on (AHCI completes a command only when BSY, DRQ and ERR are clear); a Register
  D2H in a PIO data phase (the block's Data FIS was lost) ends the command (SHORT, or DEVICE with
  ERR);
- the command timeout (``timeout``, sys cycles from the user's command to its end; reset value
  ``COMMAND_TIMEOUT``, 0 stands for the longest, 2^32 - 1 cycles) ends any command the drive
  never ends (TIMEOUT): the core alone bounds every command it starts. After it the drive's
  state and the link's are unknown: reset the core and the link (COMRESET);
- a command FIS the drive refuses ``CMD_RETRIES`` + 1 times fails the command (HANDSHAKE);
- a write whose status comes before all its data went is failed (PROTOCOL) and the rest of the
  packet is drained from the port, as after a device error (LiteSATA's TX took one beat and read
  the remaining data beats as new commands).

LiteSATA's command layer (litesata/core/command.py) waited for a PIO Setup after IDENTIFY and
took the first Data FIS's end as IDENTIFY's end (a drive that sends its 512 bytes in several DRQ
blocks left stray FISes behind), and its waits had no end when a FIS was lost.

# Ref: Serial ATA Revision 3.x 10.3.4 (Register H2D FIS), 11 (device command layer protocols:
#      DMA data-in, DMA data-out, PIO data-in, non-data); ACS-3 (the commands)
"""

from migen import *

from litex.gen import LiteXModule
from litex.soc.interconnect import stream

from litesata.common import (command_rx_description, fis_types,
                             command_tx_description as litesata_command_tx_description)
from ecpsata.core.common import (ATA_READ_DMA, ATA_WRITE_DMA, ATA_READ_DMA_EXT,
                                  ATA_WRITE_DMA_EXT, ATA_IDENTIFY, DATA_FIS_MAX_DWORDS,
                                  FIS_REG_D2H, FIS_DMA_ACTIVATE, FIS_PIO_SETUP, FIS_DATA,
                                  CMD_REASON)

DEVICE_LBA    = 0x40            # Device register: LBA addressing
DEVICE_EXT    = 0xE0            # what LiteSATA sends for EXT commands (obsolete bits 7, 5 set)
CMD_RETRIES   = 3               # command FIS retransmissions after R_ERR
FIS_REFUSALS  = 4               # FISes refused in a row before a command fails
PIO_DWORDS    = 128             # IDENTIFY DEVICE: 512 bytes
SETTLE_TIME   = 2e-3            # longest wait for the status after a failed transfer
# A drive repeats a frame the host refused within microseconds (our R_ERR, SYNC, its X_RDY, our
# R_RDY, its SOF: a few dword times, plus its own decision): no repeat and no other frame within
# this, and the command fails (PROTOCOL). Not counted while we send a Data FIS (the drive cannot
# send then).
REPEAT_TIME   = 100e-6
# The longest a command may take, from the user's command to its end (Linux libata's default
# command timeout is 30 s). The core's own bound: a command the drive never ends fails with
# TIMEOUT, so that a user of the core alone never waits for ever.
COMMAND_TIMEOUT = 30.0
TIMEOUT_MAX   = 2**32 - 1       # the ``timeout`` register's 0 stands for this: never "off"


def command_tx_description(dw):
    """LiteSATA's user-port command layout plus ``lba28``, ``nodata``, ``custom``, ``command``,
    ``features``."""
    d = litesata_command_tx_description(dw)
    return stream.EndpointDescription(d.payload_layout, d.param_layout + [
        ("lba28", 1), ("nodata", 1), ("custom", 1), ("command", 8), ("features", 16)])


def reg_h2d_fields(command, lba, count, lba28):
    """Reference (Python) values of the Register H2D fields the TX sends for a read/write:
    (command, lba field (48), device, count field (16))."""
    if lba28:
        assert 1 <= count <= 256 and lba + count <= 1 << 28
        op = {"read": ATA_READ_DMA, "write": ATA_WRITE_DMA}[command]
        return op, lba & 0xFFFFFF, DEVICE_LBA | ((lba >> 24) & 0xF), count & 0xFF
    assert 1 <= count <= 65536
    op = {"read": ATA_READ_DMA_EXT, "write": ATA_WRITE_DMA_EXT}[command]
    return op, lba, DEVICE_EXT, count & 0xFFFF


class ECPSATACommandTX(LiteXModule):
    """Command TX: the user port's commands and write data to the transport layer's ``sink``
    (``fis_sink``)."""
    def __init__(self, fis_sink):
        self.sink      = sink = stream.Endpoint(command_tx_description(32))
        self.tx_ok     = Signal()    # in: link, the frame we sent was taken (R_OK)
        self.tx_err    = Signal()    # in: link, the frame we sent was refused (R_ERR) or aborted
        self.dmat      = Signal()    # in: link, the drive asks us to end the Data FIS
        self.lba28_all = Signal()    # in: every read/write as a 28-bit command
        self.rx_idle   = Signal(reset=1)  # in: the RX has ended the previous command
        self.rx_end    = Signal()    # in: the RX ends the command (a write drains its data)
        self.activate  = Signal()    # in: pulse, the drive's DMA Activate (RX took it)
        self.start     = Signal()    # out: pulse, a command is taken (kind below, with it)
        self.cmd_sent  = Signal()    # out: pulse, the drive took the command FIS
        self.cmd_failed = Signal()   # out: pulse, the drive refused it every time
        self.cmd_retry = Signal()    # out: pulse, a command FIS goes out again
        self.waiting   = Signal()    # out: a write waits for DMA Activate
        self.data_left = Signal()    # out: a write has data not yet sent
        self.is_write, self.is_read, self.is_pio, self.is_nodata = (Signal() for _ in range(4))
        self.is_custom = Signal()    # out: the command's code and fields come from the user
        self.count     = Signal(16)

        # # #

        dwords = Signal(max=DATA_FIS_MAX_DWORDS)
        lba28  = Signal()
        self.comb += lba28.eq(sink.lba28 | self.lba28_all)

        self.fsm = fsm = FSM(reset_state="HT_HostIdle")
        fsm.act("HT_HostIdle",
            If(sink.valid & self.rx_idle,
                self.start.eq(1),
                NextValue(self.is_write, sink.write & ~sink.nodata),
                NextValue(self.is_read, sink.read & ~sink.nodata),
                NextValue(self.is_pio, sink.identify & ~sink.nodata),
                NextValue(self.is_nodata, sink.nodata),
                NextValue(self.is_custom, sink.nodata | sink.custom),
                NextValue(self.count, sink.count),
                NextState("HT_CmdFIS")
            ).Elif(~sink.valid,
                sink.ready.eq(1)      # as LiteSATA: idle beats are dropped
            )
        )
        # The command FIS stays on the port (not acknowledged) until the drive has taken it: on
        # R_ERR (or a frame the drive aborted) it goes out again, up to CMD_RETRIES times (SATA
        # 3.x 10.4: a non-data FIS the device refused may be retransmitted by the host).
        retries = Signal(max=CMD_RETRIES + 1)
        # The RX ends a command the link never finishes (the core's command timeout): the TX
        # leaves it too, acknowledging the user's command (a write's data is drained).
        give_up = [If(self.is_write, NextState("DRAIN")).Else(sink.ready.eq(1),
                                                              NextState("HT_HostIdle"))]
        fsm.act("HT_CmdFIS",
            fis_sink.valid.eq(1),
            fis_sink.last.eq(1),
            fis_sink.c.eq(1),
            If(fis_sink.ready,
                NextState("HT_CmdTransStatus")
            ).Elif(self.rx_end,
                fis_sink.valid.eq(0),
                *give_up
            )
        )
        fsm.act("HT_CmdTransStatus",
            If(self.tx_ok,
                self.cmd_sent.eq(1),
                NextValue(retries, 0),
                If(self.is_write,
                    NextState("WAIT_DMA_ACTIVATE")
                ).Else(
                    sink.ready.eq(1),
                    NextState("HT_HostIdle")
                )
            ).Elif(self.tx_err,
                self.cmd_retry.eq(1),
                If(retries == CMD_RETRIES,
                    self.cmd_failed.eq(1),
                    NextValue(retries, 0),
                    If(self.is_write,
                        NextState("DRAIN")
                    ).Else(
                        sink.ready.eq(1),
                        NextState("HT_HostIdle")
                    )
                ).Else(
                    NextValue(retries, retries + 1),
                    NextState("HT_CmdFIS")
                )
            ).Elif(self.rx_end,
                NextValue(retries, 0),
                *give_up
            )
        )
        fsm.act("WAIT_DMA_ACTIVATE",
            self.waiting.eq(1),
            NextValue(dwords, 0),
            If(self.activate,
                NextState("HT_DMAOTrans2")
            ).Elif(self.rx_end,
                NextState("DRAIN")
            )
        )
        # A Data FIS ends at 2,048 dwords, at the packet's last beat, or early when the drive
        # asked for it with DMAT (SATA 3.x §9.4.4) or the RX ended the command.
        fis_end = Signal()
        self.comb += fis_end.eq((dwords == DATA_FIS_MAX_DWORDS - 1) | self.dmat | self.rx_end)
        fsm.act("HT_DMAOTrans2",
            fis_sink.valid.eq(sink.valid),
            fis_sink.last.eq(fis_end | sink.last),
            sink.ready.eq(fis_sink.ready),
            If(sink.valid & sink.ready,
                NextValue(dwords, dwords + 1),
                If(sink.last,
                    NextState("HT_HostIdle")
                ).Elif(self.rx_end,
                    NextState("DRAIN")
                ).Elif(fis_end,
                    NextState("WAIT_DMA_ACTIVATE")
                )
            )
        )
        fsm.act("DRAIN",
            sink.ready.eq(1),
            If(sink.valid & sink.last, NextState("HT_HostIdle"))
        )
        self.comb += self.data_left.eq(fsm.ongoing("WAIT_DMA_ACTIVATE") |
                                       fsm.ongoing("HT_DMAOTrans2"))
        self.sending = fsm.ongoing("HT_DMAOTrans2")

        # Register H2D FIS fields (LiteSATA's transport TX encodes them).
        command = Signal(8)
        self.comb += [
            fis_sink.pm_port.eq(0),
            fis_sink.icc.eq(0),
            fis_sink.control.eq(0),
            fis_sink.data.eq(sink.data),
            If(self.is_custom,
                fis_sink.lba.eq(sink.sector),
                fis_sink.device.eq(DEVICE_LBA),
                fis_sink.count.eq(sink.count),
                fis_sink.features.eq(sink.features),
                command.eq(sink.command),
            ).Elif(lba28 & ~self.is_pio,
                fis_sink.lba.eq(sink.sector[:24]),
                fis_sink.device.eq(DEVICE_LBA | sink.sector[24:28]),
                fis_sink.count.eq(sink.count[:8]),
                command.eq(Mux(self.is_write, ATA_WRITE_DMA, ATA_READ_DMA)),
            ).Else(
                fis_sink.lba.eq(sink.sector),
                fis_sink.device.eq(DEVICE_EXT),
                fis_sink.count.eq(sink.count),
                If(self.is_write,
                    command.eq(ATA_WRITE_DMA_EXT)
                ).Elif(self.is_read,
                    command.eq(ATA_READ_DMA_EXT)
                ).Else(
                    command.eq(ATA_IDENTIFY)
                )
            ),
            If(fsm.ongoing("HT_DMAOTrans2"),
                fis_sink.type.eq(fis_types["DATA"]),
            ).Else(
                fis_sink.type.eq(fis_types["REG_H2D"]),
                fis_sink.command.eq(command),
            ),
        ]


class ECPSATACommandRX(LiteXModule):
    """Command RX: the transport's FISes for the command in flight, to the user port's
    ``source`` (see the module docstring). ``fis`` is the transport RX (``ECPSATATransportRX``)
    or a view with the same signals (``source``, ``refuse``, ``accept_data``,
    ``accept_activate``, ``ev_refused``);
    ``tx`` the command TX, whose state it follows."""
    def __init__(self, fis, tx, settle_cycles, repeat_cycles, timeout_cycles):
        self.source    = source = stream.Endpoint(command_rx_description(32))
        self.reason    = Signal(4)    # out: why the command failed, valid with its end beat
        self.idle      = Signal()     # out: no command in hand
        self.ending    = Signal()     # out: the end beat is on offer (a write drains its data)
        self.activate  = Signal()     # out: pulse, the drive's DMA Activate was taken
        self.rx_escape = Signal()     # in: link, the drive abandoned a frame
        self.ev_stray  = Signal()     # out: pulse, a Register D2H taken outside a command
        self.ev_extra  = Signal()     # out: pulse, data beyond what the command asked for
        self.ev_failed = Signal()     # out: pulse, a command ends failed (``reason`` says why)
        self.ev_recovered = Signal()  # out: pulse, a command completed after a refused FIS
        self.ev_interim = Signal()    # out: pulse, a Register D2H with BSY or DRQ was taken
        # in: sys cycles a command may take (0 stands for TIMEOUT_MAX: the bound is never off)
        self.timeout   = Signal(32, reset=min(TIMEOUT_MAX, max(1, timeout_cycles)))

        # # #

        rx = fis.source
        is_type = lambda t: rx.type == t
        err = rx.status[0]
        # A Register D2H with BSY set, or DRQ without ERR, is not the command's end (AHCI 1.3.1
        # completes a command only when BSY, DRQ and ERR are clear; with BSY set the other bits
        # mean nothing): it is taken (it updates the task file) and the command goes on.
        interim = Signal()
        self.comb += interim.eq(rx.status[7] | (rx.status[3] & ~rx.status[0]))

        expected = Signal(24)         # dwords of a read (count x 128, count 0 = 65,536)
        expected_last = Signal(24)    # expected - 1
        got      = Signal(24)
        block    = Signal(14)         # dwords left in the PIO block
        status   = Signal(8)          # the status that ended the command
        reason   = Signal(4)          # the first failure of this command
        escape   = Signal()           # an escape was seen during the command
        dmat     = Signal()           # the drive sent DMAT during the command
        was_refused = Signal()
        data_failed = Signal()        # a Data FIS of ours was refused or aborted
        refusals = Signal(max=FIS_REFUSALS + 1)
        settle   = Signal(max=settle_cycles + 1)
        unanswered = Signal()         # a FIS was refused and nothing was taken since
        repeat   = Signal(max=repeat_cycles + 1)
        elapsed  = Signal(32)         # cycles since the command was taken
        self.limit = limit = Signal(32)   # the timeout in force (0 read as TIMEOUT_MAX)
        expired  = Signal()
        fail_now = Signal()
        fail_why = Signal(4)

        fail   = lambda why: [fail_now.eq(1), fail_why.eq(CMD_REASON[why])]
        take   = lambda *body: [rx.ready.eq(1), *body]
        refuse = [rx.ready.eq(1), fis.refuse.eq(1)]
        # A Register D2H outside a command is not a status: taken (as AHCI takes it into its task
        # file), reported, dropped. Anything else outside a command is refused.
        outside = If(rx.valid,
            If(is_type(FIS_REG_D2H), rx.ready.eq(1), self.ev_stray.eq(1)).Else(*refuse))
        end_on_status = [NextValue(status, rx.status), NextState("END")]
        take_interim = is_type(FIS_REG_D2H) & interim
        interim_taken = [rx.ready.eq(1), self.ev_interim.eq(1)]
        data_error = fail("DATA_CRC") + [If(escape, fail_why.eq(CMD_REASON["ESCAPE"]))]

        self.fsm = fsm = FSM(reset_state="HT_HostIdle")
        fsm.act("HT_HostIdle",
            self.idle.eq(1),
            outside,
            If(tx.start,
                If(tx.sink.identify & ~tx.sink.custom,
                    NextValue(expected, PIO_DWORDS),
                    NextValue(expected_last, PIO_DWORDS - 1),
                ).Else(
                    NextValue(expected, Cat(Constant(0, 7), tx.sink.count, tx.sink.count == 0)),
                    NextValue(expected_last, Cat(Constant(2**7 - 1, 7),
                                                 (tx.sink.count - 1)[:16], 0)),
                ),
                NextValue(got, 0),
                NextValue(status, 0),
                NextState("SENT_WAIT")
            )
        )
        # The command FIS is on its way: what arrives now belongs to the past.
        fsm.act("SENT_WAIT",
            outside,
            If(tx.cmd_failed,
                *fail("HANDSHAKE"),
                NextState("END")
            ).Elif(tx.cmd_sent,
                If(tx.is_write,
                    NextState("WRITE")
                ).Elif(tx.is_read,
                    NextState("HT_DMAITrans")
                ).Elif(tx.is_pio,
                    NextState("PIO_SETUP")
                ).Else(
                    NextState("NODATA")
                )
            )
        )
        # DMA data-in: Data FISes, then the status. Data beyond the count is taken and dropped.
        beyond = Signal()
        beat   = Signal()
        self.comb += beyond.eq(got == expected)
        fsm.act("HT_DMAITrans",
            fis.accept_data.eq(1),
            If(rx.valid,
                If(is_type(FIS_DATA),
                    source.valid.eq(~beyond),
                    source.read.eq(1),
                    rx.ready.eq(source.ready | beyond),
                    beat.eq(source.ready | beyond),
                ).Elif(take_interim,
                    *interim_taken
                ).Elif(is_type(FIS_REG_D2H),
                    *take(*end_on_status),
                    If(~err & ~beyond, *fail("SHORT")),
                ).Else(*refuse)
            ),
            If(beat,
                If(beyond, *fail("EXTRA"), self.ev_extra.eq(1)).Else(NextValue(got, got + 1)),
                If(rx.error, *data_error),
            )
        )
        # DMA data-out: a DMA Activate is taken while the TX waits for one (the transport judges it
        # on this promise, before it is presented).
        self.comb += fis.accept_activate.eq(fsm.ongoing("WRITE") & tx.waiting)
        fsm.act("WRITE",
            If(rx.valid,
                If(is_type(FIS_DMA_ACTIVATE) & tx.waiting,
                    *take(self.activate.eq(1))
                ).Elif(take_interim,
                    *interim_taken
                ).Elif(is_type(FIS_REG_D2H),
                    *take(*end_on_status),
                    If(~err & tx.data_left, *fail("PROTOCOL")),
                    If(err & dmat, *fail("DMAT")),
                ).Else(*refuse)
            )
        )
        # PIO data-in: PIO Setup (D = 1, a byte count) and its Data FIS, block after block, until
        # the command's dwords have come (IDENTIFY: PIO_DWORDS; the last PIO Setup's E_Status is
        # the ending status); a Register D2H instead ends it (an aborted IDENTIFY).
        fsm.act("PIO_SETUP",
            If(rx.valid,
                If(is_type(FIS_PIO_SETUP) & rx.d & (rx.transfer_count[2:] != 0),
                    *take(
                        NextValue(block, rx.transfer_count[2:]),
                        NextValue(status, rx.e_status),     # the block's ending status
                        NextState("HT_PIOITrans1")
                    )
                ).Elif(take_interim,
                    *interim_taken
                ).Elif(is_type(FIS_REG_D2H),
                    *take(*end_on_status),
                    If(~err, *fail("SHORT")),
                ).Else(*refuse)
            )
        )
        pio_full = Signal()
        pio_last = Signal()
        pio_beat = Signal()
        self.comb += [
            pio_full.eq(got == expected),
            pio_last.eq(got == expected_last),
        ]
        fsm.act("HT_PIOITrans1",
            fis.accept_data.eq(1),
            If(rx.valid,
                If(is_type(FIS_DATA),
                    source.valid.eq(~pio_full),
                    source.identify.eq(1),
                    source.last.eq(pio_last),
                    source.end.eq(pio_last),
                    source.failed.eq(pio_last & ((reason != CMD_REASON["OK"]) | rx.error |
                                                 status[0] | (block != 1))),
                    rx.ready.eq(source.ready | pio_full),
                    pio_beat.eq(source.ready | pio_full),
                # The block's Data FIS was lost (a bit error destroyed its SOF: the frame never
                # reached us) and the drive ended the command: its status is the end (it got
                # R_OK from the transport already).
                ).Elif(take_interim,
                    *interim_taken
                ).Elif(is_type(FIS_REG_D2H),
                    *take(*end_on_status),
                    If(~err, *fail("SHORT")),
                ).Else(*refuse)
            ),
            If(pio_beat,
                If(pio_full,
                    *fail("EXTRA"), self.ev_extra.eq(1)
                ).Else(
                    NextValue(got, got + 1),
                    NextValue(block, block - 1),
                ),
                If(rx.error, *data_error),
                If(rx.last,
                    If(pio_last | pio_full,
                        If(pio_last & (block != 1), *fail("SHORT")),
                        NextState("HT_HostIdle")
                    ).Else(
                        If(block != 1, *fail("SHORT")),
                        NextState("PIO_SETUP")
                    )
                ).Elif(block == 1,
                    *fail("EXTRA")
                )
            )
        )
        fsm.act("NODATA",
            If(rx.valid,
                If(take_interim,
                    *interim_taken
                ).Elif(is_type(FIS_REG_D2H),
                    *take(*end_on_status)
                ).Else(*refuse)
            )
        )
        fsm.act("END",
            self.ending.eq(1),
            source.valid.eq(1),
            source.last.eq(1),
            source.end.eq(1),
            source.write.eq(tx.is_write),
            source.read.eq(tx.is_read),
            source.identify.eq(tx.is_pio),
            source.failed.eq((reason != CMD_REASON["OK"]) | status[0]),
            If(source.ready, NextState("HT_HostIdle"))
        )
        self.comb += source.data.eq(rx.data)
        in_command = Signal()
        self.comb += in_command.eq(~fsm.ongoing("HT_HostIdle") & ~fsm.ongoing("SENT_WAIT") &
                                   ~fsm.ongoing("END"))

        # The command's first failure; refusals in a row (FIS_REFUSALS end the command); the
        # silence after a failure (settle_cycles end the command).
        any_taken = Signal()
        self.comb += any_taken.eq(rx.valid & rx.ready & ~fis.refuse)
        self.sync += [
            If(tx.start,
                reason.eq(CMD_REASON["OK"]), escape.eq(0), dmat.eq(0), was_refused.eq(0),
                data_failed.eq(0),
            ).Else(
                If(fail_now & (reason == CMD_REASON["OK"]),
                    reason.eq(fail_why)
                ).Elif(self.rx_escape & in_command & (reason == CMD_REASON["OK"]),
                    reason.eq(CMD_REASON["ESCAPE"])
                ),
                If(self.rx_escape, escape.eq(1)),
                If(tx.dmat, dmat.eq(1)),
                If(fis.ev_refused & in_command, was_refused.eq(1)),
                # In WRITE every frame we send is a Data FIS (the command FIS was taken before).
                If(fsm.ongoing("WRITE") & tx.tx_err, data_failed.eq(1)),
            ),
            If(~in_command,
                refusals.eq(0)
            ).Elif(fis.ev_refused,
                refusals.eq(refusals + 1)
            ).Elif(any_taken,
                refusals.eq(0)
            ),
            If(~in_command | any_taken | ((reason == CMD_REASON["OK"]) & ~data_failed),
                settle.eq(0)
            ).Elif(settle != settle_cycles,
                settle.eq(settle + 1)
            ),
            # A refused frame is sent again at once by a drive that keeps the rules (SATA 3.x
            # 10.4); one that does not would leave the command open: REPEAT_TIME bounds it.
            If(~in_command | any_taken,
                unanswered.eq(0)
            ).Elif(fis.ev_refused,
                unanswered.eq(1)
            ),
            If(~unanswered,
                repeat.eq(0)
            ).Elif(~tx.sending & (repeat != repeat_cycles),
                repeat.eq(repeat + 1)
            ),
            # The command timeout, from the user's command to its end.
            limit.eq(Mux(self.timeout == 0, TIMEOUT_MAX, self.timeout)),
            If(fsm.ongoing("HT_HostIdle") | fsm.ongoing("END"),
                elapsed.eq(0), expired.eq(0)
            ).Else(
                elapsed.eq(elapsed + 1),
                If(elapsed == limit, expired.eq(1))
            ),
        ]
        for state in ("HT_DMAITrans", "WRITE", "PIO_SETUP", "HT_PIOITrans1", "NODATA"):
            fsm.act(state,
                If(refusals == FIS_REFUSALS,
                    *fail("PROTOCOL"), NextState("END")
                ).Elif(repeat == repeat_cycles,
                    *fail("PROTOCOL"), NextState("END")
                ).Elif(settle == settle_cycles,
                    *fail("NO_STATUS"), NextState("END")
                )
            )
        for state in ("SENT_WAIT", "HT_DMAITrans", "WRITE", "PIO_SETUP", "HT_PIOITrans1", "NODATA"):
            fsm.act(state, If(expired, *fail("TIMEOUT"), NextState("END")))

        end_beat = Signal()
        self.comb += [
            end_beat.eq(source.valid & source.ready & source.end),
            # The first failure, including one found in the end beat's own cycle (PIO data-in
            # ends on its last data dword).
            self.reason.eq(Mux(reason != CMD_REASON["OK"], reason,
                           Mux(fail_now, fail_why,
                           Mux(status[0], CMD_REASON["DEVICE"], CMD_REASON["OK"])))),
            self.ev_failed.eq(end_beat & source.failed),
            self.ev_recovered.eq(end_beat & ~source.failed & was_refused),
        ]


class ECPSATACommand(LiteXModule):
    """Command layer: ``ECPSATACommandTX`` and ``ECPSATACommandRX`` on a transport (its ``sink``
    and the transport RX, or views of them when the queued layer shares the transport)."""
    def __init__(self, tx_sink, fis, sys_clk_freq, settle_time=SETTLE_TIME,
                 repeat_time=REPEAT_TIME, command_timeout=COMMAND_TIMEOUT):
        self.tx = tx = ECPSATACommandTX(tx_sink)
        cycles = lambda t: max(1, int(t * sys_clk_freq))
        self.rx = rx = ECPSATACommandRX(fis, tx, cycles(settle_time), cycles(repeat_time),
                                        cycles(command_timeout))
        self.comb += [
            tx.rx_idle.eq(rx.idle),
            tx.rx_end.eq(rx.ending),
            tx.activate.eq(rx.activate),
        ]
        self.sink, self.source = tx.sink, rx.source
        self.lba28_all = tx.lba28_all
        self.timeout = rx.timeout
