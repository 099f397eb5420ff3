# SPDX-License-Identifier: BSD-2-Clause
"""The queued command layer's error recovery (a part of `ECPSATANCQ`, ecpsata/core/ncq/layer.py):
when the layer gives up (FIS_REFUSALS refusals in a row, a refusal the drive neither repeats nor
follows with another frame within REPEAT_TIME, a DMA Setup or read data that breaks the protocol,
the silence timeout in any wait), and the error report: after an NCQ error, log 10h's fields
(the failing tag and LBA, status, error) or LOG_FAILED; after giving up, PROTOCOL or the wait that
timed out; DATA_CRC for one tag. The NCQ_REASON codes are in ecpsata/core/common.py.

Ref: SATA 3.x §13.6 (Native Command Queuing); ACS-3 READ LOG EXT and the NCQ Command Error log
(10h).
"""

from migen import *

from ecpsata.core.common import NCQ_REASON
from ecpsata.core.ncq.common import FIS_REFUSALS


class NCQRecovery:
    """Mixin of `ECPSATANCQ`: ``_add_give_up`` makes ``s.give_up`` (everything ends now, the
    caller resets the core), ``_add_report`` the error outputs, ``_add_timeout`` the silence
    counter and ``busy``."""

    def _add_give_up(self, s, repeat_cycles):
        # FIS_REFUSALS refused frames in a row: the drive keeps breaking the protocol.
        refusals = Signal(max=FIS_REFUSALS + 1)
        s.give_up = give_up = Signal()
        self.sync += [
            If(~self.busy | s.rx_take | s.rd_beat | give_up,
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
            If(~self.busy | s.rx_take | s.rd_beat | give_up,
                unanswered.eq(0)
            ).Elif(self.rx_ev_refused,
                unanswered.eq(1)
            ),
            If(~unanswered | give_up,
                repeat.eq(0)
            ).Elif(~self.txfsm.ongoing("HT_DMAOTrans2") & (repeat != repeat_cycles),
                repeat.eq(repeat + 1)
            ),
        ]
        self.comb += [
            If(repeat == repeat_cycles, s.protocol.eq(1)),
            give_up.eq(s.timed_out | s.protocol | (refusals == FIS_REFUSALS)),
        ]

    def _add_report(self, s):
        rx, outstanding, txfsm, rxfsm = self.rx, self.outstanding, self.txfsm, self.rxfsm
        report, give_up, reason_now, log_dw = s.report, s.give_up, s.reason_now, s.log_dw
        log_tag_nq = log_dw[0][7]
        log_good = s.log_ok & ~s.log_bad
        self.comb += [
            self.done.eq(Mux(s.rx_sdb, rx.sactive & outstanding & ~s.data_bad, 0)),
            self.error.eq(report | give_up | s.crc_report),
            self.error_reason.eq(reason_now),
            If(report,
                If(~log_good,
                    reason_now.eq(NCQ_REASON["LOG_FAILED"])
                ).Elif(s.err_refused,
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
                If(~s.timed_out,
                    reason_now.eq(NCQ_REASON["PROTOCOL"])
                ).Elif(txfsm.ongoing("HT_CmdFIS") | s.in_reply,
                    reason_now.eq(NCQ_REASON["TIMEOUT_CMD"])
                ).Elif(txfsm.ongoing("LOG_CMD") | s.log_wait,
                    reason_now.eq(NCQ_REASON["TIMEOUT_LOG"])
                ).Elif(s.rd_open | s.wr_open | ~txfsm.ongoing("HT_HostIdle") |
                       ~rxfsm.ongoing("HT_HostIdle"),
                    reason_now.eq(NCQ_REASON["TIMEOUT_DATA"])
                ).Else(
                    reason_now.eq(NCQ_REASON["TIMEOUT_SDB"])
                ),
                self.aborted.eq(outstanding),
            ).Elif(s.crc_report,
                reason_now.eq(NCQ_REASON["DATA_CRC"]),
                self.error_tag_valid.eq(1),
                self.error_tag.eq(s.crc_tag),
            ),
        ]

    def _add_timeout(self, s):
        rx, tx, wr_req, txfsm, rxfsm = self.rx, self.tx, self.wr_req, self.txfsm, self.rxfsm
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
            busy.eq((self.outstanding != 0) | ~txfsm.ongoing("HT_HostIdle") |
                    ~rxfsm.ongoing("HT_HostIdle") |
                    s.err_pending | s.rd_open | s.wr_open),
            self.busy.eq(busy),
            s.timed_out.eq(busy & over),
        ]
        self.sync += [
            If(~busy | progress | s.give_up,
                silence.eq(0),
                over.eq(self.timeout == 0),
            ).Else(
                silence.eq(silence + 1),
                over.eq(silence + 1 >= self.timeout),
            )
        ]
        # Giving up leaves every wait (the caller resets the core: see the class's docstring).
        for fsm in (txfsm, rxfsm):
            for state in fsm.actions:
                if state != "HT_HostIdle":
                    fsm.act(state, If(s.give_up, NextState("HT_HostIdle")))
