# SPDX-License-Identifier: BSD-2-Clause
"""TRIM's range entries (ecpsata/host/trim.py) against ACS-3's DATA SET MANAGEMENT layout: each
entry 8 bytes, LBA in bits 47:0, sector count in 63:48 (at most 65,535), 64 entries a block."""

from ecpsata.host import trim


def test_a_range_splits_into_entries_of_at_most_65535_sectors():
    assert trim.range_entries(10, 5) == [(10, 5)]
    assert trim.range_entries(0, 65535 * 2 + 3) == [(0, 65535), (65535, 65535), (131070, 3)]


def test_entries_are_packed_little_endian_with_the_count_on_top():
    data = trim.dsm_blocks([(0x123456789ABC, 0x0102), (7, 65535)], 1)
    assert len(data) == 512
    assert data[:8] == bytes([0xBC, 0x9A, 0x78, 0x56, 0x34, 0x12, 0x02, 0x01])
    assert data[8:16] == bytes([7, 0, 0, 0, 0, 0, 0xFF, 0xFF])
    assert data[16:] == bytes(496)


def test_blocks_per_command_follow_identify_word_105_within_the_buffer():
    assert trim.max_blocks({"dsm_max_blocks": 0}) == 1
    assert trim.max_blocks({"dsm_max_blocks": 8}) == 8
    assert trim.max_blocks({"dsm_max_blocks": 0xFFFE}) == 16
