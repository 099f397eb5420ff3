# SPDX-License-Identifier: BSD-2-Clause
"""The queued command layer's constants and stream layouts: the READ / WRITE FPDMA QUEUED Register
H2D FIS's fields (SATA 3.x §13.6.4; ACS-3 §7.20 / 7.61), the retry and refusal bounds, the size of
log 10h (ACS-3 READ LOG EXT, the NCQ Command Error log), and the user side's stream descriptions
(ecpsata/core/ncq/layer.py gives their meaning)."""

from litex.soc.interconnect import stream

from ecpsata.core.common import ATA_READ_FPDMA_QUEUED, ATA_WRITE_FPDMA_QUEUED

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
