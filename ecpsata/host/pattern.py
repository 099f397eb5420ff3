# SPDX-License-Identifier: BSD-2-Clause
"""The verification pattern on the host: the benchmark engine's (ecpsata/engines/common.py is the
reference both sides use), so data written by the engine can be checked through the sector buffer
and the other way round. Every dword is a function of (seed, LBA, dword index)."""

import struct

from ecpsata.engines.common import pattern_sector, SECTOR_DWORDS

DWORDS_PER_SECTOR = SECTOR_DWORDS


def sector_dwords(seed, lba):
    """The 128 dwords of sector `lba` for run seed `seed`."""
    return pattern_sector(seed, lba)


def pattern_bytes(seed, lba, count):
    """`count` sectors from `lba`, little-endian dwords as they sit on the drive."""
    out = bytearray()
    for s in range(count):
        out += struct.pack(f"<{SECTOR_DWORDS}I", *pattern_sector(seed, lba + s))
    return bytes(out)
