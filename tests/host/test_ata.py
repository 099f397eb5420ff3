# SPDX-License-Identifier: BSD-2-Clause
"""IDENTIFY decoding and the verification pattern (host side)."""

import struct

import pytest

from ecpsata.host.ata import IdentifyError, parse_identify, words_from_dwords
from ecpsata.host.pattern import pattern_bytes, sector_dwords


def ata_string(text, nwords):
    raw = text.ljust(2 * nwords).encode()
    return [struct.unpack(">H", raw[i:i + 2])[0] for i in range(0, len(raw), 2)]


def identify_words(lba48=True, sectors=2097152, checksum=True):
    w = [0] * 256
    w[10:20] = ata_string("SER123", 10)
    w[23:27] = ata_string("FW1", 4)
    w[27:47] = ata_string("Some Drive", 20)
    w[49] = 1 << 9
    w[60], w[61] = min(sectors, 0x0FFFFFFF) & 0xFFFF, min(sectors, 0x0FFFFFFF) >> 16
    w[75] = 31
    w[76] = (1 << 1) | (1 << 2) | (1 << 8)
    w[83] = 0x4000 | (int(lba48) << 10)   # bits 15:14 = 01: the word is valid
    for i in range(4):
        w[100 + i] = sectors >> (16 * i) & 0xFFFF if lba48 else 0
    w[217] = 1
    if checksum:
        w[255] = 0xA5
        s = sum((x & 0xFF) + (x >> 8) for x in w) & 0xFF
        w[255] |= ((-s) & 0xFF) << 8
    return w


def test_decode():
    d = parse_identify(identify_words())
    assert (d["model"], d["serial"], d["firmware"]) == ("Some Drive", "SER123", "FW1")
    assert d["sectors"] == 2097152 and d["lba48"] and d["ncq"] and d["queue_depth"] == 32
    assert d["gens"] == [1, 2] and d["rotation"] == 1


def test_28bit_capacity_from_words_60_61():
    d = parse_identify(identify_words(lba48=False, sectors=117210240))
    assert not d["lba48"] and d["sectors"] == 117210240


def with_checksum(w):
    w[255] = 0xA5
    s = sum((x & 0xFF) + (x >> 8) for x in w) & 0xFF
    w[255] |= ((-s) & 0xFF) << 8
    return w


@pytest.mark.parametrize("w83", [1 << 10, 0xC000 | 1 << 10, 0x8000 | 1 << 10, 0xFFFF])
def test_word_83_without_its_validity_bits_is_not_trusted(w83):
    # ACS-3 §7.12.7: bits 15:14 = 01 say word 83 is valid; otherwise bit 10 (LBA48) means nothing.
    w = identify_words(sectors=1 << 20, checksum=False)
    w[83] = w83
    d = parse_identify(with_checksum(w))
    assert d["lba48"] is False and d["sectors"] == 1 << 20   # words 60-61


def test_lba48_with_words_100_103_zero_falls_back_to_words_60_61():
    w = identify_words(sectors=1 << 20, checksum=False)
    w[100:104] = [0, 0, 0, 0]
    d = parse_identify(with_checksum(w))
    assert d["sectors"] == 1 << 20 and d["bytes"] == (1 << 20) * 512
    assert d["lba48"] is False   # no 48-bit capacity: 28-bit commands (as libata)


def test_bytes_use_the_logical_sector_size():
    # word 106: valid (15:14 = 01), bit 12 = logical sector longer than 256 words; 117-118 in words.
    w = identify_words(sectors=1 << 20, checksum=False)
    w[106] = 0x4000 | 1 << 12
    w[117], w[118] = 2048, 0               # 2,048 words = 4,096 bytes
    d = parse_identify(with_checksum(w))
    assert d["sector_bytes"] == 4096 and d["bytes"] == (1 << 20) * 4096


@pytest.mark.parametrize("w106", [0, 1 << 12, 0xC000 | 1 << 12, 0x4000])
def test_logical_sector_size_is_512_unless_word_106_says_otherwise(w106):
    w = identify_words(sectors=1 << 20, checksum=False)
    w[106] = w106
    w[117], w[118] = 2048, 0
    d = parse_identify(with_checksum(w))
    assert d["sector_bytes"] == 512 and d["bytes"] == (1 << 20) * 512


def test_logical_sector_below_256_words_is_refused():
    w = identify_words(checksum=False)
    w[106] = 0x4000 | 1 << 12
    w[117], w[118] = 100, 0
    with pytest.raises(IdentifyError, match="logical sector"):
        parse_identify(with_checksum(w))


def test_word_49_lba_supported():
    assert parse_identify(identify_words())["lba"] is True
    w = identify_words(checksum=False)
    w[49] = 0                              # CHS only
    assert parse_identify(with_checksum(w))["lba"] is False


def test_bad_checksum_is_refused():
    w = identify_words()
    w[100] ^= 1
    with pytest.raises(IdentifyError, match="checksum"):
        parse_identify(w)


def test_words_from_dwords_low_half_first():
    assert words_from_dwords([0x22221111, 0x44443333]) == [0x1111, 0x2222, 0x3333, 0x4444]


def test_pattern_depends_on_seed_and_lba_only():
    a = pattern_bytes(7, 100, 3)
    assert len(a) == 3 * 512
    assert a[512:1024] == pattern_bytes(7, 101, 1)
    assert pattern_bytes(8, 100, 1) != a[:512]
    assert len(set(sector_dwords(7, 100))) == 128
