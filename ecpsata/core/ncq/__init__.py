# SPDX-License-Identifier: BSD-2-Clause
"""Native Command Queuing, host side: READ / WRITE FPDMA QUEUED with tags, the DMA Setup and Set
Device Bits FISes, per-tag completion and the NCQ error recovery through READ LOG EXT log 10h.

Ref: SATA 3.x §13.6 (Native Command Queuing), §10.3.6 (Set Device Bits FIS), §10.3.8 (DMA Setup
FIS); ACS-3 §7.20 / 7.61 (READ / WRITE FPDMA QUEUED), READ LOG EXT and the NCQ Command Error log
(10h).

Two pieces, on our transport layer (ecpsata/core/transport.py decodes the DMA Setup and Set Device
Bits FISes with the others):

- `ECPSATANCQ` is the queued command layer (interface in its docstring): layer.py, its parts in
  state.py (the shared state and its registers), tx.py (the TX FSM), rx.py (the RX FSM), tags.py
  (the per-tag rules) and recovery.py (giving up, the error report);
- `ECPSATAQueueShare` (share.py) puts it beside the non-queued command layer of an
  `ECPSATACore(ncq=True)`: the queue owns the transport while it has anything in hand, and a
  non-queued command presented then is refused (answered as failed, never sent: the drive would
  abort the whole queue).

common.py has the constants, the stream layouts of the user side and `fpdma_h2d_fields`. Every
name is imported from here: ``from ecpsata.core.ncq import ECPSATANCQ``.
"""

from ecpsata.core.ncq.common import (DEVICE_FPDMA, DEVICE_FUA, CMD_RETRIES, FIS_REFUSALS,
                                     LOG_DWORDS, fpdma_h2d_fields, ncq_command_description,
                                     ncq_read_description, ncq_write_request_description)
from ecpsata.core.ncq.layer import ECPSATANCQ
from ecpsata.core.ncq.share import ECPSATAQueueShare

__all__ = [
    "DEVICE_FPDMA", "DEVICE_FUA", "CMD_RETRIES", "FIS_REFUSALS", "LOG_DWORDS",
    "fpdma_h2d_fields", "ncq_command_description", "ncq_read_description",
    "ncq_write_request_description", "ECPSATANCQ", "ECPSATAQueueShare",
]
