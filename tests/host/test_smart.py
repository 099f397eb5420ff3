# SPDX-License-Identifier: BSD-2-Clause
"""SMART READ DATA / READ THRESHOLDS decoding and the SMART RETURN STATUS verdict, against pages
built byte by byte from the layout (revision word, 30 x 12-byte entries from byte 2, self-test
fields at 362-376, checksum in byte 511)."""

import json

import pytest

from ecpsata.host.smart import (SmartChecksumError, SmartError, SmartStatusError, attribute_name,
                                decode_temperature, flag_letters, format_attributes,
                                parse_smart_data, parse_thresholds, smart_status,
                                smart_status_from_fis, to_json)


def seal(page):
    """Set byte 511 so that all 512 bytes sum to 0 mod 256."""
    page[511] = 0
    page[511] = (-sum(page)) & 0xFF
    return bytes(page)


def data_page(entries, revision=0x0010, extra=None):
    """entries: (id, flags, value, worst, raw as an int or 6 bytes)."""
    p = bytearray(512)
    p[0], p[1] = revision & 0xFF, revision >> 8
    for slot, (ident, flags, value, worst, raw) in enumerate(entries):
        o = 2 + 12 * slot
        raw = raw if isinstance(raw, (bytes, list)) else raw.to_bytes(6, "little")
        p[o] = ident
        p[o + 1], p[o + 2] = flags & 0xFF, flags >> 8
        p[o + 3], p[o + 4] = value, worst
        p[o + 5:o + 11] = bytes(raw)
        p[o + 11] = 0
    for offset, byte in (extra or {}).items():
        p[offset] = byte
    return seal(p)


def threshold_page(pairs, revision=0x0010):
    p = bytearray(512)
    p[0], p[1] = revision & 0xFF, revision >> 8
    for slot, (ident, thr) in enumerate(pairs):
        p[2 + 12 * slot] = ident
        p[3 + 12 * slot] = thr
    return seal(p)


ENTRIES = [
    (1, 0x000F, 100, 100, 0),                                   # POSR--
    (5, 0x0033, 100, 100, 3),                                   # PO--CK
    (9, 0x0032, 95, 95, 12345),
    (12, 0x0032, 99, 99, 873),
    (194, 0x0022, 64, 47, bytes([36, 0, 20, 45, 0, 0])),        # current 36, min 20, max 45
    (197, 0x0012, 100, 100, 0),
    (199, 0x003E, 200, 200, 7),
    (241, 0x0032, 99, 99, 0x0123_4567_89AB),                    # a 48-bit count
    (242, 0x0032, 99, 99, 0xFFFF_FFFF_FFFF),
    (171, 0x0032, 100, 100, 5),                                 # no default name
]


def test_attributes_decoded_and_thresholds_matched_by_id():
    # The thresholds page lists IDs in another order than the data page: matching is by ID.
    thr = threshold_page([(199, 0), (5, 10), (1, 50), (194, 0), (9, 0)])
    d = parse_smart_data(data_page(ENTRIES), thr)
    assert d.revision == 0x10 and d.thresholds_revision == 0x10
    assert [a.id for a in d.attributes] == [1, 5, 9, 12, 194, 197, 199, 241, 242, 171]
    a1 = d.attribute(1)
    assert (a1.name, a1.flags, a1.value, a1.worst, a1.threshold) == (
        "Raw_Read_Error_Rate", 0x000F, 100, 100, 50)
    assert d.attribute(5).threshold == 10 and d.attribute(5).flag_letters == "PO--CK"
    assert d.attribute(12).threshold is None          # no threshold entry: THRESH '---'
    assert d.attribute(9).decoded == 12345 and d.attribute(9).name == "Power_On_Hours"
    assert d.attribute(241).decoded == 0x0123_4567_89AB
    assert d.attribute(242).raw_value == (1 << 48) - 1
    assert d.attribute(171).name == "Unknown_Attribute"
    with pytest.raises(KeyError, match="no SMART attribute 3 .Spin_Up_Time"):
        d.attribute(3)


def test_names_smartctl_uses():
    expect = {1: "Raw_Read_Error_Rate", 5: "Reallocated_Sector_Ct", 9: "Power_On_Hours",
              12: "Power_Cycle_Count", 177: "Wear_Leveling_Count", 194: "Temperature_Celsius",
              196: "Reallocated_Event_Count", 197: "Current_Pending_Sector",
              198: "Offline_Uncorrectable", 199: "UDMA_CRC_Error_Count",
              231: "Temperature_Celsius", 233: "Media_Wearout_Indicator",
              241: "Total_LBAs_Written", 242: "Total_LBAs_Read", 0xAB: "Unknown_Attribute"}
    assert {i: attribute_name(i) for i in expect} == expect
    # HDD-only and SSD-only names, given IDENTIFY word 217 (1 = solid state, 7200 = rpm).
    assert attribute_name(231, rotation=1) == "Unknown_SSD_Attribute"
    assert attribute_name(177, rotation=7200) == "Unknown_HDD_Attribute"
    assert attribute_name(177, rotation=1) == "Wear_Leveling_Count"


@pytest.mark.parametrize("flags, letters", [
    (0x0000, "------"), (0x0001, "P-----"), (0x0002, "-O----"), (0x0004, "--S---"),
    (0x0008, "---R--"), (0x0010, "----C-"), (0x0020, "-----K"), (0x003F, "POSRCK"),
    (0x0033, "PO--CK"), (0x0140, "------+"),
])
def test_flag_letters(flags, letters):
    assert flag_letters(flags) == letters


def test_when_failed():
    entries = [(1, 0x000F, 40, 40, 0),     # value below threshold: failing now
               (3, 0x0027, 51, 51, 0),     # value just above: fine
               (4, 0x0032, 50, 50, 0),     # value equal to threshold: failing now
               (7, 0x000F, 90, 30, 0),     # worst was below: in the past
               (9, 0x0032, 1, 1, 0)]       # threshold 0: never fails
    thr = threshold_page([(1, 50), (3, 50), (4, 50), (7, 45), (9, 0)])
    d = parse_smart_data(data_page(entries), thr)
    assert [a.when_failed for a in d.attributes] == [
        "FAILING_NOW", "", "FAILING_NOW", "In_the_past", ""]
    assert [a.id for a in d.failing_now] == [1, 4]


def test_checksum_error_raises_and_decodes_nothing():
    good = bytearray(data_page(ENTRIES))
    good[2 + 12 * 1 + 5] ^= 0x01         # one bit of attribute 5's raw value flipped in transit
    with pytest.raises(SmartChecksumError, match="SMART READ DATA page checksum failed"):
        parse_smart_data(bytes(good))
    bad_thr = bytearray(threshold_page([(1, 50)]))
    bad_thr[511] ^= 0xFF
    with pytest.raises(SmartChecksumError, match="THRESHOLDS page checksum failed"):
        parse_smart_data(data_page(ENTRIES), bytes(bad_thr))


def test_size_and_empty_page_refused():
    with pytest.raises(SmartError, match="511 bytes, not 512"):
        parse_smart_data(bytes(511))
    with pytest.raises(SmartError, match="all zeros"):          # sums to 0 but says nothing
        parse_smart_data(bytes(512))


@pytest.mark.parametrize("raw, expect", [
    ([36, 0, 0, 0, 0, 0], (36, None, None)),
    ([36, 0, 20, 45, 0, 0], (36, 20, 45)),       # min/max in bytes 2, 3
    ([36, 0, 45, 20, 0, 0], (36, 20, 45)),       # either order
    ([36, 20, 45, 0, 0, 0], (36, 20, 45)),       # bytes 1, 2
    ([36, 0, 20, 0, 45, 0], (36, 20, 45)),       # low bytes of words 1 and 2
    ([0xFB, 0xFF, 0xF6, 10, 0, 0], (-5, -10, 10)),   # below zero, sign-extended
    ([36, 0, 50, 60, 0, 0], (36, None, None)),   # 36 outside 50..60: not a min/max pair
    ([36, 0, 3, 0, 0, 7], (36, None, None)),     # stray byte 5: no layout fits
])
def test_temperature_layouts(raw, expect):
    assert decode_temperature(bytes(raw)) == expect


def test_raw_formats():
    entries = [(194, 0x22, 36, 50, bytes([36, 0, 20, 45, 0, 0])),
               (190, 0x22, 64, 50, bytes([36, 0, 50, 60, 0, 7])),          # no plausible pair
               (9, 0x32, 90, 90, bytes([0x10, 0x27, 0, 0, 0x34, 0x12])),   # 10000 h + bytes 4-5
               (5, 0x33, 100, 100, bytes([2, 0, 1, 0, 0, 0])),             # word 0, then 2, 1
               (240, 0x32, 100, 100, bytes([1, 0, 0, 9, 0, 0]))]           # 24 bits, then 5 4 3
    d = parse_smart_data(data_page(entries))
    assert d.attribute(194).raw_text == "36 (Min/Max 20/45)" and d.attribute(194).decoded == 36
    assert d.attribute(190).raw_text == "36 (7 0 60 50 0)"
    assert d.attribute(9).decoded == 10000 and d.attribute(9).raw_text == "10000 (4660)"
    assert d.attribute(5).decoded == 2 and d.attribute(5).raw_text == "2 (0 1)"
    assert d.attribute(240).decoded == 1 and d.attribute(240).raw_text == "1 (0 0 9)"


def test_power_on_hours_uses_32_bits():
    d = parse_smart_data(data_page([(9, 0x32, 1, 1, bytes([1, 0, 0, 1, 0, 0]))]))
    assert d.attribute(9).decoded == 0x0100_0001


def test_self_test_fields():
    extra = {362: 0x82, 363: 0x25, 364: 0x58, 365: 0x02, 367: 0x7B, 368: 0x03, 369: 0x00,
             370: 0x01, 372: 2, 373: 0xFF, 374: 5, 375: 0x2C, 376: 0x01}
    d = parse_smart_data(data_page(ENTRIES, extra=extra))
    assert (d.offline_status, d.self_test_status, d.offline_seconds) == (0x82, 0x25, 600)
    assert (d.short_test_minutes, d.extended_test_minutes, d.conveyance_test_minutes) == (2, 300, 5)
    j = to_json(d)
    assert j["self_test"]["status"] == 2 and j["self_test"]["remaining_percent"] == 50
    extra[373] = 90
    assert parse_smart_data(data_page(ENTRIES, extra=extra)).extended_test_minutes == 90


def test_format_attributes_table():
    thr = threshold_page([(1, 50), (5, 10), (199, 0)])
    entries = ENTRIES[:2] + [(199, 0x003E, 200, 200, 7), (194, 0x0022, 64, 47,
                                                          bytes([36, 0, 20, 45, 0, 0]))]
    text = format_attributes(parse_smart_data(data_page(entries), thr))
    lines = text.splitlines()
    assert lines[0] == "SMART Attributes Data Structure revision number: 16"
    assert lines[1].split() == ["ID#", "ATTRIBUTE_NAME", "FLAG", "VALUE", "WORST", "THRESH",
                                "FAIL", "RAW_VALUE"]
    assert lines[2].split() == ["1", "Raw_Read_Error_Rate", "POSR--", "100", "100", "050", "-",
                                "0"]
    assert lines[3].split() == ["5", "Reallocated_Sector_Ct", "PO--CK", "100", "100", "010",
                                "-", "3"]
    assert lines[4].split() == ["199", "UDMA_CRC_Error_Count", "-OSRCK", "200", "200", "000",
                                "-", "7"]
    assert lines[5].split() == ["194", "Temperature_Celsius", "-O---K", "064", "047", "---", "-",
                                "36", "(Min/Max", "20/45)"]
    # Columns line up under the header.
    assert lines[2].index("POSR--") == lines[1].index("FLAG")
    assert lines[2].index("100") == lines[1].index("VALUE")
    assert lines[3].rindex("3") == lines[1].index("RAW_VALUE")


def test_format_shows_failing_now():
    thr = threshold_page([(5, 10)])
    text = format_attributes(parse_smart_data(data_page([(5, 0x33, 9, 9, 900)]), thr))
    assert "FAILING_NOW" in text.splitlines()[2]


def test_json_is_json_ready():
    thr = threshold_page([(1, 50), (5, 10)])
    j = to_json(parse_smart_data(data_page(ENTRIES), thr))
    assert json.loads(json.dumps(j)) == j
    assert j["checksum_ok"] is True and j["revision"] == 16
    row = j["table"][1]
    assert row["id"] == 5 and row["name"] == "Reallocated_Sector_Ct" and row["thresh"] == 10
    assert row["flags"] == {"value": 0x33, "string": "PO--CK", "prefailure": True,
                            "updated_online": True, "performance": False, "error_rate": False,
                            "event_count": True, "auto_keep": True}
    assert row["raw"] == {"value": 3, "decoded": 3, "string": "3"}
    assert j["table"][4]["raw"]["decoded"] == 36 and j["table"][3]["thresh"] is None


def test_thresholds_page_alone():
    rev, thr = parse_thresholds(threshold_page([(1, 50), (5, 10), (1, 99)]))
    assert rev == 16 and thr == {1: 50, 5: 10}      # the first entry for an ID wins


@pytest.mark.parametrize("mid, high, verdict", [(0x4F, 0xC2, "PASSED"), (0xF4, 0x2C, "FAILED")])
def test_return_status(mid, high, verdict):
    assert smart_status(mid, high) == verdict
    fis = bytes([0x34, 0x40, 0x50, 0x00, 0x00, mid, high, 0xA0]) + bytes(12)
    assert smart_status_from_fis(fis) == verdict


@pytest.mark.parametrize("mid, high", [(0, 0), (0x4F, 0x2C), (0xF4, 0xC2), (0xC2, 0x4F)])
def test_return_status_unknown_is_an_error(mid, high):
    with pytest.raises(SmartStatusError, match=f"unknown: LBA mid/high {mid:02X}h/{high:02X}h"):
        smart_status(mid, high)


def test_return_status_needs_a_register_d2h_fis():
    with pytest.raises(SmartStatusError, match="not a Register D2H FIS"):
        smart_status_from_fis(bytes([0x27, 0, 0, 0, 0, 0x4F, 0xC2, 0]) + bytes(12))
