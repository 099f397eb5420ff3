"""The verification pattern: every dword is a function of (seed, LBA, dword index), so data
written by one run can be checked by any later read that knows the seed."""

import struct

DWORDS_PER_SECTOR = 128


def _mix(x):
    # A 32-bit integer hash (xorshift-multiply), cheap in gateware and in C.
    x &= 0xFFFFFFFF
    x ^= x >> 16
    x = (x * 0x7FEB352D) & 0xFFFFFFFF
    x ^= x >> 15
    x = (x * 0x846CA68B) & 0xFFFFFFFF
    x ^= x >> 16
    return x


def sector_dwords(seed, lba):
    base = _mix(seed ^ _mix(lba & 0xFFFFFFFF) ^ _mix((lba >> 32) + 0x9E3779B9))
    return [(base + i * 0x9E3779B9) & 0xFFFFFFFF for i in range(DWORDS_PER_SECTOR)]


def pattern_bytes(seed, lba, count):
    out = bytearray()
    for s in range(count):
        out += struct.pack("<128I", *sector_dwords(seed, lba + s))
    return bytes(out)
