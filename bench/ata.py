"""ATA IDENTIFY DEVICE decoding (ACS: words 10-19 serial, 23-26 firmware, 27-46 model, 49, 60-61,
75, 76, 83, 100-103, 106, 217, 255)."""

import struct

SECTOR = 512


class IdentifyError(Exception):
    pass


def _string(words, first, count):
    raw = b"".join(struct.pack(">H", w) for w in words[first:first + count])
    return raw.decode("ascii", errors="replace").strip()


def parse_identify(words):
    """words: 256 16-bit values. Returns a dict; raises IdentifyError on a bad checksum."""
    if len(words) != 256:
        raise IdentifyError(f"IDENTIFY data has {len(words)} words, not 256")
    if words[255] & 0xFF == 0xA5:
        total = sum((w & 0xFF) + (w >> 8) for w in words) & 0xFF
        if total != 0:
            raise IdentifyError(f"IDENTIFY checksum failed (byte sum 0x{total:02x})")
    lba48 = bool(words[83] >> 10 & 1)
    if lba48:
        sectors = words[100] | words[101] << 16 | words[102] << 32 | words[103] << 48
    else:
        sectors = words[60] | words[61] << 16
    gens = [g for g, bit in ((1, 1), (2, 2), (3, 3)) if words[76] >> bit & 1]
    return {
        "model":       _string(words, 27, 20),
        "serial":      _string(words, 10, 10),
        "firmware":    _string(words, 23, 4),
        "sectors":     sectors,
        "bytes":       sectors * SECTOR,
        "lba48":       lba48,
        "ncq":         bool(words[76] >> 8 & 1),
        "queue_depth": (words[75] & 0x1F) + 1,
        "gens":        gens,
        "rotation":    words[217],
    }


def words_from_dwords(dwords):
    out = []
    for d in dwords:
        out += [d & 0xFFFF, d >> 16]
    return out
