# SPDX-License-Identifier: BSD-2-Clause
"""The SATA host core: link, transport and command layers (and, with ``ncq``, the queued command
layer beside the command layer). Its user side is a crossbar (ecpsata/frontend/crossbar.py):

    phy  = ECPSATAPHY(serdes, sys_clk_freq)
    core = ECPSATACore(phy, sys_clk_freq)
    xbar = ECPSATACrossbar(core)
    port = xbar.get_port()          # LiteSATA's frontends work on it unchanged

# Ref: Serial ATA Revision 3.x (link layer 9, transport layer 10, device command layer 11, Native
#      Command Queuing 13.6)
"""

from functools import reduce
from operator import or_
from types import SimpleNamespace

from migen import *

from litex.gen import LiteXModule

from ecpsata.core.link import ECPSATALink
from ecpsata.core.transport import ECPSATATransport
from ecpsata.core.command import (ECPSATACommand, command_tx_description, SETTLE_TIME,
                                  COMMAND_TIMEOUT)
from ecpsata.core.common import FIS_REG_D2H


class ECPSATACore(LiteXModule):
    """Link (ecpsata/core/link.py), transport (ecpsata/core/transport.py) and command layer
    (ecpsata/core/command.py) on a PHY with LiteSATA's interface (``sink`` / ``source`` of
    ``phy_description(32)`` in sys). ``sink`` / ``source`` are the command layer's user side.

    With ``ncq``, the queued command layer (ecpsata/core/ncq/) sits beside the command layer:
    ``self.ncq`` is its interface, and a non-queued command presented while it has tags
    outstanding is refused (``self.ncq_share.refused``) instead of sent.

    Event pulses for the error registers (ecpsata/frontend/errors.py): ``fis_crc_error`` (a received
    frame failed its CRC), ``fis_rejected`` (the drive answered R_ERR to a frame of ours, or
    aborted it), ``cmd_retry`` (a command FIS went out again), ``rx_escape`` (the drive abandoned
    a frame it sent), ``rx_bad_seq`` (a frame ended without EOF), ``fis_unknown`` (a frame of a
    type SATA does not define), ``fis_bad_length``, ``fis_unexpected`` (a FIS refused in the
    command's state), ``fis_stray`` (a Register D2H outside a command), ``data_extra`` (data
    beyond a command's count), ``cmd_failed`` with ``cmd_reason`` (a non-queued command ended
    failed; CMD_REASONS), ``cmd_recovered`` (one completed after a refused frame).

    ``settle_time``: the longest wait for the drive's status after a failed transfer (seconds).
    ``command_timeout``: the reset value of ``cmd_timeout`` (seconds): the longest a non-queued
    command may take before the core ends it with TIMEOUT (``cmd_timeout`` is a 32-bit count of
    sys cycles a user may change at run time; 0 stands for the longest, never "off").

    More event pulses: ``fis_pm_denied`` (the drive asked for a power state: PMNAK), ``rx_overrun``
    (a frame lost dwords to a full receive buffer: the drive ignored HOLD), ``fis_too_long`` (a
    frame longer than any FIS; also in ``fis_bad_length``).
    """
    def __init__(self, phy, sys_clk_freq=75e6, ncq=False, settle_time=SETTLE_TIME,
                 command_timeout=COMMAND_TIMEOUT):
        self.link      = link = ECPSATALink(phy)
        self.transport = transport = ECPSATATransport(link)

        # # #

        if ncq:
            from ecpsata.core.ncq import ECPSATAQueueShare
            self.ncq_share = share = ECPSATAQueueShare(transport, command_tx_description(32),
                                                       sys_clk_freq)
            self.ncq = share.ncq
            self.command = ECPSATACommand(share.cmd_tx, share.cmd_fis, sys_clk_freq, settle_time,
                                          command_timeout=command_timeout)
            self.comb += [
                self.ncq.tx_ok.eq(link.tx_ok),
                self.ncq.tx_err.eq(link.tx_err),
                self.ncq.dmat.eq(link.dmat),
            ]
            self.sink, self.source = share.attach(self.command)
        else:
            self.command = ECPSATACommand(transport.sink, transport.rx, sys_clk_freq, settle_time,
                                          command_timeout=command_timeout)
            self.sink, self.source = self.command.sink, self.command.source
        cmd = self.command
        trx = transport.rx
        self.comb += [
            cmd.tx.tx_ok.eq(link.tx_ok),
            cmd.tx.tx_err.eq(link.tx_err),
            cmd.tx.dmat.eq(link.dmat),
            cmd.rx.rx_escape.eq(link.rx_escape),
        ]
        self.lba28_all = cmd.lba28_all
        self.cmd_timeout = cmd.timeout

        # Events.
        self.fis_crc_error  = link.rx_crc_error
        self.fis_rejected   = link.tx_err
        self.cmd_retry      = cmd.tx.cmd_retry
        self.rx_escape      = link.rx_escape
        self.rx_bad_seq     = link.rx_bad_seq
        self.fis_unknown    = trx.ev_unknown
        self.fis_too_long   = link.rx_too_long
        self.fis_bad_length = Signal()
        self.fis_pm_denied  = link.rx_pm_denied
        self.rx_overrun     = link.rx_overrun
        self.fis_unexpected = trx.ev_unexpected
        self.fis_stray      = Signal()
        self.data_extra     = Signal()
        self.cmd_failed     = cmd.rx.ev_failed
        self.cmd_reason     = cmd.rx.reason
        self.cmd_recovered  = cmd.rx.ev_recovered
        stray, extra = [cmd.rx.ev_stray], [cmd.rx.ev_extra]
        if ncq:
            stray.append(self.ncq.ev_stray)
            extra.append(self.ncq.ev_extra)
        self.comb += [
            self.fis_stray.eq(reduce_or(stray)),
            self.fis_bad_length.eq(trx.ev_bad_length | link.rx_too_long),
            self.data_extra.eq(reduce_or(extra)),
        ]
        # Every control FIS taken (not refused): the device's status as it arrives.
        self.d2h = SimpleNamespace(
            valid  = Signal(),
            status = trx.source.status,
            errors = trx.source.errors,
            lba    = trx.source.lba,
            count  = trx.source.count,
        )
        self.comb += self.d2h.valid.eq(trx.source.valid & trx.source.ready & ~trx.refuse &
                                       (trx.source.type == FIS_REG_D2H))


def reduce_or(signals):
    return reduce(or_, signals)
