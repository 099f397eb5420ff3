# SPDX-License-Identifier: BSD-2-Clause
"""`ECPSATANCQ`, the queued command layer: its interface and rules (the class's docstring), its
ports, and the order in which its parts are built.

Ref: SATA 3.x §13.6 (Native Command Queuing), §10.3.6 (Set Device Bits FIS), §10.3.8 (DMA Setup
FIS); ACS-3 §7.20 / 7.61 (READ / WRITE FPDMA QUEUED), READ LOG EXT and the NCQ Command Error log
(10h).

The layer is one Migen module; its logic is written in parts, each a mixin in a file of its own,
which the constructor calls in a fixed order:

- state.py: the state the parts share (the phases the drive opened, the per-tag bits, the command
  in flight, each tag's sector count, log 10h as it comes in, the control pulses of the two FSMs)
  and its registers, updated in one place;
- tx.py: the TX FSM: command FISes, write data, READ LOG EXT;
- rx.py: the RX FSM: every FIS judged; answers, DMA Setup, Set Device Bits, read data, log 10h;
- tags.py: the DMA Setup check, the acks of write Data FISes, the per-tag bits, DATA_CRC reports;
- recovery.py: giving up (refusals, a refusal the drive does not repeat, the silence timeout)
  and the error report (log 10h's fields, or why the layer gave up).
"""

from types import SimpleNamespace

from migen import *

from litex.gen import LiteXModule
from litex.soc.interconnect import stream

from litesata.common import transport_tx_description
from ecpsata.pipe import ReadyPipe
from ecpsata.core.transport import fis_rx_description
from ecpsata.core.command import REPEAT_TIME
from ecpsata.core.ncq.common import (ncq_command_description, ncq_read_description,
                                     ncq_write_request_description)
from ecpsata.core.ncq.state import NCQState
from ecpsata.core.ncq.tx import NCQTX
from ecpsata.core.ncq.rx import NCQRX
from ecpsata.core.ncq.tags import NCQTags
from ecpsata.core.ncq.recovery import NCQRecovery


class ECPSATANCQ(NCQState, NCQTX, NCQRX, NCQTags, NCQRecovery, LiteXModule):
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
    def __init__(self, repeat_cycles=int(REPEAT_TIME*75e6), early_setup=False):
        # The parts make every signal of the layer, none is made here: Migen names a signal after
        # the chain of calls that made it, and one depth for all of them (one call below this
        # constructor) keeps the names the layer's signals had when it was a single
        # constructor. The generated logic follows the order of the calls.
        s = SimpleNamespace()           # what the parts share: state.py's signals, and theirs
        self._add_ports(early_setup)
        self._add_state(s)              # state.py
        self._add_tx(s)                 # tx.py
        self._add_rx(s)                 # rx.py
        self._add_give_up(s, repeat_cycles)     # recovery.py
        self._add_tag_checks(s)         # tags.py
        self._add_report(s)             # recovery.py
        self._add_registers(s)          # state.py
        self._add_timeout(s)            # recovery.py

    def _add_ports(self, early_setup):
        """The ports of the class's docstring."""
        self.sink        = stream.Endpoint(ncq_command_description())
        self.rd_source   = stream.Endpoint(ncq_read_description())
        self.wr_req      = stream.Endpoint(ncq_write_request_description())
        # The write data comes in through a ready-pipe: the user's `ready` is a register, not the
        # end of a path through this layer, the transport and the link (zero added latency).
        self.wr_pipe     = ReadyPipe([("data", 32)])
        self.wr_sink     = self.wr_pipe.sink
        self.outstanding = Signal(32)
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
        self.tx      = stream.Endpoint(transport_tx_description(32))
        self.rx      = stream.Endpoint(fis_rx_description(32))
        self.rx_refuse      = Signal()    # out, with rx.ready: the FIS is refused
        self.rx_accept_data = Signal()    # out: a Data FIS may start
        self.rx_accept_activate = Signal()  # out: a DMA Activate arriving now would be taken
        self.rx_ev_refused  = Signal()    # in: the transport refused a frame (R_ERR)
        if early_setup:
            self.rx_setup_mask   = Signal(32) # out: a DMA Setup of one of these tags is taken
                                              # when presented (rx.py)
            self.rx_sdb_mask     = Signal(32) # out: a Set Device Bits whose SActive is among
                                              # these tags is taken when presented (rx.py)
        self.tx_ok   = Signal()       # link: our frame was taken (R_OK)
        self.tx_err  = Signal()       # link: our frame was refused (R_ERR) or aborted
        self.dmat    = Signal()       # link: the drive asks us to end the Data FIS
        self.tx_active = Signal()     # the layer drives ``tx``
