# SPDX-License-Identifier: BSD-2-Clause
"""The queued command layer's shared state (a part of `ECPSATANCQ`, ecpsata/core/ncq/layer.py):
the signals its parts share, and the registers the two FSMs drive through control pulses, updated
in one place: the tags outstanding, the answer to the command FIS in flight, the NCQ error
pending, the read and write phases the drive opened with a DMA Setup, and the progress of log 10h.

Ref: SATA 3.x §13.6 (Native Command Queuing), §10.3.8 (DMA Setup FIS); ACS-3 READ LOG EXT and
the NCQ Command Error log (10h).
"""

from migen import *


class NCQState:
    """Mixin of `ECPSATANCQ`: ``_add_state`` makes the shared signals (into ``s``),
    ``_add_registers`` their updates."""

    def _add_state(self, s):
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
        # its DMA Setup (tags.py).
        tag_sectors = Memory(16, 32)
        sectors_w = tag_sectors.get_port(write_capable=True)
        sectors_r = tag_sectors.get_port()                  # registered read
        self.specials += tag_sectors, sectors_w, sectors_r

        # Control from the two FSMs to the shared registers (updated in one place:
        # _add_registers).
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

        # Every name above goes to the parts as s.NAME. (Made as locals, as the layer's single
        # constructor made them: Migen names a signal after the variable it is assigned to,
        # and a tuple of attributes would name some that a tuple of locals leaves unnamed.)
        vars(s).update((k, v) for k, v in locals().items() if k not in ("self", "s"))

    def _add_registers(self, s):
        rx, outstanding = self.rx, self.outstanding
        txfsm, rxfsm = self.txfsm, self.rxfsm
        d2h_err = s.d2h_err
        sdb_err = s.rx_sdb & rx.status[0] & (outstanding != 0)
        self.sync += [
            # Tags.
            If(s.report | s.give_up,
                outstanding.eq(0)
            ).Else(
                outstanding.eq((outstanding | Mux(s.tx_cmd_taken, s.c_bit, 0)) &
                               ~Mux(s.rx_sdb, rx.sactive & ~s.data_bad, 0) & ~s.crc_bit)
            ),
            # The answer to our command FIS.
            If(s.clear_cmd,
                s.reply_ok.eq(0), s.reply_err.eq(0)
            ).Elif(s.rx_d2h_reply & s.in_reply,
                s.reply_ok.eq(~d2h_err), s.reply_err.eq(d2h_err)
            ),
            # NCQ error: to be recovered through log 10h.
            If(s.report | s.give_up,
                s.err_pending.eq(0), s.err_refused.eq(0)
            ).Elif(sdb_err,
                s.err_pending.eq(1), s.err_refused.eq(0)
            ).Elif(s.rx_d2h_reply & d2h_err & ~s.log_wait & ~s.err_pending,
                s.err_pending.eq(1), s.err_refused.eq(1)
            ),
            # Read phase.
            If(s.rx_setup & rx.d,
                s.rd_open.eq(1), s.rd_tag.eq(rx.tag), s.rd_left.eq(rx.dma_count[2:26]),
                s.rd_mask.eq(1 << rx.tag)
            ).Elif(s.rd_beat,
                s.rd_left.eq(s.rd_left - 1),
                If(s.rd_left == 1, s.rd_open.eq(0), s.rd_mask.eq(0))
            ),
            # Write phase.
            If(s.rx_setup & ~rx.d,
                s.wr_open.eq(1), s.wr_tag.eq(rx.tag), s.wr_left.eq(rx.dma_count[2:26]),
                s.wr_offset.eq(0), s.activate.eq(rx.a)
            ).Elif(s.wr_fis_sent,
                s.wr_left.eq(s.wr_left - (s.wr_cnt + 1)),
                s.wr_offset.eq(s.wr_offset + s.wr_cnt + 1),
                If(s.wr_left == s.wr_cnt + 1, s.wr_open.eq(0))
            ).Elif(txfsm.ongoing("WR_REQ"),
                s.activate.eq(0)
            ).Elif(s.rx_activate,
                s.activate.eq(1)
            ),
            # Log 10h: the DRQ blocks' PIO Setups, then their data.
            If(s.log_start,
                s.log_pio.eq(0), s.log_ok.eq(0), s.log_bad.eq(0), s.log_n.eq(0), s.log_sum.eq(0)
            ).Else(
                If(s.rx_log_pio, s.log_pio.eq(1), s.log_block.eq(rx.transfer_count[2:])),
                If(s.rx_log_end, s.log_ok.eq(1)),
                If(rxfsm.ongoing("LOG_DATA") & rx.valid & rx.last, s.log_pio.eq(0)),
                If(s.rx_log_fail | (s.rx_d2h_reply & d2h_err & s.log_wait), s.log_bad.eq(1)),
            ),
            # An error or giving up ends every phase (the drive dropped them).
            If(sdb_err | s.log_start | s.give_up,
                s.rd_open.eq(0), s.rd_mask.eq(0), s.wr_open.eq(0), s.activate.eq(0)
            ),
            # A DATA_CRC report ends its tag's phase (a Data FIS the drive abandoned left it
            # open). While a phase is open no DMA Setup opens another one.
            If(s.crc_report & s.rd_open & (s.rd_tag == s.crc_tag),
                s.rd_open.eq(0), s.rd_mask.eq(0)
            ),
            If(s.crc_report & s.wr_open & (s.wr_tag == s.crc_tag),
                s.wr_open.eq(0), s.activate.eq(0)
            ),
        ]
