# SPDX-License-Identifier: BSD-2-Clause
"""The queued command layer's transmit side (a part of `ECPSATANCQ`, ecpsata/core/ncq/layer.py):
the TX FSM sends the READ / WRITE FPDMA QUEUED command FISes (again after R_ERR, up to
CMD_RETRIES), waits for the drive's Register D2H, asks the user for a write's Data FISes and
sends them (ended early on DMAT), and sends READ LOG EXT for log 10h after an NCQ error.

Ref: SATA 3.x §13.6 (Native Command Queuing), §13.6.4 (the FPDMA Register H2D FIS's fields);
ACS-3 §7.20 / 7.61 (READ / WRITE FPDMA QUEUED), READ LOG EXT and the NCQ Command Error log (10h).
"""

from migen import *

from litesata.common import fis_types
from ecpsata.core.common import (ATA_READ_FPDMA_QUEUED, ATA_WRITE_FPDMA_QUEUED, ATA_READ_LOG_EXT,
                                  LOG_NCQ_COMMAND_ERROR, DATA_FIS_MAX_DWORDS as fis_max_dwords)
from ecpsata.core.ncq.common import DEVICE_FPDMA, DEVICE_FUA, CMD_RETRIES


class NCQTX:
    """Mixin of `ECPSATANCQ`: ``_add_tx`` makes ``self.txfsm`` and ``s.log_wait`` (READ LOG EXT
    sent, log 10h awaited)."""

    def _add_tx(self, s):
        sink, tx, wr_req, wr = self.sink, self.tx, self.wr_req, self.wr_pipe.source
        tag_free = ~(self.outstanding >> sink.tag)[0]

        retries = Signal(max=CMD_RETRIES + 1)
        self.txfsm = txfsm = FSM(reset_state="HT_HostIdle")
        txfsm.act("HT_HostIdle",
            NextValue(retries, 0),
            If(s.err_pending,
                NextState("LOG_CMD")
            ).Elif(s.wr_open & s.activate,
                # (after the DMA Setup's check: auto-activate asks for the data with it)
                If(~s.chk1 & ~s.chk2, NextState("WR_REQ"))
            ).Elif(sink.valid & tag_free & ~self.hold & ~s.crc_valid,
                sink.ready.eq(1),
                NextValue(s.c_write, sink.write),
                NextValue(s.c_fua, sink.fua),
                NextValue(s.c_tag, sink.tag),
                NextValue(s.c_lba, sink.lba),
                NextValue(s.c_count, sink.count),
                NextState("HT_CmdFIS")
            )
        )
        txfsm.act("HT_CmdFIS",
            s.clear_cmd.eq(1),
            tx.valid.eq(1),
            If(tx.ready,
                NextState("HT_CmdTransStatus")
            )
        )
        # (The ack of a write Data FIS sent just before is that FIS's: acks come in order.)
        cmd_ok, cmd_err = Signal(), Signal()
        self.comb += [cmd_ok.eq(self.tx_ok & ~s.wr_ack), cmd_err.eq(self.tx_err & ~s.wr_ack)]
        txfsm.act("HT_CmdTransStatus",
            If(cmd_ok,
                s.tx_cmd_taken.eq(1),
                NextState("REPLY")
            ).Elif(cmd_err,
                If(retries == CMD_RETRIES,
                    s.tx_cmd_taken.eq(1),   # left to the timeout
                    NextState("REPLY")
                ).Else(
                    NextValue(retries, retries + 1),
                    NextState("HT_CmdFIS")
                )
            )
        )
        # The host sends no command while BSY is set: wait for the drive's Register D2H.
        txfsm.act("REPLY",
            If(s.reply_ok | s.reply_err,
                NextState("HT_HostIdle")
            )
        )
        txfsm.act("WR_REQ",
            wr_req.valid.eq(1),
            If(wr_req.ready,
                NextValue(s.wr_n, wr_req.dwords),
                NextValue(s.wr_cnt, 0),
                NextState("HT_DMAOTrans2")
            )
        )
        # The FIS ends at the request's length, at the user's `last`, or early when the drive
        # asks for it with DMAT; then the rest of the request is taken from the user and dropped
        # (the drive asks for it again, from its offset, with a DMA Activate, or fails the tag).
        txfsm.act("HT_DMAOTrans2",
            tx.valid.eq(wr.valid),
            tx.last.eq((s.wr_cnt == s.wr_n - 1) | wr.last | self.dmat),
            wr.ready.eq(tx.ready),
            If(wr.valid & wr.ready,
                NextValue(s.wr_cnt, s.wr_cnt + 1),
                If(tx.last,
                    s.wr_fis_sent.eq(1),
                    If((s.wr_cnt == s.wr_n - 1) | wr.last,
                        NextState("HT_HostIdle")
                    ).Else(
                        NextValue(s.wr_cnt, s.wr_cnt + 1),
                        NextState("WR_DROP")
                    )
                )
            )
        )
        txfsm.act("WR_DROP",
            wr.ready.eq(1),
            If(wr.valid,
                NextValue(s.wr_cnt, s.wr_cnt + 1),
                If((s.wr_cnt == s.wr_n - 1) | wr.last,
                    NextState("HT_HostIdle")
                )
            )
        )
        txfsm.act("LOG_CMD",
            s.log_start.eq(1),
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
            If(s.log_ok | s.log_bad,
                s.report.eq(1),
                NextState("HT_HostIdle")
            )
        )
        s.log_wait = txfsm.ongoing("LOG_ACK") | txfsm.ongoing("LOG_WAIT")

        wr_dwords = Signal(12)
        self.comb += [
            self.wr_sent.eq(txfsm.ongoing("HT_DMAOTrans2") & wr.valid & wr.ready),
            self.tx_active.eq(~txfsm.ongoing("HT_HostIdle")),
            wr_dwords.eq(Mux(s.wr_left >= fis_max_dwords, fis_max_dwords, s.wr_left)),
            wr_req.tag.eq(s.wr_tag),
            wr_req.offset.eq(s.wr_offset),
            wr_req.dwords.eq(wr_dwords),
            wr_req.last.eq(1),
            tx.data.eq(wr.data),
            If(txfsm.ongoing("HT_DMAOTrans2"),
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
                    tx.command.eq(Mux(s.c_write, ATA_WRITE_FPDMA_QUEUED, ATA_READ_FPDMA_QUEUED)),
                    tx.features.eq(s.c_count),
                    tx.lba.eq(s.c_lba),
                    tx.device.eq(DEVICE_FPDMA | Mux(s.c_fua, DEVICE_FUA, 0)),
                    tx.count.eq(s.c_tag << 3),
                )
            ),
        ]
