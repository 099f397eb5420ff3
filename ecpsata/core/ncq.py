# SPDX-License-Identifier: BSD-2-Clause
"""Native Command Queuing, host side: READ / WRITE FPDMA QUEUED with tags, the DMA Setup and Set
Device Bits FISes, per-tag completion and the NCQ error recovery through READ LOG EXT log 10h.

Ref: Serial ATA Revision 3.x 13.6 (Native Command Queuing), 10.3.6 (Set Device Bits FIS), 10.3.8
(DMA Setup FIS); ACS-3 READ FPDMA QUEUED / WRITE FPDMA QUEUED, READ LOG EXT and the NCQ Command
Error log (10h).

Two pieces, on our transport layer (ecpsata/core/transport.py decodes the DMA Setup and Set Device
Bits FISes with the others):

- `ECPSATANCQ` is the queued command layer (interface in its docstring).
- `ECPSATAQueueShare` puts it beside the non-queued command layer of an `ECPSATACore(ncq=True)`:
  the queue owns the transport while it has anything in hand, and a non-queued command presented
  then is refused (answered as failed, never sent: the drive would abort the whole queue).
"""

from functools import reduce
from operator import or_

from migen import *

from litex.gen import LiteXModule
from litex.soc.interconnect import stream

from litesata.common import fis_types, transport_tx_description, command_rx_description
from ecpsata.core.common import (ATA_READ_FPDMA_QUEUED, ATA_WRITE_FPDMA_QUEUED, ATA_READ_LOG_EXT,
                                  LOG_NCQ_COMMAND_ERROR, DATA_FIS_MAX_DWORDS as fis_max_dwords,
                                  FIS_REG_D2H, FIS_DMA_ACTIVATE, FIS_PIO_SETUP, FIS_DMA_SETUP,
                                  FIS_SDB, FIS_DATA, NCQ_REASON)
from ecpsata.pipe import ReadyPipe
from ecpsata.core.transport import fis_rx_description, FISView
from ecpsata.core.command import REPEAT_TIME

DEVICE_FPDMA           = 0x40       # Device register: bit 6 shall be one; bit 7 is FUA
DEVICE_FUA             = 0x80
CMD_RETRIES            = 3          # as the non-queued TX: command FIS retransmissions after R_ERR
FIS_REFUSALS           = 4          # as the non-queued RX: FISes refused in a row before giving up
LOG_DWORDS             = 128        # log 10h: one 512-byte page


def fpdma_h2d_fields(write, lba, count, tag, fua=0):
    """Reference (Python) values of a READ/WRITE FPDMA QUEUED Register H2D FIS (SATA 3.x §13.6.4,
    ACS-3): (command, features (16, the sector count, 0 = 65,536), lba, device, count (16: tag in
    bits 7:3, priority 0))."""
    assert 1 <= count <= 65536 and 0 <= tag < 32
    return ((ATA_WRITE_FPDMA_QUEUED if write else ATA_READ_FPDMA_QUEUED), count & 0xFFFF, lba,
            DEVICE_FPDMA | (DEVICE_FUA if fua else 0), tag << 3)


def ncq_command_description():
    return stream.EndpointDescription([("dummy", 1)],
        [("write", 1), ("fua", 1), ("tag", 5), ("lba", 48), ("count", 16)])


def ncq_read_description():
    return stream.EndpointDescription([("data", 32)], [("tag", 5), ("error", 1)])


def ncq_write_request_description():
    return stream.EndpointDescription([("dummy", 1)],
        [("tag", 5), ("offset", 23), ("dwords", 12)])


class ECPSATANCQ(LiteXModule):
    """Queued command layer: READ / WRITE FPDMA QUEUED (SATA 3.x §13.6) over the transport layer.

    User side (sys clock):

    - ``sink`` (write, fua, tag, lba, count; one beat per command): a queued command. ``count``
      is sectors, 0 = 65,536. Taken when the tag is not outstanding, no error is being handled and
      ``hold`` is low; the tag is outstanding from the moment its command FIS is taken.
    - ``rd_source`` (data, tag, error; last): read data, every beat with its tag. ``last`` on the
      tag's final dword (the DMA Setup's transfer count reached); ``error`` on the last dword of a
      Data FIS whose CRC failed or that the drive abandoned (an error report follows: the drive
      fails the queue, or, if it completes the tag anyway, DATA_CRC for that tag).
    - ``wr_req`` (tag, offset, dwords): a write's Data FIS is wanted (after the drive's DMA
      Activate, or at its DMA Setup with auto-activate). Once it is taken, ``wr_sink`` must give
      ``dwords`` dwords of the tag's data from dword ``offset`` of its transfer (``last`` on the
      final one ends the FIS early; the drive will then fail the command). The FIS also ends
      early when the drive asks for it with DMAT (``dmat``): the rest of the request is taken
      and dropped (the drive asks for it again from its offset). ``wr_sent`` pulses for each
      dword that went to the drive.
    - ``outstanding`` (32): tags sent and not yet completed or reported.
    - ``done`` (32): for one cycle, the tags a Set Device Bits FIS completed (several at once).
      Never a tag whose data failed (see "Per-tag rules").
    - ``error`` (pulse) with ``error_reason`` (NCQ_REASON), ``error_tag`` / ``error_tag_valid``
      (the failing tag, when log 10h names one: NQ = 0), ``error_lba`` (48), ``error_count``,
      ``error_status``, ``error_error`` (log 10h bytes 2 and 3), ``aborted`` (32: the tags that
      were outstanding other than the failing one; the drive dropped them, re-issue them; for
      CMD_REFUSED the refused command's tag is among them). Tags the error's SDB reported as
      finished come in ``done`` first. After the report nothing is outstanding and new commands
      go out. After a reason of NCQ_RESET_REASONS (``aborted``: every outstanding tag) the
      drive's state is unknown: reset the core and the link (COMRESET clears the drive's queue).
      DATA_CRC is the exception: it fails one tag (``error_tag``, ``error_tag_valid`` set,
      ``aborted`` 0, ``error_lba`` / ``error_count`` / ``error_status`` / ``error_error`` 0) and
      the other tags stay outstanding (see "Per-tag rules").
    - ``timeout`` (input, sys cycles): the longest silence allowed in any wait (a command's
      answer, a data phase, the log; with tags outstanding, between any two FISes).
    - ``hold`` (input): do not start a command (a non-queued command owns the transport).
    - ``busy``: the layer has something in hand (the transport's receive side is its own).

    Every FIS is judged (``rx_refuse``): a DMA Setup for a tag that is not outstanding or while a
    data phase is open, a Set Device Bits FIS completing a tag that is not outstanding, a DMA
    Activate with no write phase waiting for one, a PIO Setup outside the log read are refused
    (R_ERR: the drive sends them again); FIS_REFUSALS in a row, a refusal that no frame follows
    within REPEAT_TIME (the drive need not repeat a frame; not counted while our write data goes
    out), or read data beyond the DMA Setup's transfer count, end everything with PROTOCOL. A Register D2H without ERR outside a
    command's answer is taken and dropped (``ev_stray``).

    Per-tag rules (the layer keeps each outstanding tag's sector count in a 32-entry memory and
    a few bits per tag):

    - DMA Setup (SATA 3.x §10.3.8, 13.6.4): the host never enables non-zero buffer offsets (SET
      FEATURES 10h/01h), so a tag has exactly one DMA Setup, with DMA Buffer Offset 0 and DMA
      Transfer Count = the command's bytes (count x 512, count 0 = 65,536 sectors). A DMA Setup
      with a non-zero offset, another count, or for a tag that already had one (once that
      phase is over: during it, a DMA Setup is refused as above) is taken (R_OK:
      the check is registered, two cycles behind the FIS, off the path to the link's verdict)
      and then ends everything with PROTOCOL (NCQ_RESET_REASONS); a write's data is not asked
      for before the check has passed.
    - A Set Device Bits FIS completes a tag only once the tag's whole transfer moved: the
      command's bytes (the DMA Setup's count, checked above, down to zero), read in or written
      out. An SDB completing a tag short of its data (a read that ended short, a command with no
      DMA Setup) is refused like any other FIS that makes no sense, and the drive's repeats end
      everything with PROTOCOL: such a tag is never in ``done``.
    - A tag's Data FIS that failed (a read Data FIS whose last dword came with ``error``: CRC
      error, or abandoned by the drive; a write Data FIS the drive refused with R_ERR or
      aborted) marks the tag (the mark is cleared when the tag is issued again). The drive
      normally fails the queue (SDB with ERR; nothing changes then). If it completes the tag
      with a Set Device Bits FIS instead, the SDB is taken, the tag is not in ``done``: a
      DATA_CRC report for it follows a cycle or two later (one report per such tag; no new
      command is taken while one is waiting; the tag is outstanding until its report, so that a
      PROTOCOL or DEVICE_ERROR report in between counts it in ``aborted``). The drive did not
      fail its queue: ``aborted`` is 0 and the other tags stay outstanding and complete as
      usual; the failed tag's data phase, if still open, is closed.

    On an NCQ error (Set Device Bits with ERR, or a Register D2H with ERR answering a queued
    command) the layer reads log 10h with READ LOG EXT (PIO data-in: PIO Setup and Data FIS, in
    as many DRQ blocks as the drive sends, 512 bytes in all), checks its checksum, then reports.
    The drive has aborted every outstanding command.
    """
    def __init__(self, repeat_cycles=int(REPEAT_TIME*75e6)):
        self.sink        = sink   = stream.Endpoint(ncq_command_description())
        self.rd_source   = rd     = stream.Endpoint(ncq_read_description())
        self.wr_req      = wr_req = stream.Endpoint(ncq_write_request_description())
        # The write data comes in through a ready-pipe: the user's `ready` is a register, not the
        # end of a path through this layer, the transport and the link (zero added latency).
        self.wr_pipe     = ReadyPipe([("data", 32)])
        self.wr_sink     = self.wr_pipe.sink
        wr               = self.wr_pipe.source
        self.outstanding = outstanding = Signal(32)
        self.done        = Signal(32)
        self.error           = Signal()
        self.error_reason    = Signal(4)
        self.error_tag       = Signal(5)
        self.error_tag_valid = Signal()
        self.error_lba       = Signal(48)
        self.error_count     = Signal(16)
        self.error_status    = Signal(8)
        self.error_error     = Signal(8)
        self.aborted         = Signal(32)
        self.timeout     = Signal(32, reset=2**32 - 1)
        self.hold        = Signal()
        self.busy        = Signal()
        self.ev_stray    = Signal()
        self.ev_extra    = Signal()
        self.wr_sent     = Signal()       # a write dword went to the drive (not a dropped one)
        # Transport side.
        self.tx      = tx = stream.Endpoint(transport_tx_description(32))
        self.rx      = rx = stream.Endpoint(fis_rx_description(32))
        self.rx_refuse      = Signal()    # out, with rx.ready: the FIS is refused
        self.rx_accept_data = Signal()    # out: a Data FIS may start
        self.rx_accept_activate = Signal()  # out: a DMA Activate arriving now would be taken
        self.rx_ev_refused  = Signal()    # in: the transport refused a frame (R_ERR)
        self.tx_ok   = Signal()       # link: our frame was taken (R_OK)
        self.tx_err  = Signal()       # link: our frame was refused (R_ERR) or aborted
        self.dmat    = Signal()       # link: the drive asks us to end the Data FIS
        self.tx_active = Signal()     # the layer drives ``tx``

        # # #

        def rx_is(t):
            return rx.type == t

        # Phases the drive opened with a DMA Setup.
        rd_open, rd_tag, rd_left = Signal(), Signal(5), Signal(24)
        rd_mask = Signal(32)          # 1 << rd_tag while the read phase is open (registered)
        wr_open, wr_tag, wr_left, wr_offset = Signal(), Signal(5), Signal(24), Signal(23)
        activate = Signal()           # the drive wants the next write Data FIS
        # Per tag, one bit each, cleared when the tag's command FIS goes out (a tag that is not
        # outstanding has no meaning in them).
        setup_seen = Signal(32)       # the tag had its DMA Setup (one per tag: offsets are zero)
        data_in    = Signal(32)       # the tag's whole transfer moved (the command's bytes)
        data_bad   = Signal(32)       # a Data FIS of the tag failed: never reported done
        crc_pend   = Signal(32)       # completed with data_bad set: DATA_CRC still to report
        # The DMA Setup check, registered behind the FIS (off the path to the link's verdict).
        chk1, chk2 = Signal(), Signal()   # a DMA Setup was taken one / two cycles ago
        chk_pre    = Signal()         # offset != 0, a count not in whole dwords or beyond 2^25
                                      # bytes, or a second DMA Setup for the tag
        chk_dwords = Signal(24)
        chk_tag    = Signal(5)
        chk_fail   = Signal()         # with chk2: the DMA Setup breaks the protocol
        # The write Data FIS whose R_OK / R_ERR is still to come from the link.
        wr_ack, wr_ack_tag = Signal(), Signal(5)
        # The DATA_CRC report: the lowest tag of crc_pend, registered.
        crc_valid, crc_tag = Signal(), Signal(5)
        crc_report = Signal()
        # Error handling: a queued command failed, log 10h still to be read.
        err_pending  = Signal()
        err_refused  = Signal()       # it was a Register D2H answer, not an SDB
        # Reply to the command FIS in flight (Register D2H, BSY clear or ERR).
        reply_ok, reply_err = Signal(), Signal()
        # Log 10h, as the RX takes it in.
        log_pio, log_ok, log_bad = Signal(), Signal(), Signal()
        log_dw = [Signal(32) for _ in range(4)]    # bytes 0-15 of the page
        log_n  = Signal(8)
        log_block = Signal(14)        # dwords left in the DRQ block
        log_sum = Signal(8)

        # The command in flight.
        c_write, c_fua, c_tag = Signal(), Signal(), Signal(5)
        c_lba, c_count = Signal(48), Signal(16)
        c_bit = Signal(32)
        self.comb += c_bit.eq(1 << c_tag)
        # Each tag's sector count (0 = 65,536), written while its command FIS goes out, read at
        # its DMA Setup.
        tag_sectors = Memory(16, 32)
        sectors_w = tag_sectors.get_port(write_capable=True)
        sectors_r = tag_sectors.get_port()                  # registered read
        self.specials += tag_sectors, sectors_w, sectors_r

        # Control from the two FSMs to the shared registers (updated in one place below).
        tx_cmd_taken = Signal()       # our command FIS was taken: its tag is outstanding
        wr_fis_sent  = Signal()       # a write Data FIS ended; wr_cnt + 1 dwords went
        report       = Signal()       # the error is reported now
        timed_out    = Signal()
        protocol     = Signal()       # the drive broke the protocol: give up as on a timeout
        reason_now   = Signal(4)
        rx_take      = Signal()       # a control FIS is taken (not refused)
        rx_d2h_reply = Signal()
        rx_activate  = Signal()
        rx_setup     = Signal()
        rx_sdb       = Signal()
        rx_log_pio   = Signal()
        rx_log_end   = Signal()
        rx_log_fail  = Signal()
        rd_beat      = Signal()
        clear_cmd    = Signal()       # a new command FIS goes out: forget the last reply
        log_start    = Signal()
        wr_n         = Signal(12)
        wr_cnt       = Signal(12)

        tag_free = ~(outstanding >> sink.tag)[0]

        # TX: commands, write data, READ LOG EXT ----------------------------------------------
        retries = Signal(max=CMD_RETRIES + 1)
        self.txfsm = txfsm = FSM(reset_state="IDLE")
        txfsm.act("IDLE",
            NextValue(retries, 0),
            If(err_pending,
                NextState("LOG_CMD")
            ).Elif(wr_open & activate,
                # (after the DMA Setup's check: auto-activate asks for the data with it)
                If(~chk1 & ~chk2, NextState("WR_REQ"))
            ).Elif(sink.valid & tag_free & ~self.hold & ~crc_valid,
                sink.ready.eq(1),
                NextValue(c_write, sink.write),
                NextValue(c_fua, sink.fua),
                NextValue(c_tag, sink.tag),
                NextValue(c_lba, sink.lba),
                NextValue(c_count, sink.count),
                NextState("CMD")
            )
        )
        txfsm.act("CMD",
            clear_cmd.eq(1),
            tx.valid.eq(1),
            If(tx.ready,
                NextState("CMD_ACK")
            )
        )
        # (The ack of a write Data FIS sent just before is that FIS's: acks come in order.)
        cmd_ok, cmd_err = Signal(), Signal()
        self.comb += [cmd_ok.eq(self.tx_ok & ~wr_ack), cmd_err.eq(self.tx_err & ~wr_ack)]
        txfsm.act("CMD_ACK",
            If(cmd_ok,
                tx_cmd_taken.eq(1),
                NextState("REPLY")
            ).Elif(cmd_err,
                If(retries == CMD_RETRIES,
                    tx_cmd_taken.eq(1),     # left to the timeout
                    NextState("REPLY")
                ).Else(
                    NextValue(retries, retries + 1),
                    NextState("CMD")
                )
            )
        )
        # The host sends no command while BSY is set: wait for the drive's Register D2H.
        txfsm.act("REPLY",
            If(reply_ok | reply_err,
                NextState("IDLE")
            )
        )
        txfsm.act("WR_REQ",
            wr_req.valid.eq(1),
            If(wr_req.ready,
                NextValue(wr_n, wr_req.dwords),
                NextValue(wr_cnt, 0),
                NextState("WR_DATA")
            )
        )
        # The FIS ends at the request's length, at the user's `last`, or early when the drive
        # asks for it with DMAT; then the rest of the request is taken from the user and dropped
        # (the drive asks for it again, from its offset, with a DMA Activate, or fails the tag).
        txfsm.act("WR_DATA",
            tx.valid.eq(wr.valid),
            tx.last.eq((wr_cnt == wr_n - 1) | wr.last | self.dmat),
            wr.ready.eq(tx.ready),
            If(wr.valid & wr.ready,
                NextValue(wr_cnt, wr_cnt + 1),
                If(tx.last,
                    wr_fis_sent.eq(1),
                    If((wr_cnt == wr_n - 1) | wr.last,
                        NextState("IDLE")
                    ).Else(
                        NextValue(wr_cnt, wr_cnt + 1),
                        NextState("WR_DROP")
                    )
                )
            )
        )
        txfsm.act("WR_DROP",
            wr.ready.eq(1),
            If(wr.valid,
                NextValue(wr_cnt, wr_cnt + 1),
                If((wr_cnt == wr_n - 1) | wr.last,
                    NextState("IDLE")
                )
            )
        )
        txfsm.act("LOG_CMD",
            log_start.eq(1),
            tx.valid.eq(1),
            If(tx.ready,
                NextState("LOG_ACK")
            )
        )
        txfsm.act("LOG_ACK",
            If(cmd_ok,
                NextState("LOG_WAIT")
            ).Elif(cmd_err,
                If(retries == CMD_RETRIES,
                    NextState("LOG_WAIT")
                ).Else(
                    NextValue(retries, retries + 1),
                    NextState("LOG_CMD")
                )
            )
        )
        txfsm.act("LOG_WAIT",
            If(log_ok | log_bad,
                report.eq(1),
                NextState("IDLE")
            )
        )
        log_wait = txfsm.ongoing("LOG_ACK") | txfsm.ongoing("LOG_WAIT")

        wr_dwords = Signal(12)
        self.comb += [
            self.wr_sent.eq(txfsm.ongoing("WR_DATA") & wr.valid & wr.ready),
            self.tx_active.eq(~txfsm.ongoing("IDLE")),
            wr_dwords.eq(Mux(wr_left >= fis_max_dwords, fis_max_dwords, wr_left)),
            wr_req.tag.eq(wr_tag),
            wr_req.offset.eq(wr_offset),
            wr_req.dwords.eq(wr_dwords),
            wr_req.last.eq(1),
            tx.data.eq(wr.data),
            If(txfsm.ongoing("WR_DATA"),
                tx.type.eq(fis_types["DATA"]),
            ).Else(
                tx.type.eq(fis_types["REG_H2D"]),
                tx.c.eq(1),
                tx.last.eq(1),
                If(txfsm.ongoing("LOG_CMD"),
                    tx.command.eq(ATA_READ_LOG_EXT),
                    tx.lba.eq(LOG_NCQ_COMMAND_ERROR),
                    tx.device.eq(DEVICE_FPDMA),
                    tx.count.eq(1),
                ).Else(
                    tx.command.eq(Mux(c_write, ATA_WRITE_FPDMA_QUEUED, ATA_READ_FPDMA_QUEUED)),
                    tx.features.eq(c_count),
                    tx.lba.eq(c_lba),
                    tx.device.eq(DEVICE_FPDMA | Mux(c_fua, DEVICE_FUA, 0)),
                    tx.count.eq(c_tag << 3),
                )
            ),
        ]

        # RX: answers, DMA Setup, Set Device Bits, read data, log 10h -------------------------
        in_reply = txfsm.ongoing("CMD_ACK") | txfsm.ongoing("REPLY")
        d2h_err = rx.status[0]
        tag_out = (outstanding >> rx.tag)[0]
        # Set Device Bits completes only tags in flight whose whole transfer moved (the command's
        # bytes: not a read short of its data, nor a command with no DMA Setup at all), or whose
        # Data FIS failed (data_bad: reported as DATA_CRC, not done). The masks are registers: the
        # check is one LUT per tag and an OR-reduce on the way to the link's R_OK.
        sdb_ok  = (rx.sactive & ~(outstanding & (data_in | data_bad))) == 0
        pio_ok  = log_wait & rx.d & (rx.transfer_count[2:] != 0)
        # What each control FIS needs to be taken now.
        take_ok = Signal()
        self.comb += Case(rx.type, {
            FIS_REG_D2H:      take_ok.eq(1),
            FIS_DMA_ACTIVATE: take_ok.eq(self.rx_accept_activate),
            FIS_DMA_SETUP:    take_ok.eq(tag_out & ~rd_open & ~wr_open),
            FIS_SDB:          take_ok.eq(sdb_ok),
            FIS_PIO_SETUP:    take_ok.eq(pio_ok | (log_wait & rx.status[0])),
            "default":        take_ok.eq(0),
        })
        self.rxfsm = rxfsm = FSM(reset_state="IDLE")
        rxfsm.act("IDLE",
            If(rx.valid,
                If(rx_is(FIS_DATA),
                    If(rd_open,
                        NextState("READ_DATA")
                    ).Elif(log_pio,
                        NextState("LOG_DATA")
                    ).Else(
                        NextState("DROP")
                    )
                ).Else(
                    rx.ready.eq(1),
                    self.rx_refuse.eq(~take_ok),
                    rx_take.eq(take_ok),
                )
            )
        )
        self.comb += If(rx_take,
            If(rx_is(FIS_REG_D2H),
                rx_d2h_reply.eq(1),
                self.ev_stray.eq(~in_reply & ~log_wait & ~d2h_err),
            ).Elif(rx_is(FIS_DMA_ACTIVATE),
                rx_activate.eq(1)
            ).Elif(rx_is(FIS_DMA_SETUP),
                rx_setup.eq(1)
            ).Elif(rx_is(FIS_SDB),
                rx_sdb.eq(1)
            ).Elif(rx_is(FIS_PIO_SETUP),
                If(pio_ok, rx_log_pio.eq(1)).Else(rx_log_fail.eq(1))
            )
        )
        rd_failed = Signal()          # a read Data FIS ends with `error` (CRC, or abandoned)
        rxfsm.act("READ_DATA",
            rd.valid.eq(rx.valid & (rd_left != 0)),
            rx.ready.eq(rd.ready | (rd_left == 0)),
            If(rx.valid & rx.ready,
                rd_beat.eq(rd_left != 0),
                If(rd_left == 0, protocol.eq(1), self.ev_extra.eq(1)),
                If(rx.last,
                    rd_failed.eq(rx.error),
                    NextState("IDLE")
                )
            )
        )
        log_bytes = rx.data[0:8] + rx.data[8:16] + rx.data[16:24] + rx.data[24:32]
        log_sum_next = Signal(8)
        self.comb += log_sum_next.eq(log_sum + log_bytes)
        rxfsm.act("LOG_DATA",
            rx.ready.eq(1),
            If(rx.valid,
                NextValue(log_n, log_n + 1),
                NextValue(log_block, log_block - 1),
                NextValue(log_sum, log_sum_next),
                *[If(log_n == i, NextValue(log_dw[i], rx.data)) for i in range(4)],
                If(rx.last,
                    If(log_n == LOG_DWORDS - 1,
                        rx_log_end.eq(1),
                        If((log_block != 1) | (log_sum_next != 0) | rx.error,
                            rx_log_fail.eq(1)
                        )
                    ).Elif((log_block != 1) | rx.error | (log_n >= LOG_DWORDS),
                        rx_log_fail.eq(1)
                    ),
                    NextState("IDLE")
                )
            )
        )
        rxfsm.act("DROP",
            rx.ready.eq(1),
            If(rx.valid & rx.last,
                NextState("IDLE")
            )
        )
        self.comb += [
            self.rx_accept_data.eq(rd_open | log_pio),
            self.rx_accept_activate.eq(wr_open & ~activate & ~txfsm.ongoing("WR_DATA")),
            rd.data.eq(rx.data),
            rd.tag.eq(rd_tag),
            rd.error.eq(rx.error & rx.last),
            rd.last.eq(rd_left == 1),
        ]

        # Shared state ------------------------------------------------------------------------
        setup = rx_setup
        sdb_err = rx_sdb & rx.status[0] & (outstanding != 0)
        log_tag_nq = log_dw[0][7]
        log_good = log_ok & ~log_bad

        # FIS_REFUSALS refused frames in a row: the drive keeps breaking the protocol.
        refusals = Signal(max=FIS_REFUSALS + 1)
        give_up = Signal()
        self.sync += [
            If(~self.busy | rx_take | rd_beat | give_up,
                refusals.eq(0)
            ).Elif(self.rx_ev_refused & (refusals != FIS_REFUSALS),
                refusals.eq(refusals + 1)
            )
        ]
        # A refused frame that the drive neither sends again nor follows with any other frame
        # within REPEAT_TIME (not counted while our write data goes out): the drive need not
        # repeat it, and the queue would wait for it until its timeout.
        unanswered = Signal()
        repeat = Signal(max=repeat_cycles + 1)
        self.sync += [
            If(~self.busy | rx_take | rd_beat | give_up,
                unanswered.eq(0)
            ).Elif(self.rx_ev_refused,
                unanswered.eq(1)
            ),
            If(~unanswered | give_up,
                repeat.eq(0)
            ).Elif(~txfsm.ongoing("WR_DATA") & (repeat != repeat_cycles),
                repeat.eq(repeat + 1)
            ),
        ]
        self.comb += [
            If(repeat == repeat_cycles, protocol.eq(1)),
            give_up.eq(timed_out | protocol | (refusals == FIS_REFUSALS)),
        ]

        # The DMA Setup check (SATA 3.x §10.3.8; SET FEATURES 10h/01h, non-zero buffer offsets,
        # is never enabled): the offset is zero, the count is the tag's command's bytes, and it is
        # the tag's only DMA Setup. The FIS's fields are registered in every cycle, the tag's
        # sectors read from memory at the same edge, compared in the next cycle (chk1), judged in
        # the one after (chk2): PROTOCOL then, before a write's data is asked for.
        expected_dwords = Signal(24)
        self.comb += [
            sectors_w.adr.eq(c_tag), sectors_w.dat_w.eq(c_count),
            sectors_w.we.eq(txfsm.ongoing("CMD")),
            sectors_r.adr.eq(rx.tag),
            expected_dwords.eq(Cat(C(0, 7), sectors_r.dat_r, sectors_r.dat_r == 0)),
            If(chk2 & chk_fail, protocol.eq(1)),
        ]
        self.sync += [
            chk_pre.eq((rx.dma_offset != 0) | (rx.dma_count[:2] != 0) |
                       (rx.dma_count[26:] != 0) | (setup_seen >> rx.tag)[0]),
            chk_dwords.eq(rx.dma_count[2:26]),
            chk_tag.eq(rx.tag),
            chk1.eq(setup & ~give_up),
            chk2.eq(chk1 & ~give_up),
            chk_fail.eq(chk_pre | (chk_dwords != expected_dwords)),
        ]

        # A write Data FIS refused (R_ERR) or aborted by the drive: its ack is the link's next.
        wr_start = txfsm.ongoing("WR_REQ") & wr_req.ready
        self.sync += If(give_up,
            wr_ack.eq(0)
        ).Elif(wr_start,
            wr_ack.eq(1), wr_ack_tag.eq(wr_tag)
        ).Elif(self.tx_ok | self.tx_err,
            wr_ack.eq(0)
        )

        # Per-tag state.
        issue_bit = Mux(clear_cmd, c_bit, 0)
        rd_end = rd_beat & (rd_left == 1)
        wr_end = wr_fis_sent & (wr_left == wr_cnt + 1)
        self.sync += [
            setup_seen.eq((setup_seen & ~issue_bit) | Mux(chk1, 1 << chk_tag, 0)),
            data_in.eq((data_in & ~issue_bit) | Mux(rd_end, rd_mask, 0) |
                       Mux(wr_end, 1 << wr_tag, 0)),
            data_bad.eq((data_bad & ~issue_bit) | Mux(rd_failed, rd_mask, 0) |
                        Mux(self.tx_err & wr_ack, 1 << wr_ack_tag, 0)),
        ]

        # A Set Device Bits FIS completing a tag whose data failed: not done, reported as
        # DATA_CRC (one tag per report, the lowest first; the tag is outstanding until then).
        crc_low = Signal(32)
        crc_low_tag = Signal(5)
        crc_bit = Signal(32)
        self.comb += [
            crc_low.eq(crc_pend & (~crc_pend + 1)),
            *[crc_low_tag[b].eq(reduce(or_, [crc_low[i] for i in range(32) if i >> b & 1]))
              for b in range(5)],
            crc_bit.eq(Mux(crc_report, 1 << crc_tag, 0)),
            crc_report.eq(crc_valid & ~report & ~give_up),
        ]
        self.sync += [
            If(report | give_up,
                crc_pend.eq(0), crc_valid.eq(0)
            ).Else(
                crc_pend.eq((crc_pend & ~crc_bit) | Mux(rx_sdb, rx.sactive & data_bad, 0)),
                If(crc_report,
                    crc_valid.eq(0)
                ).Elif(~crc_valid & (crc_pend != 0),
                    crc_valid.eq(1), crc_tag.eq(crc_low_tag)
                )
            )
        ]

        self.comb += [
            self.done.eq(Mux(rx_sdb, rx.sactive & outstanding & ~data_bad, 0)),
            self.error.eq(report | give_up | crc_report),
            self.error_reason.eq(reason_now),
            If(report,
                If(~log_good,
                    reason_now.eq(NCQ_REASON["LOG_FAILED"])
                ).Elif(err_refused,
                    reason_now.eq(NCQ_REASON["CMD_REFUSED"])
                ).Else(
                    reason_now.eq(NCQ_REASON["DEVICE_ERROR"])
                ),
                self.error_tag_valid.eq(log_good & ~log_tag_nq),
                self.error_tag.eq(log_dw[0][:5]),
                self.error_status.eq(log_dw[0][16:24]),
                self.error_error.eq(log_dw[0][24:32]),
                self.error_lba.eq(Cat(log_dw[1][:24], log_dw[2][:24])),
                self.error_count.eq(log_dw[3][:16]),
                self.aborted.eq(outstanding & ~Mux(log_good & ~log_tag_nq, 1 << log_dw[0][:5], 0)),
            ).Elif(give_up,
                If(~timed_out,
                    reason_now.eq(NCQ_REASON["PROTOCOL"])
                ).Elif(txfsm.ongoing("CMD") | in_reply,
                    reason_now.eq(NCQ_REASON["TIMEOUT_CMD"])
                ).Elif(txfsm.ongoing("LOG_CMD") | log_wait,
                    reason_now.eq(NCQ_REASON["TIMEOUT_LOG"])
                ).Elif(rd_open | wr_open | ~txfsm.ongoing("IDLE") | ~rxfsm.ongoing("IDLE"),
                    reason_now.eq(NCQ_REASON["TIMEOUT_DATA"])
                ).Else(
                    reason_now.eq(NCQ_REASON["TIMEOUT_SDB"])
                ),
                self.aborted.eq(outstanding),
            ).Elif(crc_report,
                reason_now.eq(NCQ_REASON["DATA_CRC"]),
                self.error_tag_valid.eq(1),
                self.error_tag.eq(crc_tag),
            ),
        ]

        self.sync += [
            # Tags.
            If(report | give_up,
                outstanding.eq(0)
            ).Else(
                outstanding.eq((outstanding | Mux(tx_cmd_taken, c_bit, 0)) &
                               ~Mux(rx_sdb, rx.sactive & ~data_bad, 0) & ~crc_bit)
            ),
            # The answer to our command FIS.
            If(clear_cmd,
                reply_ok.eq(0), reply_err.eq(0)
            ).Elif(rx_d2h_reply & in_reply,
                reply_ok.eq(~d2h_err), reply_err.eq(d2h_err)
            ),
            # NCQ error: to be recovered through log 10h.
            If(report | give_up,
                err_pending.eq(0), err_refused.eq(0)
            ).Elif(sdb_err,
                err_pending.eq(1), err_refused.eq(0)
            ).Elif(rx_d2h_reply & d2h_err & ~log_wait & ~err_pending,
                err_pending.eq(1), err_refused.eq(1)
            ),
            # Read phase.
            If(setup & rx.d,
                rd_open.eq(1), rd_tag.eq(rx.tag), rd_left.eq(rx.dma_count[2:26]),
                rd_mask.eq(1 << rx.tag)
            ).Elif(rd_beat,
                rd_left.eq(rd_left - 1),
                If(rd_left == 1, rd_open.eq(0), rd_mask.eq(0))
            ),
            # Write phase.
            If(setup & ~rx.d,
                wr_open.eq(1), wr_tag.eq(rx.tag), wr_left.eq(rx.dma_count[2:26]),
                wr_offset.eq(0), activate.eq(rx.a)
            ).Elif(wr_fis_sent,
                wr_left.eq(wr_left - (wr_cnt + 1)),
                wr_offset.eq(wr_offset + wr_cnt + 1),
                If(wr_left == wr_cnt + 1, wr_open.eq(0))
            ).Elif(txfsm.ongoing("WR_REQ"),
                activate.eq(0)
            ).Elif(rx_activate,
                activate.eq(1)
            ),
            # Log 10h: the DRQ blocks' PIO Setups, then their data.
            If(log_start,
                log_pio.eq(0), log_ok.eq(0), log_bad.eq(0), log_n.eq(0), log_sum.eq(0)
            ).Else(
                If(rx_log_pio, log_pio.eq(1), log_block.eq(rx.transfer_count[2:])),
                If(rx_log_end, log_ok.eq(1)),
                If(rxfsm.ongoing("LOG_DATA") & rx.valid & rx.last, log_pio.eq(0)),
                If(rx_log_fail | (rx_d2h_reply & d2h_err & log_wait), log_bad.eq(1)),
            ),
            # An error or giving up ends every phase (the drive dropped them).
            If(sdb_err | log_start | give_up,
                rd_open.eq(0), rd_mask.eq(0), wr_open.eq(0), activate.eq(0)
            ),
            # A DATA_CRC report ends its tag's phase (a Data FIS the drive abandoned left it
            # open). While a phase is open no DMA Setup opens another one.
            If(crc_report & rd_open & (rd_tag == crc_tag),
                rd_open.eq(0), rd_mask.eq(0)
            ),
            If(crc_report & wr_open & (wr_tag == crc_tag),
                wr_open.eq(0), activate.eq(0)
            ),
        ]

        # Every wait has a limit: the silence counter restarts on any progress.
        # The comparison with the limit is registered with the counter (`over` is silence >=
        # timeout, up to date in every cycle): the limit's comparator stays off the paths through
        # `give_up` into the shared registers and the caller's.
        busy = Signal()
        silence = Signal(32)
        over = Signal()
        progress = (rx.valid & rx.ready) | (tx.valid & tx.ready) | \
                   self.tx_ok | self.tx_err | (wr_req.valid & wr_req.ready)
        self.comb += [
            busy.eq((outstanding != 0) | ~txfsm.ongoing("IDLE") | ~rxfsm.ongoing("IDLE") |
                    err_pending | rd_open | wr_open),
            self.busy.eq(busy),
            timed_out.eq(busy & over),
        ]
        self.sync += [
            If(~busy | progress | give_up,
                silence.eq(0),
                over.eq(self.timeout == 0),
            ).Else(
                silence.eq(silence + 1),
                over.eq(silence + 1 >= self.timeout),
            )
        ]
        # Giving up leaves every wait (the caller resets the core: see the docstring).
        for fsm in (txfsm, rxfsm):
            for state in fsm.actions:
                if state != "IDLE":
                    fsm.act(state, If(give_up, NextState("IDLE")))


class ECPSATAQueueShare(LiteXModule):
    """Puts `ECPSATANCQ` beside the non-queued command layer of an ECPSATACore.

    The queued layer owns the transport (its TX when it is sending, the received FISes while it
    is busy). A non-queued command presented on the user port while the queue is busy is refused:
    its beats are taken and one end beat with ``failed`` answers it (``refused`` pulses); it never
    reaches the drive, which would abort every queued command for it. While a non-queued command
    is in flight the queue holds its next command.

    ``cmd_tx`` and ``cmd_fis`` are what the non-queued command layer sees in place of the
    transport's TX sink and RX; `attach` wires that layer and returns the user port.
    """
    def __init__(self, transport, command_tx_description, sys_clk_freq=75e6):
        self.ncq = ECPSATANCQ(repeat_cycles=max(1, int(REPEAT_TIME*sys_clk_freq)))
        self.cmd_tx  = stream.Endpoint(transport_tx_description(32))
        self.cmd_fis = FISView()
        self.refused = Signal()
        self.transport = transport
        self.command_tx_description = command_tx_description

    def attach(self, command):
        """Wires the non-queued command layer; returns the user port (sink, source)."""
        ncq, transport, fis = self.ncq, self.transport, self.cmd_fis
        trx = transport.rx
        self.sink   = sink   = stream.Endpoint(self.command_tx_description)
        self.source = source = stream.Endpoint(command_rx_description(32))

        # # #

        self.comb += [
            If(ncq.tx_active,
                ncq.tx.connect(transport.sink)
            ).Else(
                self.cmd_tx.connect(transport.sink)
            ),
            If(ncq.busy,
                trx.source.connect(ncq.rx),
                trx.refuse.eq(ncq.rx_refuse),
                trx.accept_data.eq(ncq.rx_accept_data),
                trx.accept_activate.eq(ncq.rx_accept_activate),
            ).Else(
                trx.source.connect(fis.source),
                trx.refuse.eq(fis.refuse),
                trx.accept_data.eq(fis.accept_data),
                trx.accept_activate.eq(fis.accept_activate),
            ),
            ncq.rx_ev_refused.eq(trx.ev_refused),
            fis.ev_refused.eq(trx.ev_refused),
        ]
        # A non-queued command is in flight from its command FIS to its end beat.
        nq_busy = Signal()
        nq_end = command.source.valid & command.source.ready & command.source.end
        self.sync += [
            If(command.tx.start,
                nq_busy.eq(1)
            ).Elif(nq_end,
                nq_busy.eq(0)
            )
        ]
        # The gate takes a presented command in IDLE, decides on it one cycle later (WAIT) and
        # connects the port only from the cycle after (PASS): the queue's busy then reaches the
        # gate's state register and nothing beyond, and the port's path into the command layer
        # starts at that register. The queue is held from WAIT on, by a state register, so that
        # no path runs from the user port into the queued layer's start: a queued command
        # started in the cycle the port was first presented shows as `busy` in WAIT, and the
        # port's command is refused. From the command FIS on, `nq_busy` holds the queue.
        is_write, is_read, is_identify = Signal(), Signal(), Signal()
        self.gate = gate = FSM(reset_state="IDLE")
        gate.act("IDLE",
            command.source.connect(source),
            If(sink.valid,
                NextState("WAIT")
            )
        )
        gate.act("WAIT",
            command.source.connect(source),
            If(~nq_busy & ncq.busy,
                NextValue(is_write, sink.write),
                NextValue(is_read, sink.read),
                NextValue(is_identify, sink.identify),
                NextState("DRAIN")
            ).Else(
                NextState("PASS")
            )
        )
        gate.act("PASS",
            sink.connect(command.sink),
            command.source.connect(source),
            If(sink.valid & sink.ready & sink.last,
                NextState("IDLE")
            )
        )
        gate.act("DRAIN",
            sink.ready.eq(1),
            If(sink.valid & sink.last,
                NextState("ANSWER")
            )
        )
        gate.act("ANSWER",
            source.valid.eq(1),
            source.last.eq(1),
            source.end.eq(1),
            source.failed.eq(1),
            source.write.eq(is_write),
            source.read.eq(is_read),
            source.identify.eq(is_identify),
            If(source.ready,
                self.refused.eq(1),
                NextState("IDLE")
            )
        )
        self.comb += ncq.hold.eq(nq_busy | gate.ongoing("WAIT") | gate.ongoing("PASS"))
        return sink, source
