# SPDX-License-Identifier: BSD-2-Clause
"""SMART decoding: the SMART READ DATA and SMART READ THRESHOLDS pages, and the verdict of SMART
RETURN STATUS. Pure decoding, no drive access: the caller reads the pages and hands in bytes.

What the standards fix and what they leave to the vendor:
- the page is 512 bytes whose bytes sum to 0 mod 256 (byte 511 is the checksum); bytes 0-1 carry a
  revision; bytes 362-376 carry the off-line collection and self-test fields (ACS-3/ACS-4,
  "Device SMART data structure");
- bytes 2-361 are vendor specific in ACS. Every drive in practice fills them with 30 entries of 12
  bytes (ID, flags word, current value, worst value, 6-byte raw value, one reserved byte), the
  layout of SFF-8035i; the thresholds page (which later ATA standards mark obsolete, and drives
  still return) has 30 entries of 12 bytes (ID, threshold, 10 reserved);
- flag bits 0 (pre-failure) and 1 (updated on line) are from SFF-8035i; bits 2-5 (speed, error
  rate, event count, auto-keep) and every attribute name and raw-value format below are the
  conventions smartmontools' smartctl prints, since the standards name no attribute.

A page whose checksum fails raises SmartChecksumError: a damaged page is never decoded into
numbers that could be shown as good.

# Ref: ATA/ATAPI Command Set - 3 (ACS-3) and ATA/ATAPI Command Set - 4 (ACS-4): SMART feature set,
#      SMART READ DATA (device SMART data structure), SMART RETURN STATUS
# Ref: Serial ATA Revision 3.x: Register Device to Host FIS (where RETURN STATUS answers)
# Ref: SFF-8035i Revision 2.0, Self-Monitoring, Analysis and Reporting Technology (S.M.A.R.T.)
# Ref: smartmontools, smartctl(8): "-A" attribute table, "-f brief" FLAGS letters, raw formats
"""

from dataclasses import dataclass

from ecpsata.core.common import (FIS_REG_D2H, ATA_SMART, SMART_READ_DATA,  # noqa: F401
                                 SMART_READ_THRESHOLDS, SMART_RETURN_STATUS)

PAGE_BYTES = 512
ATTRIBUTE_ENTRIES = 30
ENTRY_BYTES = 12

# SMART RETURN STATUS answers in LBA mid / LBA high (ACS-3, SMART RETURN STATUS).
STATUS_GOOD = (0x4F, 0xC2)
STATUS_THRESHOLD_EXCEEDED = (0xF4, 0x2C)

# Attribute flag bits and smartctl's letter for each, in smartctl's column order.
FLAG_PREFAILURE = 0x0001   # P: value <= threshold predicts failure (else: end of life, "Old_age")
FLAG_ONLINE = 0x0002       # O: updated in normal operation (else only by off-line collection)
FLAG_PERFORMANCE = 0x0004  # S: speed/performance
FLAG_ERROR_RATE = 0x0008   # R
FLAG_EVENT_COUNT = 0x0010  # C
FLAG_AUTO_KEEP = 0x0020    # K: self-preserving
FLAG_LETTERS = (
    (FLAG_PREFAILURE, "P", "prefailure"),
    (FLAG_ONLINE, "O", "updated_online"),
    (FLAG_PERFORMANCE, "S", "performance"),
    (FLAG_ERROR_RATE, "R", "error_rate"),
    (FLAG_EVENT_COUNT, "C", "event_count"),
    (FLAG_AUTO_KEEP, "K", "auto_keep"),
)
FLAG_OTHER = 0xFFC0

# smartctl's default names and raw formats. "HDD"/"SSD": the name holds only for that kind of drive
# (IDENTIFY word 217: 1 = solid state, above 1 = rotating); otherwise the other kind prints as
# Unknown_SSD_Attribute / Unknown_HDD_Attribute, as smartctl does.
# Formats: raw48 (whole 48-bit value), raw16(raw16) and raw16(avg16) (low word, other words
# shown), raw24(raw8) (low 24 bits, other bytes shown), hours32 (low 32 bits: power-on hours,
# bytes 4-5 shown) and tempminmax (byte 0 current temperature, min/max found in other bytes).
ATTRIBUTES = {
    1:   ("Raw_Read_Error_Rate", "raw48", ""),
    2:   ("Throughput_Performance", "raw48", ""),
    3:   ("Spin_Up_Time", "raw16(avg16)", ""),
    4:   ("Start_Stop_Count", "raw48", ""),
    5:   ("Reallocated_Sector_Ct", "raw16(raw16)", ""),
    6:   ("Read_Channel_Margin", "raw48", "HDD"),
    7:   ("Seek_Error_Rate", "raw48", "HDD"),
    8:   ("Seek_Time_Performance", "raw48", "HDD"),
    9:   ("Power_On_Hours", "hours32", ""),
    10:  ("Spin_Retry_Count", "raw48", "HDD"),
    11:  ("Calibration_Retry_Count", "raw48", "HDD"),
    12:  ("Power_Cycle_Count", "raw48", ""),
    13:  ("Read_Soft_Error_Rate", "raw48", ""),
    175: ("Program_Fail_Count_Chip", "raw48", "SSD"),
    176: ("Erase_Fail_Count_Chip", "raw48", "SSD"),
    177: ("Wear_Leveling_Count", "raw48", "SSD"),
    178: ("Used_Rsvd_Blk_Cnt_Chip", "raw48", "SSD"),
    179: ("Used_Rsvd_Blk_Cnt_Tot", "raw48", "SSD"),
    180: ("Unused_Rsvd_Blk_Cnt_Tot", "raw48", "SSD"),
    181: ("Program_Fail_Cnt_Total", "raw48", ""),
    182: ("Erase_Fail_Count_Total", "raw48", "SSD"),
    183: ("Runtime_Bad_Block", "raw48", ""),
    184: ("End-to-End_Error", "raw48", ""),
    187: ("Reported_Uncorrect", "raw48", ""),
    188: ("Command_Timeout", "raw48", ""),
    189: ("High_Fly_Writes", "raw48", "HDD"),
    190: ("Airflow_Temperature_Cel", "tempminmax", ""),
    191: ("G-Sense_Error_Rate", "raw48", "HDD"),
    192: ("Power-Off_Retract_Count", "raw48", ""),
    193: ("Load_Cycle_Count", "raw48", "HDD"),
    194: ("Temperature_Celsius", "tempminmax", ""),
    195: ("Hardware_ECC_Recovered", "raw48", ""),
    196: ("Reallocated_Event_Count", "raw16(raw16)", ""),
    197: ("Current_Pending_Sector", "raw48", ""),
    198: ("Offline_Uncorrectable", "raw48", ""),
    199: ("UDMA_CRC_Error_Count", "raw48", ""),
    200: ("Multi_Zone_Error_Rate", "raw48", "HDD"),
    201: ("Soft_Read_Error_Rate", "raw48", "HDD"),
    202: ("Data_Address_Mark_Errs", "raw48", "HDD"),
    203: ("Run_Out_Cancel", "raw48", ""),
    204: ("Soft_ECC_Correction", "raw48", ""),
    205: ("Thermal_Asperity_Rate", "raw48", ""),
    206: ("Flying_Height", "raw48", "HDD"),
    207: ("Spin_High_Current", "raw48", "HDD"),
    208: ("Spin_Buzz", "raw48", "HDD"),
    209: ("Offline_Seek_Performnce", "raw48", "HDD"),    # smartctl's spelling
    220: ("Disk_Shift", "raw48", "HDD"),
    221: ("G-Sense_Error_Rate", "raw48", "HDD"),
    222: ("Loaded_Hours", "raw48", "HDD"),
    223: ("Load_Retry_Count", "raw48", "HDD"),
    224: ("Load_Friction", "raw48", "HDD"),
    225: ("Load_Cycle_Count", "raw48", "HDD"),
    226: ("Load-in_Time", "raw48", "HDD"),
    227: ("Torq-amp_Count", "raw48", "HDD"),
    228: ("Power-off_Retract_Count", "raw48", ""),
    230: ("Head_Amplitude", "raw48", "HDD"),
    231: ("Temperature_Celsius", "raw48", "HDD"),       # many SSDs put remaining life here
    232: ("Available_Reservd_Space", "raw48", ""),
    233: ("Media_Wearout_Indicator", "raw48", "SSD"),
    240: ("Head_Flying_Hours", "raw24(raw8)", "HDD"),
    241: ("Total_LBAs_Written", "raw48", ""),
    242: ("Total_LBAs_Read", "raw48", ""),
    250: ("Read_Error_Retry_Rate", "raw48", ""),
    254: ("Free_Fall_Sensor", "raw48", "HDD"),
}


class SmartError(Exception):
    """A SMART page that cannot be decoded (wrong size, empty)."""


class SmartChecksumError(SmartError):
    """The page's bytes do not sum to 0 mod 256: it was damaged on its way (worth reading again).
    Nothing of it is decoded."""


class SmartStatusError(SmartError):
    """SMART RETURN STATUS answered with neither signature: the verdict is unknown."""


def checksum(page):
    """The sum of the page's bytes mod 256: 0 for a good page."""
    return sum(page) & 0xFF


def _check_page(page, what):
    page = bytes(page)
    if len(page) != PAGE_BYTES:
        raise SmartError(f"{what} has {len(page)} bytes, not {PAGE_BYTES}")
    if not any(page):
        raise SmartError(f"{what} is all zeros: the drive returned no data")
    total = checksum(page)
    if total:
        raise SmartChecksumError(f"{what} checksum failed (byte sum 0x{total:02x}, byte 511 "
                                 f"0x{page[511]:02x}): the page was not decoded")
    return page


def attribute_name(attr_id, rotation=0):
    """smartctl's name for an attribute ID. rotation: IDENTIFY word 217 (0 = not reported,
    1 = solid state, >1 = rotating), which decides the HDD-only and SSD-only names."""
    name, _, kind = ATTRIBUTES.get(attr_id, ("Unknown_Attribute", "raw48", ""))
    if kind == "HDD" and rotation == 1:
        return "Unknown_SSD_Attribute"
    if kind == "SSD" and rotation > 1:
        return "Unknown_HDD_Attribute"
    return name


def flag_letters(flags):
    """smartctl's brief FLAGS string: 'POSRCK', '-' for a clear bit, '+' if bits 6-15 are set."""
    s = "".join(letter if flags & bit else "-" for bit, letter, _ in FLAG_LETTERS)
    return s + ("+" if flags & FLAG_OTHER else "")


def _signed8(b):
    return b - 256 if b & 0x80 else b


# Where drives keep the lowest and highest temperature next to the current one in byte 0:
# (the two bytes, the bytes that must be 00h or FFh, i.e. empty or a sign extension).
_TEMP_LAYOUTS = (
    ((2, 3), (1, 4, 5)),   # min/max in bytes 2 and 3
    ((1, 2), (3, 4, 5)),   # min/max in bytes 1 and 2
    ((2, 4), (1, 3, 5)),   # min/max in the low bytes of words 1 and 2
)
TEMP_PLAUSIBLE = (-60, 120)   # degrees Celsius a drive can report and mean it


def decode_temperature(raw):
    """(current, lowest, highest) in degrees Celsius from a 6-byte temperature raw value; lowest
    and highest are None unless two other bytes hold a plausible pair (lowest <= current <=
    highest, all within TEMP_PLAUSIBLE) and the remaining bytes are empty."""
    current = _signed8(raw[0])
    if not any(raw[1:]):
        return current, None, None
    for (a, b), empty in _TEMP_LAYOUTS:
        if any(raw[i] not in (0x00, 0xFF) for i in empty):
            continue
        lo, hi = sorted((_signed8(raw[a]), _signed8(raw[b])))
        if TEMP_PLAUSIBLE[0] <= lo <= current <= hi <= TEMP_PLAUSIBLE[1] and (lo, hi) != (0, 0):
            return current, lo, hi
    return current, None, None


def decode_raw(attr_id, raw):
    """(value, text) of a 6-byte raw value (little-endian, as the page carries it) in the format
    smartctl uses for this ID; value is the number a program should use."""
    fmt = ATTRIBUTES.get(attr_id, ("", "raw48", ""))[1]
    whole = int.from_bytes(raw, "little")
    words = [raw[i] | raw[i + 1] << 8 for i in (0, 2, 4)]
    if fmt == "raw16(raw16)":
        extra = f" ({words[2]} {words[1]})" if words[1] or words[2] else ""
        return words[0], f"{words[0]}{extra}"
    if fmt == "raw16(avg16)":
        extra = f" (Average {words[1]})" if words[1] else ""
        return words[0], f"{words[0]}{extra}"
    if fmt == "raw24(raw8)":
        low = whole & 0xFFFFFF
        extra = f" ({raw[5]} {raw[4]} {raw[3]})" if any(raw[3:]) else ""
        return low, f"{low}{extra}"
    if fmt == "hours32":
        hours = whole & 0xFFFFFFFF
        return hours, f"{hours}" + (f" ({words[2]})" if words[2] else "")
    if fmt == "tempminmax":
        current, lo, hi = decode_temperature(raw)
        if lo is not None:
            return current, f"{current} (Min/Max {lo}/{hi})"
        if any(raw[1:]):
            return current, f"{current} ({raw[5]} {raw[4]} {raw[3]} {raw[2]} {raw[1]})"
        return current, f"{current}"
    return whole, f"{whole}"


@dataclass(frozen=True)
class Attribute:
    """One SMART attribute entry, with its threshold when the thresholds page has its ID."""
    id: int
    name: str
    flags: int
    value: int        # current normalized value
    worst: int
    raw: bytes        # 6 bytes, least significant first
    threshold: int | None = None   # None: no thresholds page, or no entry with this ID

    @property
    def raw_value(self):
        """The whole 48-bit raw value."""
        return int.from_bytes(self.raw, "little")

    @property
    def decoded(self):
        """The raw value as smartctl reads it for this ID (see decode_raw)."""
        return decode_raw(self.id, self.raw)[0]

    @property
    def raw_text(self):
        return decode_raw(self.id, self.raw)[1]

    @property
    def flag_letters(self):
        return flag_letters(self.flags)

    @property
    def prefailure(self):
        return bool(self.flags & FLAG_PREFAILURE)

    @property
    def when_failed(self):
        """'FAILING_NOW' (value <= threshold), 'In_the_past' (worst <= threshold), or '' (never,
        or no threshold to compare with). A threshold of 0 never fails: ATA-3 made 00h the
        "always passing" threshold, and drives use it for usage counters."""
        if not self.threshold:
            return ""
        if self.value <= self.threshold:
            return "FAILING_NOW"
        if self.worst <= self.threshold:
            return "In_the_past"
        return ""


@dataclass(frozen=True)
class SmartData:
    """A decoded SMART READ DATA page (checksum verified)."""
    revision: int
    attributes: tuple
    thresholds_revision: int | None = None
    offline_status: int = 0          # byte 362
    self_test_status: int = 0        # byte 363: bits 7:4 status, 3:0 tenths remaining
    offline_seconds: int = 0         # bytes 364-365
    offline_capability: int = 0      # byte 367
    smart_capability: int = 0        # bytes 368-369
    error_logging: int = 0           # byte 370
    short_test_minutes: int = 0      # byte 372
    extended_test_minutes: int = 0   # byte 373, or bytes 375-376 when byte 373 is FFh
    conveyance_test_minutes: int = 0  # byte 374

    def attribute(self, attr_id):
        """The attribute with this ID; KeyError naming it if the drive has none."""
        for a in self.attributes:
            if a.id == attr_id:
                return a
        raise KeyError(f"the drive reports no SMART attribute {attr_id} "
                       f"({attribute_name(attr_id)})")

    @property
    def failing_now(self):
        return [a for a in self.attributes if a.when_failed == "FAILING_NOW"]


def parse_thresholds(page):
    """{attribute ID: threshold} from a SMART READ THRESHOLDS page, and its revision:
    (revision, thresholds). Raises SmartChecksumError or SmartError."""
    page = _check_page(page, "SMART READ THRESHOLDS page")
    out = {}
    for i in range(ATTRIBUTE_ENTRIES):
        entry = page[2 + ENTRY_BYTES * i:2 + ENTRY_BYTES * (i + 1)]
        if entry[0] and entry[0] not in out:
            out[entry[0]] = entry[1]
    return page[0] | page[1] << 8, out


def parse_smart_data(page, thresholds=None, rotation=0):
    """Decode a SMART READ DATA page; thresholds: the SMART READ THRESHOLDS page (bytes) or None.
    Thresholds are matched by attribute ID, not by slot. rotation: IDENTIFY word 217 (names, see
    attribute_name). Returns SmartData; raises SmartChecksumError if either page's checksum
    fails, SmartError if a page has the wrong size or is empty."""
    page = _check_page(page, "SMART READ DATA page")
    thr_rev, thr = (None, {}) if thresholds is None else parse_thresholds(thresholds)
    attributes = []
    for i in range(ATTRIBUTE_ENTRIES):
        e = page[2 + ENTRY_BYTES * i:2 + ENTRY_BYTES * (i + 1)]
        if e[0] == 0:      # an empty slot
            continue
        attributes.append(Attribute(
            id=e[0], name=attribute_name(e[0], rotation), flags=e[1] | e[2] << 8,
            value=e[3], worst=e[4], raw=bytes(e[5:11]),
            threshold=thr.get(e[0]) if thresholds is not None else None))
    extended = page[373] if page[373] != 0xFF else page[375] | page[376] << 8
    return SmartData(
        revision=page[0] | page[1] << 8, attributes=tuple(attributes),
        thresholds_revision=thr_rev,
        offline_status=page[362], self_test_status=page[363],
        offline_seconds=page[364] | page[365] << 8, offline_capability=page[367],
        smart_capability=page[368] | page[369] << 8, error_logging=page[370],
        short_test_minutes=page[372], extended_test_minutes=extended,
        conveyance_test_minutes=page[374])


def smart_status(lba_mid, lba_high):
    """SMART RETURN STATUS's verdict from the Register D2H FIS's LBA mid and LBA high: 'PASSED'
    (4Fh/C2h: no threshold exceeded) or 'FAILED' (F4h/2Ch: a threshold was exceeded). Anything
    else raises SmartStatusError: the verdict is unknown, never taken as a pass."""
    pair = (lba_mid, lba_high)
    if pair == STATUS_GOOD:
        return "PASSED"
    if pair == STATUS_THRESHOLD_EXCEEDED:
        return "FAILED"
    raise SmartStatusError(f"SMART RETURN STATUS verdict unknown: LBA mid/high "
                           f"{lba_mid:02X}h/{lba_high:02X}h (4Fh/C2h = passed, F4h/2Ch = "
                           f"threshold exceeded)")


def smart_status_from_fis(fis):
    """smart_status() from a Register Device-to-Host FIS as bytes (type 34h in byte 0, LBA mid in
    byte 5, LBA high in byte 6; Serial ATA Revision 3.x, Register Device to Host FIS)."""
    fis = bytes(fis)
    if len(fis) < 8 or fis[0] != FIS_REG_D2H:
        head = fis[0] if fis else None
        raise SmartStatusError(f"SMART RETURN STATUS verdict unknown: not a Register D2H FIS "
                               f"(type {head!r}, {len(fis)} bytes)")
    return smart_status(fis[5], fis[6])


_HEADER = "ID# ATTRIBUTE_NAME          FLAG     VALUE WORST THRESH FAIL        RAW_VALUE"


def format_attributes(data):
    """The attribute table as text, laid out like smartctl -A with the brief FLAG letters:
    ID# ATTRIBUTE_NAME FLAG VALUE WORST THRESH FAIL RAW_VALUE (THRESH '---' without one; FAIL
    'FAILING_NOW', 'In_the_past' or '-')."""
    lines = [f"SMART Attributes Data Structure revision number: {data.revision}", _HEADER]
    for a in data.attributes:
        thresh = "---" if a.threshold is None else f"{a.threshold:03d}"
        lines.append(f"{a.id:3d} {a.name:<24}{a.flag_letters:<9}{a.value:03d}   {a.worst:03d}   "
                     f"{thresh:<4}   {a.when_failed or '-':<12}{a.raw_text}")
    return "\n".join(lines) + "\n"


def to_json(data):
    """A JSON-ready dict of the decoded page (checksums were good, or it would not exist)."""
    table = []
    for a in data.attributes:
        flags = {"value": a.flags, "string": a.flag_letters}
        flags.update({key: bool(a.flags & bit) for bit, _, key in FLAG_LETTERS})
        table.append({
            "id": a.id, "name": a.name, "value": a.value, "worst": a.worst,
            "thresh": a.threshold, "when_failed": a.when_failed, "flags": flags,
            "raw": {"value": a.raw_value, "decoded": a.decoded, "string": a.raw_text},
        })
    return {
        "revision": data.revision,
        "thresholds_revision": data.thresholds_revision,
        "checksum_ok": True,
        "table": table,
        "failing_now": [a.id for a in data.failing_now],
        "self_test": {"status": data.self_test_status >> 4,
                      "remaining_percent": 10 * (data.self_test_status & 0xF),
                      "polling_minutes": {"short": data.short_test_minutes,
                                          "extended": data.extended_test_minutes,
                                          "conveyance": data.conveyance_test_minutes}},
        "offline_collection": {"status": data.offline_status, "seconds": data.offline_seconds,
                               "capability": data.offline_capability},
        "smart_capability": data.smart_capability,
        "error_logging": data.error_logging,
    }
