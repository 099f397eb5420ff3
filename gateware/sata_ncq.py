"""Native Command Queuing, host side: READ / WRITE FPDMA QUEUED with tags, the DMA Setup and Set
Device Bits FISes, per-tag completion and the NCQ error recovery through READ LOG EXT log 10h.

Ref: SATA 3.x 13.6 (Native Command Queuing), 10.5.7 (Set Device Bits FIS), 10.5.9 (DMA Setup FIS);
ACS-3 READ FPDMA QUEUED / WRITE FPDMA QUEUED, READ LOG EXT and the NCQ Command Error log (10h);
../shared/design/SATA.md.

Two pieces, on `ECPSATAQueueFISRX` (gateware/sata_ncq_transport.py: the DMA Setup and Set Device
Bits FISes, which LiteSATA's transport does not know):

- `ECPSATANCQ` is the queued command layer (interface in its docstring).
- `ECPSATAQueueShare` puts it beside the non-queued command layer of an `ECPSATACore(ncq=True)`:
  the queue owns the transport while it has anything in hand, and a non-queued command presented
  then is refused (answered as failed, never sent: the drive would abort the whole queue).
"""

from migen import *

from litex.gen import LiteXModule
from litex.soc.interconnect import stream

from litesata.common import fis_max_dwords, fis_types, transport_tx_description, \
    transport_rx_description, command_rx_description
from gateware.sata_ncq_transport import ECPSATAQueueFISRX

ATA_READ_FPDMA_QUEUED  = 0x60
ATA_WRITE_FPDMA_QUEUED = 0x61
ATA_READ_LOG_EXT       = 0x2F
LOG_NCQ_COMMAND_ERROR  = 0x10
DEVICE_FPDMA           = 0x40       # Device register: bit 6 shall be one; bit 7 is FUA
DEVICE_FUA             = 0x80
CMD_RETRIES            = 3          # as the non-queued TX: command FIS retransmissions after R_ERR

# error_reason codes (public API: the engine and firmware report them by number).
NCQ_REASON = {
    "NONE":          0,
    "DEVICE_ERROR":  1,   # SDB with ERR; log 10h names the failing tag and LBA
    "CMD_REFUSED":   2,   # Register D2H with ERR to a queued command (duplicate tag, halted queue)
    "LOG_FAILED":    3,   # READ LOG EXT aborted, or its page failed its checksum / CRC
    "TIMEOUT_CMD":   4,   # command FIS not taken, or no Register D2H answer to it
    "TIMEOUT_SDB":   5,   # tags outstanding and the drive silent (no DMA Setup, no SDB)
    "TIMEOUT_DATA":  6,   # a data phase stalled (no Data FIS, no DMA Activate)
    "TIMEOUT_LOG":   7,   # READ LOG EXT 10h not answered
}


def fpdma_h2d_fields(write, lba, count, tag, fua=0):
    """Reference (Python) values of a READ/WRITE FPDMA QUEUED Register H2D FIS (SATA 3.x 13.6.4,
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
    """Queued command layer: READ / WRITE FPDMA QUEUED (SATA 3.x 13.6) over the transport layer.

    User side (sys clock):

    - ``sink`` (write, fua, tag, lba, count; one beat per command): a queued command. ``count``
      is sectors, 0 = 65,536. Taken when the tag is not outstanding, no error is being handled and
      ``hold`` is low; the tag is outstanding from the moment its command FIS is taken.
    - ``rd_source`` (data, tag, error; last): read data, every beat with its tag. ``last`` on the
      tag's final dword (the DMA Setup's transfer count reached); ``error`` on the last dword of a
      Data FIS whose CRC failed (the drive then fails the queue: an error report follows).
    - ``wr_req`` (tag, offset, dwords): a write's Data FIS is wanted (after the drive's DMA
      Activate, or at its DMA Setup with auto-activate). Once it is taken, ``wr_sink`` must give
      ``dwords`` dwords of the tag's data from dword ``offset`` of its transfer (``last`` on the
      final one ends the FIS early; the drive will then fail the command).
    - ``outstanding`` (32): tags sent and not yet completed or reported.
    - ``done`` (32): for one cycle, the tags a Set Device Bits FIS completed (several at once).
    - ``error`` (pulse) with ``error_reason`` (NCQ_REASON), ``error_tag`` / ``error_tag_valid``
      (the failing tag, when log 10h names one: NQ = 0), ``error_lba`` (48), ``error_count``,
      ``error_status``, ``error_error`` (log 10h bytes 2 and 3), ``aborted`` (32: the tags that
      were outstanding other than the failing one; the drive dropped them, re-issue them; for
      CMD_REFUSED the refused command's tag is among them). Tags the error's SDB reported as
      finished come in ``done`` first. After the report nothing is outstanding and new commands
      go out. After a TIMEOUT_* (``aborted``: every outstanding tag) the drive's state is
      unknown: reset the core and the link (COMRESET clears the drive's queue).
    - ``timeout`` (input, sys cycles): the longest silence allowed in any wait (a command's
      answer, a data phase, the log; with tags outstanding, between any two FISes).
    - ``hold`` (input): do not start a command (a non-queued command owns the transport).
    - ``busy``: the layer has something in hand (the transport's receive side is its own).

    On an NCQ error (Set Device Bits with ERR, or a Register D2H with ERR answering a queued
    command) the layer reads log 10h with READ LOG EXT (PIO data-in: PIO Setup, one 512-byte Data
    FIS), checks its checksum, then reports. The drive has aborted every outstanding command.
    """
    def __init__(self, fis_rx):
        self.sink        = sink   = stream.Endpoint(ncq_command_description())
        self.rd_source   = rd     = stream.Endpoint(ncq_read_description())
        self.wr_req      = wr_req = stream.Endpoint(ncq_write_request_description())
        self.wr_sink     = wr     = stream.Endpoint([("data", 32)])
        self.outstanding = outstanding = Signal(32)
        self.done        = Signal(32)
        self.error           = Signal()
        self.error_reason    = Signal(3)
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
        # Transport side.
        self.tx      = tx = stream.Endpoint(transport_tx_description(32))
        self.rx      = rx = stream.Endpoint(transport_rx_description(32))
        self.tx_ok   = Signal()       # link: our frame was taken (R_OK)
        self.tx_err  = Signal()       # link: our frame was refused (R_ERR) or aborted
        self.tx_active = Signal()     # the layer drives ``tx``

        # # #

        def rx_is(name):
            return rx.type == fis_types[name]

        # Phases the drive opened with a DMA Setup.
        rd_open, rd_tag, rd_left = Signal(), Signal(5), Signal(24)
        wr_open, wr_tag, wr_left, wr_offset = Signal(), Signal(5), Signal(24), Signal(23)
        activate = Signal()           # the drive wants the next write Data FIS
        # Error handling: a queued command failed, log 10h still to be read.
        err_pending  = Signal()
        err_refused  = Signal()       # it was a Register D2H answer, not an SDB
        # Reply to the command FIS in flight (Register D2H, BSY clear or ERR).
        reply_ok, reply_err = Signal(), Signal()
        # Log 10h, as the RX takes it in.
        log_pio, log_ok, log_bad = Signal(), Signal(), Signal()
        log_dw = [Signal(32) for _ in range(4)]    # bytes 0-15 of the page
        log_n  = Signal(8)
        log_sum = Signal(8)

        # The command in flight.
        c_write, c_fua, c_tag = Signal(), Signal(), Signal(5)
        c_lba, c_count = Signal(48), Signal(16)
        c_bit = Signal(32)
        self.comb += c_bit.eq(1 << c_tag)

        # Control from the two FSMs to the shared registers (updated in one place below).
        tx_cmd_taken = Signal()       # our command FIS was taken: its tag is outstanding
        wr_fis_sent  = Signal()       # a write Data FIS ended; wr_n dwords went
        report       = Signal()       # the error is reported now
        timed_out    = Signal()
        reason_now   = Signal(3)
        rx_d2h_reply = Signal()
        rx_activate  = Signal()
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
                NextState("WR_REQ")
            ).Elif(sink.valid & tag_free & ~self.hold,
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
        txfsm.act("CMD_ACK",
            If(self.tx_ok,
                tx_cmd_taken.eq(1),
                NextState("REPLY")
            ).Elif(self.tx_err,
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
        txfsm.act("WR_DATA",
            tx.valid.eq(wr.valid),
            tx.last.eq((wr_cnt == wr_n - 1) | wr.last),
            wr.ready.eq(tx.ready),
            If(wr.valid & wr.ready,
                NextValue(wr_cnt, wr_cnt + 1),
                If(tx.last,
                    wr_fis_sent.eq(1),
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
            If(self.tx_ok,
                NextState("LOG_WAIT")
            ).Elif(self.tx_err,
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

        # RX: answers, read data, log 10h ------------------------------------------------------
        self.rxfsm = rxfsm = FSM(reset_state="IDLE")
        rxfsm.act("IDLE",
            If(rx.valid,
                If(rx_is("DATA"),
                    If(rd_open,
                        NextState("READ_DATA")
                    ).Elif(log_pio,
                        NextState("LOG_DATA")
                    ).Else(
                        NextState("DROP")
                    )
                ).Else(
                    rx.ready.eq(1),
                    If(rx_is("REG_D2H"),
                        rx_d2h_reply.eq(1)
                    ).Elif(rx_is("DMA_ACTIVATE_D2H"),
                        rx_activate.eq(1)
                    ).Elif(rx_is("PIO_SETUP_D2H") & log_wait,
                        If(rx.status[0],
                            rx_log_fail.eq(1)
                        ).Else(
                            rx_log_pio.eq(1)
                        )
                    )
                )
            )
        )
        rxfsm.act("READ_DATA",
            rd.valid.eq(rx.valid),
            rx.ready.eq(rd.ready),
            If(rx.valid & rx.ready,
                rd_beat.eq(1),
                If(rx.last,
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
                NextValue(log_sum, log_sum_next),
                *[If(log_n == i, NextValue(log_dw[i], rx.data)) for i in range(4)],
                If(rx.last,
                    rx_log_end.eq(1),
                    If((log_n != 127) | (log_sum_next != 0) | rx.error,
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
            rd.data.eq(rx.data),
            rd.tag.eq(rd_tag),
            rd.error.eq(rx.error & rx.last),
            rd.last.eq(rd_left == 1),
        ]

        # Shared state ------------------------------------------------------------------------
        in_reply = txfsm.ongoing("CMD_ACK") | txfsm.ongoing("REPLY")
        d2h_err = rx.status[0]
        setup = fis_rx.setup & (outstanding >> fis_rx.setup_tag)[0]
        sdb_err = fis_rx.sdb & fis_rx.sdb_status[0] & (outstanding != 0)
        log_tag_nq = log_dw[0][7]
        log_good = log_ok & ~log_bad

        self.comb += [
            self.done.eq(Mux(fis_rx.sdb, fis_rx.sdb_sactive & outstanding, 0)),
            self.error.eq(report | timed_out),
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
            ).Elif(timed_out,
                If(txfsm.ongoing("CMD") | in_reply,
                    reason_now.eq(NCQ_REASON["TIMEOUT_CMD"])
                ).Elif(txfsm.ongoing("LOG_CMD") | log_wait,
                    reason_now.eq(NCQ_REASON["TIMEOUT_LOG"])
                ).Elif(rd_open | wr_open | ~txfsm.ongoing("IDLE") | ~rxfsm.ongoing("IDLE"),
                    reason_now.eq(NCQ_REASON["TIMEOUT_DATA"])
                ).Else(
                    reason_now.eq(NCQ_REASON["TIMEOUT_SDB"])
                ),
                self.aborted.eq(outstanding),
            ),
        ]

        self.sync += [
            # Tags.
            If(report | timed_out,
                outstanding.eq(0)
            ).Else(
                outstanding.eq((outstanding | Mux(tx_cmd_taken, c_bit, 0)) &
                               ~Mux(fis_rx.sdb, fis_rx.sdb_sactive, 0))
            ),
            # The answer to our command FIS.
            If(clear_cmd,
                reply_ok.eq(0), reply_err.eq(0)
            ).Elif(rx_d2h_reply & in_reply,
                reply_ok.eq(~d2h_err), reply_err.eq(d2h_err)
            ),
            # NCQ error: to be recovered through log 10h.
            If(report | timed_out,
                err_pending.eq(0), err_refused.eq(0)
            ).Elif(sdb_err,
                err_pending.eq(1), err_refused.eq(0)
            ).Elif(rx_d2h_reply & d2h_err & ~log_wait & ~err_pending,
                err_pending.eq(1), err_refused.eq(1)
            ),
            # Read phase.
            If(setup & fis_rx.setup_d,
                rd_open.eq(1), rd_tag.eq(fis_rx.setup_tag), rd_left.eq(fis_rx.setup_count[2:26])
            ).Elif(rd_beat,
                rd_left.eq(rd_left - 1),
                If(rd_left == 1, rd_open.eq(0))
            ),
            # Write phase.
            If(setup & ~fis_rx.setup_d,
                wr_open.eq(1), wr_tag.eq(fis_rx.setup_tag), wr_left.eq(fis_rx.setup_count[2:26]),
                wr_offset.eq(0), activate.eq(fis_rx.setup_a)
            ).Elif(wr_fis_sent,
                wr_left.eq(wr_left - (wr_cnt + 1)),
                wr_offset.eq(wr_offset + wr_cnt + 1),
                If(wr_left == wr_cnt + 1, wr_open.eq(0))
            ).Elif(txfsm.ongoing("WR_REQ"),
                activate.eq(0)
            ).Elif(rx_activate & wr_open,
                activate.eq(1)
            ),
            # Log 10h.
            If(log_start,
                log_pio.eq(0), log_ok.eq(0), log_bad.eq(0), log_n.eq(0), log_sum.eq(0)
            ).Else(
                If(rx_log_pio, log_pio.eq(1)),
                If(rx_log_end, log_ok.eq(1), log_pio.eq(0)),
                If(rx_log_fail | (rx_d2h_reply & d2h_err & log_wait), log_bad.eq(1)),
            ),
            # An error or a timeout ends every phase (the drive dropped them).
            If(sdb_err | log_start | timed_out,
                rd_open.eq(0), wr_open.eq(0), activate.eq(0)
            ),
        ]

        # Every wait has a limit: the silence counter restarts on any progress.
        busy = Signal()
        silence = Signal(32)
        progress = (rx.valid & rx.ready) | fis_rx.setup | fis_rx.sdb | (tx.valid & tx.ready) | \
                   self.tx_ok | self.tx_err | (wr_req.valid & wr_req.ready)
        self.comb += [
            busy.eq((outstanding != 0) | ~txfsm.ongoing("IDLE") | ~rxfsm.ongoing("IDLE") |
                    err_pending | rd_open | wr_open),
            self.busy.eq(busy),
            timed_out.eq(busy & (silence >= self.timeout)),
        ]
        self.sync += [
            If(~busy | progress | timed_out,
                silence.eq(0)
            ).Else(
                silence.eq(silence + 1)
            )
        ]
        # A timeout leaves every wait (the caller resets the core: see the docstring).
        for fsm in (txfsm, rxfsm):
            for state in fsm.actions:
                if state != "IDLE":
                    fsm.act(state, If(timed_out, NextState("IDLE")))


class ECPSATAQueueShare(LiteXModule):
    """Puts `ECPSATANCQ` beside the non-queued command layer of an ECPSATACore.

    The queued layer owns the transport (its TX when it is sending, the received FISes while it
    is busy). A non-queued command presented on the user port while the queue is busy is refused:
    its beats are taken and one end beat with ``failed`` answers it (``refused`` pulses); it never
    reaches the drive, which would abort every queued command for it. While a non-queued command
    is in flight the queue holds its next command.
    """
    def __init__(self, link, transport, rx_fis, command_tx_description):
        self.fis_rx = ECPSATAQueueFISRX(link)
        self.ncq = ncq = ECPSATANCQ(self.fis_rx)
        # What the non-queued command layer sees in place of the transport.
        self.cmd_tx = cmd_tx = stream.Endpoint(transport_tx_description(32))
        self.cmd_rx = cmd_rx = stream.Endpoint(transport_rx_description(32))
        self.refused = Signal()
        self.rx_fis, self.transport = rx_fis, transport
        self.command_tx_description = command_tx_description

    def attach(self, command):
        """Wires the non-queued command layer; returns the user port (sink, source)."""
        ncq, transport, rx_fis = self.ncq, self.transport, self.rx_fis
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
                rx_fis.connect(ncq.rx)
            ).Else(
                rx_fis.connect(self.cmd_rx)
            ),
        ]
        # A non-queued command is in flight from its command FIS to its end beat.
        nq_busy = Signal()
        nq_end = command.source.valid & command.source.ready & command.source.end
        self.sync += [
            If(command.tx.fsm.ongoing("IDLE") & command.sink.valid,
                nq_busy.eq(1)
            ).Elif(nq_end,
                nq_busy.eq(0)
            )
        ]
        is_write, is_read, is_identify = Signal(), Signal(), Signal()
        self.gate = gate = FSM(reset_state="PASS")
        gate.act("PASS",
            If(sink.valid & ~nq_busy & ncq.busy,
                NextValue(is_write, sink.write),
                NextValue(is_read, sink.read),
                NextValue(is_identify, sink.identify),
                NextState("DRAIN")
            ).Else(
                sink.connect(command.sink),
                command.source.connect(source),
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
                NextState("PASS")
            )
        )
        self.comb += ncq.hold.eq(nq_busy | (sink.valid & ~ncq.busy))
        return sink, source
