# SPDX-License-Identifier: BSD-2-Clause
"""The queued command layer's per-tag rules (a part of `ECPSATANCQ`, ecpsata/core/ncq/layer.py;
the rules are in its docstring, "Per-tag rules"): the DMA Setup check against the tag's command
(its sector count is kept in a 32-entry memory, state.py), the acks of write Data FISes, the
per-tag bits (DMA Setup seen, whole transfer moved, a Data FIS failed) and the DATA_CRC reports
of tags the drive completed although their data failed.

Ref: SATA 3.x §13.6 (Native Command Queuing), §10.3.8 (DMA Setup FIS), §10.3.6 (Set Device Bits
FIS).
"""

from functools import reduce
from operator import or_

from migen import *


class NCQTags:
    """Mixin of `ECPSATANCQ`: ``_add_tag_checks`` makes ``s.crc_bit`` (the tag a DATA_CRC report
    ends, as a bit)."""

    def _add_tag_checks(self, s):
        rx, wr_req, txfsm = self.rx, self.wr_req, self.txfsm

        # The DMA Setup check (SATA 3.x §10.3.8; SET FEATURES 10h/01h, non-zero buffer offsets,
        # is never enabled): the offset is zero, the count is the tag's command's bytes, and it is
        # the tag's only DMA Setup. The FIS's fields are registered in every cycle, the tag's
        # sectors read from memory at the same edge, compared in the next cycle (chk1), judged in
        # the one after (chk2): PROTOCOL then, before a write's data is asked for.
        expected_dwords = Signal(24)
        self.comb += [
            s.sectors_w.adr.eq(s.c_tag), s.sectors_w.dat_w.eq(s.c_count),
            s.sectors_w.we.eq(txfsm.ongoing("HT_CmdFIS")),
            s.sectors_r.adr.eq(rx.tag),
            expected_dwords.eq(Cat(C(0, 7), s.sectors_r.dat_r, s.sectors_r.dat_r == 0)),
            If(s.chk2 & s.chk_fail, s.protocol.eq(1)),
        ]
        self.sync += [
            s.chk_pre.eq((rx.dma_offset != 0) | (rx.dma_count[:2] != 0) |
                         (rx.dma_count[26:] != 0) | (s.setup_seen >> rx.tag)[0]),
            s.chk_dwords.eq(rx.dma_count[2:26]),
            s.chk_tag.eq(rx.tag),
            s.chk1.eq(s.rx_setup & ~s.give_up),
            s.chk2.eq(s.chk1 & ~s.give_up),
            s.chk_fail.eq(s.chk_pre | (s.chk_dwords != expected_dwords)),
        ]

        # A write Data FIS refused (R_ERR) or aborted by the drive: its ack is the link's next.
        wr_start = txfsm.ongoing("WR_REQ") & wr_req.ready
        self.sync += If(s.give_up,
            s.wr_ack.eq(0)
        ).Elif(wr_start,
            s.wr_ack.eq(1), s.wr_ack_tag.eq(s.wr_tag)
        ).Elif(self.tx_ok | self.tx_err,
            s.wr_ack.eq(0)
        )

        # Per-tag state.
        issue_bit = Mux(s.clear_cmd, s.c_bit, 0)
        rd_end = s.rd_beat & (s.rd_left == 1)
        wr_end = s.wr_fis_sent & (s.wr_left == s.wr_cnt + 1)
        self.sync += [
            s.setup_seen.eq((s.setup_seen & ~issue_bit) | Mux(s.chk1, 1 << s.chk_tag, 0)),
            s.data_in.eq((s.data_in & ~issue_bit) | Mux(rd_end, s.rd_mask, 0) |
                         Mux(wr_end, 1 << s.wr_tag, 0)),
            s.data_bad.eq((s.data_bad & ~issue_bit) | Mux(s.rd_failed, s.rd_mask, 0) |
                          Mux(self.tx_err & s.wr_ack, 1 << s.wr_ack_tag, 0)),
        ]

        # A Set Device Bits FIS completing a tag whose data failed: not done, reported as
        # DATA_CRC (one tag per report, the lowest first; the tag is outstanding until then).
        crc_low = Signal(32)
        crc_low_tag = Signal(5)
        s.crc_bit = crc_bit = Signal(32)
        crc_pend = s.crc_pend
        self.comb += [
            crc_low.eq(crc_pend & (~crc_pend + 1)),
            *[crc_low_tag[b].eq(reduce(or_, [crc_low[i] for i in range(32) if i >> b & 1]))
              for b in range(5)],
            crc_bit.eq(Mux(s.crc_report, 1 << s.crc_tag, 0)),
            s.crc_report.eq(s.crc_valid & ~s.report & ~s.give_up),
        ]
        self.sync += [
            If(s.report | s.give_up,
                crc_pend.eq(0), s.crc_valid.eq(0)
            ).Else(
                crc_pend.eq((crc_pend & ~crc_bit) | Mux(s.rx_sdb, rx.sactive & s.data_bad, 0)),
                If(s.crc_report,
                    s.crc_valid.eq(0)
                ).Elif(~s.crc_valid & (crc_pend != 0),
                    s.crc_valid.eq(1), s.crc_tag.eq(crc_low_tag)
                )
            )
        ]
