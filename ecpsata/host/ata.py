# SPDX-License-Identifier: BSD-2-Clause
"""ATA IDENTIFY DEVICE decoding (ACS: words 10-19 serial, 23-26 firmware, 27-46 model, 49, 60-61,
75, 76, 78-79, 82-85, 100-103, 106, 117-118, 217, 255).

# Ref: ATA/ATAPI Command Set - 3 (ACS-3), 7.12.7 IDENTIFY DEVICE data
"""

import struct

SECTOR = 512


class IdentifyError(Exception):
    pass


class IdentifyChecksumError(IdentifyError):
    """Word 255's checksum failed: the data was damaged on its way (worth reading again)."""


def _string(words, first, count):
    raw = b"".join(struct.pack(">H", w) for w in words[first:first + count])
    return raw.decode("ascii", errors="replace").strip()


def _valid(word):
    """Words 83, 84, 87, 106 carry bits 15:14 = 01 when their content is valid."""
    return word & 0xC000 == 0x4000


def parse_identify(words):
    """words: 256 16-bit values. Returns a dict; raises IdentifyError on a bad checksum or a
    logical sector below 256 words."""
    if len(words) != 256:
        raise IdentifyError(f"IDENTIFY data has {len(words)} words, not 256")
    if words[255] & 0xFF == 0xA5:
        total = sum((w & 0xFF) + (w >> 8) for w in words) & 0xFF
        if total != 0:
            raise IdentifyChecksumError(f"IDENTIFY checksum failed (byte sum 0x{total:02x})")
    # Words 83 and 106 are meaningful only when bits 15:14 read 01 (0000h and FFFFh mean "not
    # reported"); a drive that sets bit 10 but leaves words 100-103 at 0 is used with 28-bit
    # commands and the capacity of words 60-61, as Linux libata does.
    sectors48 = words[100] | words[101] << 16 | words[102] << 32 | words[103] << 48
    lba48 = _valid(words[83]) and bool(words[83] >> 10 & 1) and sectors48 != 0
    sectors = sectors48 if lba48 else words[60] | words[61] << 16
    sector_bytes = SECTOR
    if _valid(words[106]) and words[106] >> 12 & 1:
        logical_words = words[117] | words[118] << 16
        if logical_words < 256:
            raise IdentifyError(f"IDENTIFY words 117-118: logical sector of {logical_words} words "
                                f"(at least 256)")
        sector_bytes = 2 * logical_words
    gens = [g for g, bit in ((1, 1), (2, 2), (3, 3)) if words[76] >> bit & 1]
    # Words 82-87 and 78-79 mean nothing when they read 0000h or FFFFh (not reported).
    reported = lambda w: w not in (0x0000, 0xFFFF)
    bit = lambda w, b: bool(reported(words[w]) and words[w] >> b & 1)
    return {
        "model":       _string(words, 27, 20),
        "serial":      _string(words, 10, 10),
        "firmware":    _string(words, 23, 4),
        "sectors":     sectors,
        "bytes":       sectors * sector_bytes,
        "sector_bytes": sector_bytes,     # logical sector
        "lba":         bool(words[49] >> 9 & 1),
        "lba48":       lba48,
        "ncq":         bool(words[76] >> 8 & 1),
        "queue_depth": (words[75] & 0x1F) + 1,
        "gens":        gens,
        "rotation":    words[217],
        # Volatile write cache and read look-ahead: supported (word 82), enabled (word 85).
        "write_cache":         bit(82, 5),
        "write_cache_enabled": bit(85, 5),
        "look_ahead":          bit(82, 6),
        "look_ahead_enabled":  bit(85, 6),
        # Serial ATA features: supported (word 78), enabled (word 79).
        "auto_activate":         bit(78, 2),
        "auto_activate_enabled": bit(79, 2),
        "dipm":                  bit(78, 3),
        "dipm_enabled":          bit(79, 3),
        # Health: SMART (word 82 bit 0, enabled word 85), the General Purpose Logging feature
        # set (word 84 bit 5, valid), the SATA Phy Event Counters log (word 76 bit 10), TRIM
        # (word 169 bit 0), SANITIZE (word 59 bit 12).
        "smart":         bit(82, 0),
        "smart_enabled": bit(85, 0),
        "gpl":           _valid(words[84]) and bool(words[84] >> 5 & 1),
        "phy_events":    bool(reported(words[76]) and words[76] >> 10 & 1),
        "trim":          bool(words[169] & 1),
        # After TRIM: reads deterministic (word 69 bit 14), zeros (bit 5); blocks of range
        # entries per DATA SET MANAGEMENT command (word 105, 0: not reported).
        "trim_deterministic": bool(reported(words[69]) and words[69] >> 14 & 1),
        "trim_zeros":    bool(reported(words[69]) and words[69] >> 5 & 1),
        "dsm_max_blocks": words[105] if reported(words[105]) else 0,
        "sanitize":      bool(words[59] >> 12 & 1),
        "sanitize_block_erase": bool(words[59] >> 12 & 1 and words[59] >> 15 & 1),
        "sanitize_crypto": bool(words[59] >> 12 & 1 and words[59] >> 13 & 1),
    }


def check_usable(ident):
    """Refuse a drive this host cannot address or measure: the engine and the sector buffer send
    LBA commands and count 512-byte sectors."""
    if not ident["lba"]:
        raise IdentifyError("the drive does not support LBA addressing (IDENTIFY word 49 bit 9): "
                            "CHS-only drives are not supported")
    if ident["sector_bytes"] != SECTOR:
        raise IdentifyError(f"the drive has logical sectors of {ident['sector_bytes']} bytes "
                            f"(IDENTIFY words 106, 117-118): the bench moves {SECTOR}-byte sectors")


def words_from_dwords(dwords):
    out = []
    for d in dwords:
        out += [d & 0xFFFF, d >> 16]
    return out
