# SPDX-License-Identifier: BSD-2-Clause
"""General Purpose Log Directory, Device Statistics and SATA Phy Event Counters decoding, against
pages built byte by byte from the ACS-4 and Serial ATA 3.x layouts."""

import pytest

from ecpsata.host.gplog import (LogChecksumError, LogError, LogMissingError, PageMismatchError,
                                log_name, parse_devstat_page, parse_devstat_supported,
                                parse_log_directory, parse_phy_events, phy_events_by_id)


def put16(p, at, value):
    p[at], p[at + 1] = value & 0xFF, value >> 8


# Log directory ------------------------------------------------------------------------------------

def directory_page(counts, version=0x0001):
    p = bytearray(512)
    put16(p, 0, version)
    for address, n in counts.items():
        put16(p, 2 * address, n)
    return bytes(p)


def test_log_directory():
    d = parse_log_directory(directory_page({0x04: 8, 0x10: 1, 0x11: 1, 0x30: 9, 0xE0: 1,
                                            0xA5: 0x0102}))
    assert d.version == 1
    assert d.count(0x04) == 8 and d.count(0xA5) == 258          # counts are 16-bit words
    assert d.has(0x11) and not d.has(0x03)
    assert d.logs() == [(0x04, "Device Statistics log", 8), (0x10, "NCQ Command Error log", 1),
                        (0x11, "SATA Phy Event Counters log", 1),
                        (0x30, "IDENTIFY DEVICE data log", 9),
                        (0xA5, "Device Vendor Specific log", 258),
                        (0xE0, "SCT Command/Status log", 1)]


def test_missing_log_is_named():
    d = parse_log_directory(directory_page({0x11: 1}))
    with pytest.raises(LogMissingError,
                       match=r"^the drive has no Device Statistics log \(log 04h\)$"):
        d.require(0x04)
    d.require(0x11)
    with pytest.raises(LogMissingError, match=r"has 1 page\(s\), no page 02h"):
        d.require(0x11, page=2)


def test_log_names():
    assert log_name(0x03) == "Extended Comprehensive SMART Error log"
    assert log_name(0x85) == "Host Specific log" and log_name(0x40) == "Reserved log"


def test_log_directory_without_gpl_and_bad_size():
    with pytest.raises(LogMissingError, match="no General Purpose Log Directory"):
        parse_log_directory(bytes(512))
    with pytest.raises(LogError, match="1024 bytes, not 512"):
        parse_log_directory(bytes(1024))


# Device Statistics --------------------------------------------------------------------------------

SUPPORTED, VALID, NORMALIZED, DSN, CONDITION = 0x80, 0x40, 0x20, 0x10, 0x08


def devstat_page(number, entries, revision=0x0001):
    """entries: {byte offset: (flags byte, value bytes 0-6 as an int)}."""
    p = bytearray(512)
    put16(p, 0, revision)
    p[2] = number
    for offset, (flags, value) in entries.items():
        p[offset:offset + 7] = value.to_bytes(7, "little")
        p[offset + 7] = flags
    return bytes(p)


def test_supported_pages():
    p = bytearray(devstat_page(0x00, {}))
    p[8] = 5
    p[9:14] = bytes([0x00, 0x01, 0x04, 0x05, 0x07])
    s = parse_devstat_supported(bytes(p))
    assert s.revision == 1 and s.pages == (0, 1, 4, 5, 7)
    s.require(0x07)
    with pytest.raises(LogMissingError,
                       match=r"^the drive has no Device Statistics page 03h "
                             r"\(Rotating Media Statistics\)$"):
        s.require(0x03)


def test_general_statistics():
    ok = SUPPORTED | VALID
    page = devstat_page(0x01, {
        0x08: (ok, 412),                                  # Lifetime Power-On Resets
        0x10: (ok, 0x1_0000_3039),                        # Power-on Hours: bits 31:0 only
        0x18: (ok, 0x1234_5678_9ABC),                     # Logical Sectors Written, 48 bits
        0x20: (ok, 77),
        0x28: (ok, 0x77_0000_0000_0005),                  # byte 6 beyond the 48-bit value
        0x30: (SUPPORTED, 999),                           # supported, value not valid yet
        0x40: (ok | CONDITION, 2),                        # Pending Error Count, condition met
        0x48: (ok | DSN | NORMALIZED, 0x00AB_CDEF),       # Workload Utilization, 16 bits
        0x68: (ok, 0x42),                                 # beyond the table: still reported
    })
    g = parse_devstat_page(page, 0x01)
    assert g.page == 1 and g.revision == 1 and g.name == "General Statistics"
    assert g.value("Lifetime Power-On Resets") == 412
    assert g.value("Power-on Hours") == 12345
    assert g.value("Logical Sectors Written") == 0x1234_5678_9ABC
    assert g.value("Number of Write Commands") == 77
    assert g.value("Logical Sectors Read") == 5
    reads = g.get("Number of Read Commands")
    assert reads.supported and not reads.valid and reads.value is None
    with pytest.raises(LogMissingError, match="no valid value for Number of Read Commands"):
        g.value("Number of Read Commands")
    with pytest.raises(LogMissingError,
                       match=r"does not report Date and Time TimeStamp "
                             r"\(Device Statistics page 01h \(General Statistics\)\)"):
        g.get("Date and Time TimeStamp")
    pending = g.get("Pending Error Count")
    assert pending.condition_met and not pending.supports_dsn and not pending.normalized
    work = g.get("Workload Utilization")
    assert work.value == 0xCDEF and work.supports_dsn and work.normalized and not work.condition_met
    unknown = [s for s in g.statistics if s.offset == 0x68]
    assert unknown[0].name == "Unknown statistic at 068h" and unknown[0].value == 0x42
    listed = [s["name"] for s in g.as_dict()["statistics"]]
    assert "Date and Time TimeStamp" not in listed and "Power-on Hours" in listed


def test_flag_bits_are_bits_63_to_59():
    # ACS-3/ACS-4: 63 supported, 62 valid, 61 normalized, 60 supports DSN, 59 condition met.
    page = devstat_page(0x07, {0x08: (0xF8, 3)})
    s = parse_devstat_page(page, 0x07).get("Percentage Used Endurance Indicator")
    assert (s.supported, s.valid, s.normalized, s.supports_dsn, s.condition_met) == (True,) * 5
    assert s.flags == 0xF8 and s.value == 3 and s.unit == "percent"


def test_temperature_statistics_are_signed():
    ok = SUPPORTED | VALID
    page = devstat_page(0x05, {0x08: (ok, 0x24), 0x20: (ok, 0x46), 0x28: (ok, 0xF6),
                               0x50: (ok, 15), 0x58: (ok, 70), 0x68: (ok, 0x100 - 5)})
    t = parse_devstat_page(page, 0x05)
    assert t.value("Current Temperature") == 36
    assert t.value("Highest Temperature") == 70
    assert t.value("Lowest Temperature") == -10
    assert t.value("Time in Over-Temperature") == 15
    assert t.value("Specified Maximum Operating Temperature") == 70
    assert t.value("Specified Minimum Operating Temperature") == -5
    with pytest.raises(LogMissingError, match="does not report Average Short Term Temperature"):
        t.get("Average Short Term Temperature")


def test_errors_transport_and_ssd_pages():
    ok = SUPPORTED | VALID
    e = parse_devstat_page(devstat_page(0x04, {0x08: (ok, 3), 0x10: (ok, 1)}), 0x04)
    assert e.value("Number of Reported Uncorrectable Errors") == 3
    assert e.value("Number of Resets Between Command Acceptance and Command Completion") == 1
    t = parse_devstat_page(devstat_page(0x06, {0x08: (ok, 4), 0x10: (ok, 0), 0x18: (ok, 21)}), 0x06)
    assert [t.value(n) for n in ("Number of Hardware Resets", "Number of ASR Events",
                                 "Number of Interface CRC Errors")] == [4, 0, 21]
    s = parse_devstat_page(devstat_page(0x07, {0x08: (ok, 0x1FF)}), 0x07)
    assert s.value("Percentage Used Endurance Indicator") == 0xFF     # 8 bits


def test_vendor_page():
    v = parse_devstat_page(devstat_page(0xFF, {0x08: (SUPPORTED | VALID, 0x1234)}), 0xFF)
    assert v.name == "Vendor Specific Statistics"
    assert [(s.name, s.value) for s in v.statistics] == [("Vendor Specific", 0x1234)]


def test_page_mismatch_names_both():
    with pytest.raises(PageMismatchError,
                       match=r"asked for page 05h \(Temperature Statistics\), the page's header "
                             r"says 07h \(Solid State Device Statistics\)"):
        parse_devstat_page(devstat_page(0x07, {}), 0x05)
    with pytest.raises(PageMismatchError, match="asked for page 00h"):
        parse_devstat_supported(devstat_page(0x01, {}))


def test_revision_zero_refused():
    with pytest.raises(LogError, match="revision 0000h"):
        parse_devstat_page(devstat_page(0x01, {}, revision=0), 0x01)


# SATA Phy Event Counters --------------------------------------------------------------------------

def phy_page(counters, tail=True, fix=True):
    """counters: (ID word, value); the value takes the size bits 14:12 give. Bytes 0-3 reserved."""
    p = bytearray(512)
    at = 4
    for word, value in counters:
        put16(p, at, word)
        size = 2 * (word >> 12 & 7)
        p[at + 2:at + 2 + size] = value.to_bytes(size, "little")
        at += 2 + size
    if tail:
        put16(p, at, 0)
    if fix:
        p[511] = (-sum(p[:511])) & 0xFF
    return bytes(p)


COUNTERS = [
    (0x1001, 2),                     # 16-bit, ID 001h
    (0x200A, 5),                     # 32-bit, ID 00Ah
    (0x3009, 0x0001_0000_0000),      # 48-bit, ID 009h
    (0x400B, 1 << 40),               # 64-bit, ID 00Bh
    (0x9ABC, 0xFFFF),                # vendor specific (bit 15), 16-bit, saturated
    (0x1011, 3),                     # 011h: no counter has this identifier
    (0x2013, 0xFFFF_FFFF),           # 32-bit, saturated
]


def test_phy_events():
    events = parse_phy_events(phy_page(COUNTERS))
    assert [(e.id, e.vendor, e.bits, e.value) for e in events] == [
        (0x001, False, 16, 2), (0x00A, False, 32, 5), (0x009, False, 48, 1 << 32),
        (0x00B, False, 64, 1 << 40), (0xABC, True, 16, 0xFFFF), (0x011, False, 16, 3),
        (0x013, False, 32, 0xFFFF_FFFF)]
    names = [e.name for e in events]
    assert names == [
        "Command failed and ICRC error bit set to one in Error register",
        "Signature Device-to-Host Register FISes sent due to a COMRESET",
        "Transitions from drive PHYRDY to drive PHYRDYn",
        "CRC errors within a Host-to-Device FIS",
        "Vendor specific",
        "Unknown (reserved identifier)",
        "R_ERR response for Host-to-Device Non-data FIS due to non-CRC errors"]
    assert [e.saturated for e in events] == [False, False, False, False, True, False, True]
    assert phy_events_by_id(events) == {1: 2, 0xA: 5, 9: 1 << 32, 0xB: 1 << 40, 0x11: 3,
                                        0x13: 0xFFFF_FFFF}


def test_phy_event_names_of_every_defined_id():
    ids = [0x002, 0x003, 0x004, 0x005, 0x006, 0x007, 0x008, 0x00D, 0x00F, 0x010, 0x012]
    events = parse_phy_events(phy_page([(0x1000 | i, 0) for i in ids]))
    assert [e.name for e in events] == [
        "R_ERR response for Data FIS",
        "R_ERR response for Device-to-Host Data FIS",
        "R_ERR response for Host-to-Device Data FIS",
        "R_ERR response for Non-data FIS",
        "R_ERR response for Device-to-Host Non-data FIS",
        "R_ERR response for Host-to-Device Non-data FIS",
        "Device-to-Host Non-data FIS retries",
        "Non-CRC errors within a Host-to-Device FIS",
        "R_ERR response for Host-to-Device Data FIS due to CRC errors",
        "R_ERR response for Host-to-Device Data FIS due to non-CRC errors",
        "R_ERR response for Host-to-Device Non-data FIS due to CRC errors"]


def test_empty_counter_list():
    assert parse_phy_events(phy_page([])) == []


def test_phy_checksum():
    page = bytearray(phy_page(COUNTERS))
    page[8] ^= 0x10
    with pytest.raises(LogChecksumError, match="checksum failed"):
        parse_phy_events(bytes(page))


@pytest.mark.parametrize("word, code", [(0x0001, 0), (0x5001, 5), (0x7001, 7)])
def test_phy_size_code_outside_1_to_4(word, code):
    p = bytearray(512)
    put16(p, 4, word)
    p[511] = (-sum(p[:511])) & 0xFF
    with pytest.raises(LogError, match=f"counter {word:04X}h at byte 4 has size code {code}"):
        parse_phy_events(bytes(p))


def test_phy_list_without_end_marker():
    # 125 16-bit counters and one 32-bit counter end exactly at byte 510: no room for the ID 0.
    page = phy_page([(0x1001, 1)] * 125 + [(0x2002, 1)], tail=False)
    with pytest.raises(LogError, match="no end marker"):
        parse_phy_events(page)
    # A 64-bit counter whose value would overlap the checksum byte.
    page = bytearray(phy_page([(0x4001, 1)] * 50, tail=False))    # 50 x 10 bytes: 4..503
    put16(page, 504, 0x4002)                                     # its 8 bytes would be 506..513
    page[511] = 0
    page[511] = (-sum(page)) & 0xFF
    with pytest.raises(LogError, match="counter 4002h at byte 504 runs into the checksum byte"):
        parse_phy_events(bytes(page))
