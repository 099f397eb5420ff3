# SPDX-License-Identifier: BSD-2-Clause
"""The queued command layer's receive side (a part of `ECPSATANCQ`, ecpsata/core/ncq/layer.py):
the RX FSM judges every control FIS the transport presents (taken, or refused: R_ERR), takes in
the answers to the command FISes, the DMA Setup, DMA Activate and Set Device Bits FISes, passes
on the read data (every beat with its tag) and reads log 10h (PIO Setup and Data FIS in as many
DRQ blocks as the drive sends, its checksum summed on the way); a Data FIS with no phase open is
dropped.

Ref: SATA 3.x §13.6 (Native Command Queuing), §10.3.6 (Set Device Bits FIS), §10.3.8 (DMA Setup
FIS); ACS-3 READ LOG EXT and the NCQ Command Error log (10h).
"""

from migen import *

from ecpsata.core.common import (FIS_REG_D2H, FIS_DMA_ACTIVATE, FIS_PIO_SETUP, FIS_DMA_SETUP,
                                  FIS_SDB, FIS_DATA)
from ecpsata.core.ncq.common import LOG_DWORDS


class NCQRX:
    """Mixin of `ECPSATANCQ`: ``_add_rx`` makes ``self.rxfsm``, ``s.in_reply`` (our command FIS's
    answer awaited), ``s.d2h_err`` and ``s.rd_failed``."""

    def _add_rx(self, s):
        rx, rd, txfsm, outstanding = self.rx, self.rd_source, self.txfsm, self.outstanding
        log_wait = s.log_wait

        def rx_is(t):
            return rx.type == t

        s.in_reply = in_reply = txfsm.ongoing("HT_CmdTransStatus") | txfsm.ongoing("REPLY")
        s.d2h_err = d2h_err = rx.status[0]
        tag_out = (outstanding >> rx.tag)[0]
        # Set Device Bits completes only tags in flight whose whole transfer moved (the command's
        # bytes: not a read short of its data, nor a command with no DMA Setup at all), or whose
        # Data FIS failed (data_bad: reported as DATA_CRC, not done). The masks are registers: the
        # check is one LUT per tag and an OR-reduce on the way to the link's R_OK.
        sdb_tags = outstanding & (s.data_in | s.data_bad)
        sdb_ok  = (rx.sactive & ~sdb_tags) == 0
        pio_ok  = log_wait & rx.d & (rx.transfer_count[2:] != 0)
        # What each control FIS needs to be taken now.
        take_ok = Signal()
        self.comb += Case(rx.type, {
            FIS_REG_D2H:      take_ok.eq(1),
            FIS_DMA_ACTIVATE: take_ok.eq(self.rx_accept_activate),
            FIS_DMA_SETUP:    take_ok.eq(tag_out & ~s.rd_open & ~s.wr_open),
            FIS_SDB:          take_ok.eq(sdb_ok),
            FIS_PIO_SETUP:    take_ok.eq(pio_ok | (log_wait & rx.status[0])),
            "default":        take_ok.eq(0),
        })
        # The tags a DMA Setup is taken for (``rx_setup_mask``, for a PHY that answers one in its
        # word clock by its tag): until a FIS held against the mask is presented, nothing but
        # giving up (after which the caller resets the core) clears what ``take_ok`` needs of it:
        # the tags leave ``outstanding`` through an SDB (a FIS), a report (only with an error
        # pending) or a DATA_CRC report (a tag in ``crc_pend``), and the phases open only through
        # a DMA Setup (a FIS).
        if hasattr(self, "rx_setup_mask"):
            self.comb += self.rx_setup_mask.eq(
                Mux(s.rd_open | s.wr_open | s.err_pending, 0, outstanding & ~s.crc_pend))
        # The tags a Set Device Bits may complete (``rx_sdb_mask``, likewise, by its SActive):
        # until it is presented the mask only grows (data moves in; a tag leaves `outstanding`
        # only through a FIS, a report or giving up).
        if hasattr(self, "rx_sdb_mask"):
            self.comb += self.rx_sdb_mask.eq(sdb_tags)
        self.rxfsm = rxfsm = FSM(reset_state="HT_HostIdle")
        rxfsm.act("HT_HostIdle",
            If(rx.valid,
                If(rx_is(FIS_DATA),
                    If(s.rd_open,
                        NextState("HT_DMAITrans")
                    ).Elif(s.log_pio,
                        NextState("LOG_DATA")
                    ).Else(
                        NextState("DROP")
                    )
                ).Else(
                    rx.ready.eq(1),
                    self.rx_refuse.eq(~take_ok),
                    s.rx_take.eq(take_ok),
                )
            )
        )
        self.comb += If(s.rx_take,
            If(rx_is(FIS_REG_D2H),
                s.rx_d2h_reply.eq(1),
                self.ev_stray.eq(~in_reply & ~log_wait & ~d2h_err),
            ).Elif(rx_is(FIS_DMA_ACTIVATE),
                s.rx_activate.eq(1)
            ).Elif(rx_is(FIS_DMA_SETUP),
                s.rx_setup.eq(1)
            ).Elif(rx_is(FIS_SDB),
                s.rx_sdb.eq(1)
            ).Elif(rx_is(FIS_PIO_SETUP),
                If(pio_ok, s.rx_log_pio.eq(1)).Else(s.rx_log_fail.eq(1))
            )
        )
        s.rd_failed = Signal()        # a read Data FIS ends with `error` (CRC, or abandoned)
        rxfsm.act("HT_DMAITrans",
            rd.valid.eq(rx.valid & (s.rd_left != 0)),
            rx.ready.eq(rd.ready | (s.rd_left == 0)),
            If(rx.valid & rx.ready,
                s.rd_beat.eq(s.rd_left != 0),
                If(s.rd_left == 0, s.protocol.eq(1), self.ev_extra.eq(1)),
                If(rx.last,
                    s.rd_failed.eq(rx.error),
                    NextState("HT_HostIdle")
                )
            )
        )
        log_bytes = rx.data[0:8] + rx.data[8:16] + rx.data[16:24] + rx.data[24:32]
        log_sum_next = Signal(8)
        self.comb += log_sum_next.eq(s.log_sum + log_bytes)
        rxfsm.act("LOG_DATA",
            rx.ready.eq(1),
            If(rx.valid,
                NextValue(s.log_n, s.log_n + 1),
                NextValue(s.log_block, s.log_block - 1),
                NextValue(s.log_sum, log_sum_next),
                *[If(s.log_n == i, NextValue(s.log_dw[i], rx.data)) for i in range(4)],
                If(rx.last,
                    If(s.log_n == LOG_DWORDS - 1,
                        s.rx_log_end.eq(1),
                        If((s.log_block != 1) | (log_sum_next != 0) | rx.error,
                            s.rx_log_fail.eq(1)
                        )
                    ).Elif((s.log_block != 1) | rx.error | (s.log_n >= LOG_DWORDS),
                        s.rx_log_fail.eq(1)
                    ),
                    NextState("HT_HostIdle")
                )
            )
        )
        rxfsm.act("DROP",
            rx.ready.eq(1),
            If(rx.valid & rx.last,
                NextState("HT_HostIdle")
            )
        )
        self.comb += [
            self.rx_accept_data.eq(s.rd_open | s.log_pio),
            self.rx_accept_activate.eq(s.wr_open & ~s.activate & ~txfsm.ongoing("HT_DMAOTrans2")),
            rd.data.eq(rx.data),
            rd.tag.eq(s.rd_tag),
            rd.error.eq(rx.error & rx.last),
            rd.last.eq(s.rd_left == 1),
        ]
