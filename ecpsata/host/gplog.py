# SPDX-License-Identifier: BSD-2-Clause
"""General Purpose Logging decoders: the log directory (log 00h), Device Statistics (log 04h) and
the SATA Phy Event Counters (log 11h). Pure decoding, no drive access: the caller reads each
512-byte page with READ LOG EXT and hands in bytes.

Layouts:
- Log directory: word 0 the General Purpose Logging version, word N (bytes 2N, 2N+1) the number of
  pages at log address N. No checksum.
- Device Statistics: every page is 64 entries of 8 bytes, little-endian. Entry 0 is the header
  (bits 15:0 revision, bits 23:16 page number); page 00h then holds a count in byte 8 and the
  supported page numbers from byte 9. In a statistic entry bits 63:56 are flags: 63 supported,
  62 valid value, 61 normalized, 60 supports device statistics notification (DSN), 59 monitored
  condition met, 58 read then initialize supported; bits 55:0 carry the value, of a width each
  statistic defines. No checksum.
- Phy Event Counters: bytes 0-3 reserved, then counters from byte 4, each a 16-bit ID word (bit 15
  vendor specific, bits 14:12 the counter's size: 1, 2, 3, 4 = 16, 32, 48, 64 bits, bits 11:0 the
  identifier) followed by its value, until an ID of 0; byte 511 is the checksum (all 512 bytes sum
  to 0 mod 256). Counters stop at their maximum rather than wrap.

What a drive lacks is said by name (LogMissingError: "the drive has no Device Statistics log"),
never returned as zeros.

# Ref: ATA/ATAPI Command Set - 4 (ACS-4): General Purpose Log Directory, Device Statistics log
#      (9.5 in ACS-4, A.5 in ATA/ATAPI Command Set - 3 (ACS-3)), log address table
# Ref: Serial ATA Revision 3.x: Phy Event Counters log, counter identifiers
"""

from dataclasses import dataclass

from ecpsata.core.common import (LOG_DIRECTORY, LOG_DEVICE_STATISTICS,  # noqa: F401
                                 LOG_NCQ_COMMAND_ERROR, LOG_PHY_EVENT_COUNTERS)

PAGE_BYTES = 512

# Log addresses by their ACS-4 / SATA 3.x names (the ones a host is likely to meet).
LOG_NAMES = {
    0x00: "Log Directory",
    0x01: "Summary SMART Error log",
    0x02: "Comprehensive SMART Error log",
    0x03: "Extended Comprehensive SMART Error log",
    LOG_DEVICE_STATISTICS: "Device Statistics log",
    0x06: "SMART Self-Test log",
    0x07: "Extended SMART Self-Test log",
    0x08: "Power Conditions log",
    0x09: "Selective Self-Test log",
    0x0A: "Device Statistics Notification log",
    0x0C: "Pending Defects log",
    0x0D: "LPS Mis-alignment log",
    0x0F: "Sense Data for Successful NCQ Commands log",
    LOG_NCQ_COMMAND_ERROR: "NCQ Command Error log",
    LOG_PHY_EVENT_COUNTERS: "SATA Phy Event Counters log",
    0x12: "SATA NCQ Non-Data log",
    0x13: "SATA NCQ Send and Receive log",
    0x14: "Hybrid Information log",
    0x15: "Rebuild Assist log",
    0x19: "LBA Status log",
    0x21: "Write Stream Error log",
    0x22: "Read Stream Error log",
    0x24: "Current Device Internal Status Data log",
    0x25: "Saved Device Internal Status Data log",
    0x2F: "Sector Configuration log",
    0x30: "IDENTIFY DEVICE data log",
    0xE0: "SCT Command/Status log",
    0xE1: "SCT Data Transfer log",
}


class LogError(Exception):
    """A log page that cannot be decoded."""


class LogMissingError(LogError):
    """The drive has no such log, page or statistic (said by name)."""


class PageMismatchError(LogError):
    """The page's header names another page than the one asked for."""


class LogChecksumError(LogError):
    """The page's bytes do not sum to 0 mod 256: damaged on its way (worth reading again)."""


def log_name(address):
    if address in LOG_NAMES:
        return LOG_NAMES[address]
    if 0x80 <= address <= 0x9F:
        return "Host Specific log"
    if 0xA0 <= address <= 0xDF:
        return "Device Vendor Specific log"
    return "Reserved log"


def _page(page, what):
    page = bytes(page)
    if len(page) != PAGE_BYTES:
        raise LogError(f"{what} has {len(page)} bytes, not {PAGE_BYTES}")
    return page


def _word(page, i):
    return page[i] | page[i + 1] << 8


# Log directory ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class LogDirectory:
    """The General Purpose Log Directory: version and {log address: number of pages} (nonzero)."""
    version: int
    pages: dict

    def count(self, address):
        return self.pages.get(address, 0)

    def has(self, address):
        return self.count(address) > 0

    def require(self, address, page=0):
        """Raise LogMissingError unless the log exists and has page `page`."""
        n = self.count(address)
        if n == 0:
            raise LogMissingError(f"the drive has no {log_name(address)} (log {address:02X}h)")
        if page >= n:
            raise LogMissingError(f"the drive's {log_name(address)} (log {address:02X}h) has "
                                  f"{n} page(s), no page {page:02X}h")

    def logs(self):
        """[(address, name, pages)] for every log the drive lists, by address."""
        return [(a, log_name(a), n) for a, n in sorted(self.pages.items())]


def parse_log_directory(page):
    """Decode GP log 00h. Raises LogError for a wrong size, LogMissingError for a version of 0
    (a drive without General Purpose Logging)."""
    page = _page(page, "the General Purpose Log Directory")
    version = _word(page, 0)
    if version == 0:
        raise LogMissingError("the drive has no General Purpose Log Directory "
                              "(log 00h version word is 0)")
    pages = {a: _word(page, 2 * a) for a in range(1, 256) if _word(page, 2 * a)}
    return LogDirectory(version=version, pages=pages)


# Device Statistics --------------------------------------------------------------------------------

DEVSTAT_PAGE_NAMES = {
    0x00: "List of Supported Device Statistics Pages",
    0x01: "General Statistics",
    0x02: "Free-Fall Statistics",
    0x03: "Rotating Media Statistics",
    0x04: "General Errors Statistics",
    0x05: "Temperature Statistics",
    0x06: "Transport Statistics",
    0x07: "Solid State Device Statistics",
    0xFF: "Vendor Specific Statistics",
}

# {page: {byte offset: (name, value bits, signed, unit)}}; names as ACS-4 gives them.
_C = "Celsius"
DEVICE_STATISTICS = {
    0x01: {
        0x08: ("Lifetime Power-On Resets", 32, False, ""),
        0x10: ("Power-on Hours", 32, False, "hours"),
        0x18: ("Logical Sectors Written", 48, False, "sectors"),
        0x20: ("Number of Write Commands", 48, False, ""),
        0x28: ("Logical Sectors Read", 48, False, "sectors"),
        0x30: ("Number of Read Commands", 48, False, ""),
        0x38: ("Date and Time TimeStamp", 48, False, "ms"),
        0x40: ("Pending Error Count", 32, False, ""),
        0x48: ("Workload Utilization", 16, False, ""),
        0x50: ("Utilization Usage Rate", 48, False, ""),
        0x58: ("Resource Availability", 56, False, ""),
        0x60: ("Random Write Resources Used", 8, False, ""),
    },
    0x02: {
        0x08: ("Number of Free-Fall Events Detected", 32, False, ""),
        0x10: ("Overlimit Shock Events", 32, False, ""),
    },
    0x03: {
        0x08: ("Spindle Motor Power-on Hours", 32, False, "hours"),
        0x10: ("Head Flying Hours", 32, False, "hours"),
        0x18: ("Head Load Events", 32, False, ""),
        0x20: ("Number of Reallocated Logical Sectors", 32, False, ""),
        0x28: ("Read Recovery Attempts", 32, False, ""),
        0x30: ("Number of Mechanical Start Failures", 32, False, ""),
        0x38: ("Number of Reallocation Candidate Logical Sectors", 32, False, ""),
        0x40: ("Number of High Priority Unload Events", 32, False, ""),
    },
    0x04: {
        0x08: ("Number of Reported Uncorrectable Errors", 32, False, ""),
        0x10: ("Number of Resets Between Command Acceptance and Command Completion", 32, False, ""),
        0x18: ("Physical Element Status Changed", 32, False, ""),
    },
    0x05: {
        0x08: ("Current Temperature", 8, True, _C),
        0x10: ("Average Short Term Temperature", 8, True, _C),
        0x18: ("Average Long Term Temperature", 8, True, _C),
        0x20: ("Highest Temperature", 8, True, _C),
        0x28: ("Lowest Temperature", 8, True, _C),
        0x30: ("Highest Average Short Term Temperature", 8, True, _C),
        0x38: ("Lowest Average Short Term Temperature", 8, True, _C),
        0x40: ("Highest Average Long Term Temperature", 8, True, _C),
        0x48: ("Lowest Average Long Term Temperature", 8, True, _C),
        0x50: ("Time in Over-Temperature", 32, False, "minutes"),
        0x58: ("Specified Maximum Operating Temperature", 8, True, _C),
        0x60: ("Time in Under-Temperature", 32, False, "minutes"),
        0x68: ("Specified Minimum Operating Temperature", 8, True, _C),
    },
    0x06: {
        0x08: ("Number of Hardware Resets", 32, False, ""),
        0x10: ("Number of ASR Events", 32, False, ""),
        0x18: ("Number of Interface CRC Errors", 32, False, ""),
    },
    0x07: {
        0x08: ("Percentage Used Endurance Indicator", 8, False, "percent"),
    },
}

# Flag bits in byte 7 of a statistic (bits 63:56 of the entry).
DS_SUPPORTED = 0x80
DS_VALID = 0x40
DS_NORMALIZED = 0x20
DS_SUPPORTS_DSN = 0x10
DS_CONDITION_MET = 0x08
DS_READ_THEN_INIT = 0x04


def devstat_page_name(page):
    return DEVSTAT_PAGE_NAMES.get(page, "Unknown Statistics")


def _devstat_label(page):
    return f"Device Statistics page {page:02X}h ({devstat_page_name(page)})"


@dataclass(frozen=True)
class Statistic:
    """One device statistic. value is None unless the entry is supported and its value valid."""
    page: int
    offset: int
    name: str
    flags: int           # bits 63:56
    raw: int             # bits 55:0
    bits: int
    value: int | None
    unit: str = ""

    supported = property(lambda s: bool(s.flags & DS_SUPPORTED))
    valid = property(lambda s: bool(s.flags & DS_VALID))
    normalized = property(lambda s: bool(s.flags & DS_NORMALIZED))
    supports_dsn = property(lambda s: bool(s.flags & DS_SUPPORTS_DSN))
    condition_met = property(lambda s: bool(s.flags & DS_CONDITION_MET))
    read_then_initialize = property(lambda s: bool(s.flags & DS_READ_THEN_INIT))

    def as_dict(self):
        return {"page": self.page, "offset": self.offset, "name": self.name, "value": self.value,
                "unit": self.unit, "bits": self.bits, "flags": self.flags,
                "supported": self.supported, "valid": self.valid, "normalized": self.normalized,
                "supports_dsn": self.supports_dsn, "condition_met": self.condition_met}


@dataclass(frozen=True)
class DevStatPage:
    """A decoded Device Statistics page: the known statistics (supported or not) and any other
    entry the drive marks supported."""
    page: int
    revision: int
    statistics: tuple

    @property
    def name(self):
        return devstat_page_name(self.page)

    def get(self, name):
        """The statistic by its ACS-4 name; LogMissingError if the drive does not support it."""
        for s in self.statistics:
            if s.name == name:
                if not s.supported:
                    break
                return s
        raise LogMissingError(f"the drive does not report {name} ({_devstat_label(self.page)})")

    def value(self, name):
        """The statistic's value; LogMissingError if unsupported or not valid (yet)."""
        s = self.get(name)
        if s.value is None:
            raise LogMissingError(f"the drive has no valid value for {name} "
                                  f"({_devstat_label(self.page)}, offset {s.offset:02X}h)")
        return s.value

    def as_dict(self):
        return {"page": self.page, "name": self.name, "revision": self.revision,
                "statistics": [s.as_dict() for s in self.statistics if s.supported]}


def _devstat_header(data, page):
    data = _page(data, _devstat_label(page))
    revision, number = _word(data, 0), data[2]
    if number != page:
        raise PageMismatchError(f"Device Statistics: asked for page {page:02X}h "
                                f"({devstat_page_name(page)}), the page's header says "
                                f"{number:02X}h ({devstat_page_name(number)})")
    if revision == 0:
        raise LogError(f"{_devstat_label(page)}: revision 0000h, the page is not filled in")
    return data, revision


@dataclass(frozen=True)
class DevStatSupport:
    """Device Statistics page 00h: the pages the drive supports."""
    revision: int
    pages: tuple

    def require(self, page):
        if page not in self.pages:
            raise LogMissingError(f"the drive has no {_devstat_label(page)}")


def parse_devstat_supported(data):
    """Decode Device Statistics page 00h. Raises PageMismatchError, LogError."""
    data, revision = _devstat_header(data, 0x00)
    n = data[8]
    if 9 + n > PAGE_BYTES:
        raise LogError(f"{_devstat_label(0)}: {n} entries do not fit in the page")
    return DevStatSupport(revision=revision, pages=tuple(data[9:9 + n]))


def parse_devstat_page(data, page):
    """Decode Device Statistics page `page` (01h-FFh) as read from log 04h page `page`. Raises
    PageMismatchError when the header's page number differs, LogError for a bad size or a
    revision of 0."""
    if page == 0:
        raise LogError("page 00h is the list of pages: use parse_devstat_supported")
    data, revision = _devstat_header(data, page)
    known = DEVICE_STATISTICS.get(page, {})
    stats = []
    for offset in range(8, PAGE_BYTES, 8):
        entry = int.from_bytes(data[offset:offset + 8], "little")
        flags, raw = entry >> 56, entry & ((1 << 56) - 1)
        if offset in known:
            name, bits, signed, unit = known[offset]
        elif flags & DS_SUPPORTED:
            name = "Vendor Specific" if page == 0xFF else f"Unknown statistic at {offset:03X}h"
            bits, signed, unit = 56, False, ""
        else:
            continue
        value = None
        if flags & DS_SUPPORTED and flags & DS_VALID:
            value = raw & ((1 << bits) - 1)
            if signed and value >> (bits - 1):
                value -= 1 << bits
        stats.append(Statistic(page, offset, name, flags, raw, bits, value, unit))
    return DevStatPage(page=page, revision=revision, statistics=tuple(stats))


# SATA Phy Event Counters --------------------------------------------------------------------------

# Serial ATA Revision 3.x, Phy Event Counters log: counter identifiers 001h-013h (00Ch, 00Eh and
# 011h are not defined). 001h and 00Ah are mandatory.
PHY_EVENT_NAMES = {
    0x001: "Command failed and ICRC error bit set to one in Error register",
    0x002: "R_ERR response for Data FIS",
    0x003: "R_ERR response for Device-to-Host Data FIS",
    0x004: "R_ERR response for Host-to-Device Data FIS",
    0x005: "R_ERR response for Non-data FIS",
    0x006: "R_ERR response for Device-to-Host Non-data FIS",
    0x007: "R_ERR response for Host-to-Device Non-data FIS",
    0x008: "Device-to-Host Non-data FIS retries",
    0x009: "Transitions from drive PHYRDY to drive PHYRDYn",
    0x00A: "Signature Device-to-Host Register FISes sent due to a COMRESET",
    0x00B: "CRC errors within a Host-to-Device FIS",
    0x00D: "Non-CRC errors within a Host-to-Device FIS",
    0x00F: "R_ERR response for Host-to-Device Data FIS due to CRC errors",
    0x010: "R_ERR response for Host-to-Device Data FIS due to non-CRC errors",
    0x012: "R_ERR response for Host-to-Device Non-data FIS due to CRC errors",
    0x013: "R_ERR response for Host-to-Device Non-data FIS due to non-CRC errors",
}
PHY_VENDOR = 0x8000
PHY_SIZE_SHIFT = 12
PHY_SIZE_BITS = {1: 16, 2: 32, 3: 48, 4: 64}


def phy_event_name(ident, vendor=False):
    if vendor:
        return "Vendor specific"
    return PHY_EVENT_NAMES.get(ident, "Unknown (reserved identifier)")


@dataclass(frozen=True)
class PhyEvent:
    """One Phy event counter. id is the 12-bit identifier; saturated: the counter sits at its
    maximum (it stops there, so the true count may be higher)."""
    id: int
    vendor: bool
    bits: int
    value: int
    name: str

    @property
    def saturated(self):
        return self.value == (1 << self.bits) - 1

    def as_dict(self):
        return {"id": self.id, "vendor": self.vendor, "name": self.name, "bits": self.bits,
                "value": self.value, "saturated": self.saturated}


def parse_phy_events(page):
    """Decode GP log 11h into a list of PhyEvent in the page's order. Raises LogChecksumError
    for a bad checksum (before decoding anything), LogError for a size code outside 1-4 or a
    list that runs past byte 510 without its end marker."""
    page = _page(page, "the SATA Phy Event Counters log")
    total = sum(page) & 0xFF
    if total:
        raise LogChecksumError(f"SATA Phy Event Counters log checksum failed (byte sum "
                               f"0x{total:02x}, byte 511 0x{page[511]:02x}): not decoded")
    events, i = [], 4
    while True:
        if i + 2 > PAGE_BYTES - 1:
            raise LogError("SATA Phy Event Counters log: no end marker (ID 0) before byte 511")
        word = _word(page, i)
        ident, vendor = word & 0x0FFF, bool(word & PHY_VENDOR)
        if ident == 0 and not vendor:
            break
        code = word >> PHY_SIZE_SHIFT & 0x7
        if code not in PHY_SIZE_BITS:
            raise LogError(f"SATA Phy Event Counters log: counter {word:04X}h at byte {i} has size "
                           f"code {code} (bits 14:12 must be 1-4: 16, 32, 48 or 64 bits)")
        bits = PHY_SIZE_BITS[code]
        end = i + 2 + bits // 8
        if end > PAGE_BYTES - 1:
            raise LogError(f"SATA Phy Event Counters log: counter {word:04X}h at byte {i} runs "
                           f"into the checksum byte")
        value = int.from_bytes(page[i + 2:end], "little")
        events.append(PhyEvent(ident, vendor, bits, value, phy_event_name(ident, vendor)))
        i = end
    return events


def phy_events_by_id(events):
    """{identifier: value} of the standard (non-vendor) counters."""
    return {e.id: e.value for e in events if not e.vendor}
