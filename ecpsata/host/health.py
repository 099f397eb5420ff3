# SPDX-License-Identifier: BSD-2-Clause
"""`ecpsata health`: the drive's own view of itself, read with ATA commands through the core
(ecpsata/host/atacmd.py) and decoded by ecpsata/host/smart.py and ecpsata/host/gplog.py: SMART's
overall status and attribute table, the General Purpose Log Directory, the Device Statistics log
(general, temperature, solid state pages) and the SATA Phy Event Counters log. A drive that lacks
a section says so by name; a page that fails its checksum is reported as damaged, never decoded.

Ref: ATA/ATAPI Command Set - 4 (ACS-4), SMART and the General Purpose Logging feature sets;
Serial ATA Revision 3.x, SATA Phy Event Counters.
"""

from ecpsata.core.common import (ATA_SMART, ATA_READ_LOG_EXT, SMART_READ_DATA,
                                  SMART_READ_THRESHOLDS, SMART_RETURN_STATUS, SMART_LBA,
                                  LOG_DIRECTORY, LOG_DEVICE_STATISTICS, LOG_PHY_EVENT_COUNTERS)
from ecpsata.host import gplog, smart
from ecpsata.host.atacmd import CommandAborted, ata_command

# Device Statistics pages read when the drive has them: General, Temperature, Solid State Device.
DEVSTAT_PAGES = (0x01, 0x05, 0x07)


def log_lba(address, page=0):
    """READ LOG EXT's LBA field: log address in bits 7:0, page number in 15:8 and 39:32."""
    return address | (page & 0xFF) << 8 | (page >> 8) << 32


def read_log(target, address, page=0, pages=1, timeout=5.0):
    what = f"READ LOG EXT of log {address:02X}h ({gplog.log_name(address)}) page {page}"
    data, _ = ata_command(target, ATA_READ_LOG_EXT, lba=log_lba(address, page), count=pages,
                          protocol="pio-in", timeout=timeout, what=what)
    return data


def _missing(text):
    return {"missing": text}


def read_smart(target, ident, timeout=5.0):
    """SMART's verdict and attribute table, or the reason there is none."""
    if not ident.get("smart"):
        return _missing("the drive does not offer SMART (IDENTIFY word 82 bit 0 clear)")
    out = {"enabled": ident.get("smart_enabled", False)}
    if not out["enabled"]:
        out["missing"] = "SMART is disabled on the drive (IDENTIFY word 85 bit 0 clear)"
        return out
    try:
        _, tf = ata_command(target, ATA_SMART, SMART_RETURN_STATUS, lba=SMART_LBA,
                            timeout=timeout, what="SMART RETURN STATUS")
        mid, high = tf["lba"] >> 8 & 0xFF, tf["lba"] >> 16 & 0xFF
        try:
            out["status"] = smart.smart_status(mid, high)
        except smart.SmartStatusError as e:
            out["status"] = "UNKNOWN"
            out["status_error"] = str(e)
        page, _ = ata_command(target, ATA_SMART, SMART_READ_DATA, lba=SMART_LBA, count=1,
                              protocol="pio-in", timeout=timeout, what="SMART READ DATA")
        thr, _ = ata_command(target, ATA_SMART, SMART_READ_THRESHOLDS, lba=SMART_LBA, count=1,
                             protocol="pio-in", timeout=timeout, what="SMART READ THRESHOLDS")
    except CommandAborted as e:
        return _missing(str(e))
    try:
        data = smart.parse_smart_data(page, thresholds=thr, rotation=ident.get("rotation", 0))
    except smart.SmartError as e:
        out["damaged"] = str(e)
        return out
    out["data"] = data
    out.update(smart.to_json(data))
    return out


def read_logs(target, ident, timeout=5.0):
    """The log directory, the Device Statistics pages and the Phy event counters, each or the
    reason it is missing."""
    out = {}
    if not ident.get("gpl"):
        text = "the drive does not offer the General Purpose Logging feature set (IDENTIFY word " \
               "84 bit 5 clear)"
        return {"directory": _missing(text), "device_statistics": _missing(text),
                "phy_events": _missing(text)}
    try:
        directory = gplog.parse_log_directory(read_log(target, LOG_DIRECTORY, timeout=timeout))
    except (gplog.LogError, CommandAborted) as e:
        return {"directory": {"damaged": str(e)}, "device_statistics": _missing(str(e)),
                "phy_events": _missing(str(e))}
    out["directory"] = {"version": directory.version,
                        "logs": {f"{a:02X}h": {"name": name, "pages": n}
                                 for a, name, n in directory.logs()}}
    out["device_statistics"] = _device_statistics(target, directory, timeout)
    out["phy_events"] = _phy_events(target, directory, ident, timeout)
    return out


def _device_statistics(target, directory, timeout):
    try:
        directory.require(LOG_DEVICE_STATISTICS)
        support = gplog.parse_devstat_supported(read_log(target, LOG_DEVICE_STATISTICS, 0,
                                                         timeout=timeout))
    except (gplog.LogError, CommandAborted) as e:
        return _missing(str(e))
    pages = {}
    for page in DEVSTAT_PAGES:
        name = gplog.devstat_page_name(page)
        try:
            support.require(page)
            data = read_log(target, LOG_DEVICE_STATISTICS, page, timeout=timeout)
            pages[f"{page:02X}h"] = gplog.parse_devstat_page(data, page).as_dict()
        except (gplog.LogError, CommandAborted) as e:
            pages[f"{page:02X}h"] = {"name": name, "missing": str(e)}
    return {"pages": pages}


def _phy_events(target, directory, ident, timeout):
    if not ident.get("phy_events"):
        return _missing("the drive does not report SATA Phy Event Counters (IDENTIFY word 76 "
                        "bit 10 clear)")
    try:
        directory.require(LOG_PHY_EVENT_COUNTERS)
        events = gplog.parse_phy_events(read_log(target, LOG_PHY_EVENT_COUNTERS,
                                                 timeout=timeout))
    except (gplog.LogError, CommandAborted) as e:
        return _missing(str(e))
    return {"counters": [{"id": f"{e.id:03X}h", "name": e.name, "bits": e.bits,
                          "value": e.value} for e in events]}


# The host's own counts beside the drive's (the error block, ecpsata/frontend/errors.py): frames
# of ours the drive refused (its R_ERRs for host-to-device FISes, log 11h 004h + 007h), and frames
# of the drive's we refused, for a bad CRC or for their type, length or place: together the
# drive's R_ERR responses for device-to-host FISes (003h + 006h), since power-up.
HOST_COUNTS = (("fis_rejected", "our frames the drive refused (R_ERR) or aborted"),
               ("fis_crc_errors", "the drive's frames we refused for a bad CRC"),
               ("fis_refused", "the drive's frames we refused for their type, length or place"))


def host_counts(target):
    return {name: target.reg(f"sata_errors_{name}").read() for name, _ in HOST_COUNTS
            if target.has(f"sata_errors_{name}")}


def read_health(target, ident, timeout=5.0):
    """Every section, then the host's own counts (read last: they include the health reads)."""
    doc = {"smart": read_smart(target, ident, timeout)}
    doc.update(read_logs(target, ident, timeout))
    doc["host"] = host_counts(target)
    return doc


def json_document(doc):
    return {k: ({kk: vv for kk, vv in v.items() if kk != "data"} if isinstance(v, dict) else v)
            for k, v in doc.items()}


def text_lines(doc):
    """The report as the terminal shows it."""
    lines = []
    s = doc["smart"]
    if "missing" in s:
        lines.append(f"SMART        {s['missing']}")
    elif "damaged" in s:
        lines.append(f"SMART        status {s.get('status', '?')}; data page damaged: "
                     f"{s['damaged']}")
    else:
        lines.append(f"SMART        overall status {s['status']}"
                     + (f" ({s['status_error']})" if "status_error" in s else ""))
        lines.append("")
        lines.append(smart.format_attributes(s["data"]).rstrip("\n"))
    lines.append("")
    d = doc["directory"]
    if "logs" in d:
        lines.append(f"GP log directory (version {d['version']}): " + ", ".join(
            f"{a} {v['name']} ({v['pages']} page{'s' if v['pages'] != 1 else ''})"
            for a, v in d["logs"].items()))
    else:
        lines.append(f"GP log directory: {d.get('missing') or d.get('damaged')}")
    ds = doc["device_statistics"]
    if "pages" not in ds:
        lines.append(f"Device Statistics: {ds['missing']}")
    else:
        for key, page in ds["pages"].items():
            lines.append(f"Device Statistics page {key} ({page['name']}):")
            if "missing" in page:
                lines.append(f"  {page['missing']}")
                continue
            for st in page["statistics"]:
                value = "not valid" if st["value"] is None else f"{st['value']} {st['unit']}"
                lines.append(f"  {st['name']:<44} {value.strip()}")
    pe = doc["phy_events"]
    if "counters" not in pe:
        lines.append(f"SATA Phy Event Counters: {pe['missing']}")
    else:
        lines.append("SATA Phy Event Counters:")
        for c in pe["counters"]:
            lines.append(f"  {c['id']} {c['bits']:>2} bits  {c['value']:>12}  {c['name']}")
    texts = dict(HOST_COUNTS)
    for name, value in doc.get("host", {}).items():
        lines.append(f"host: {texts[name]}: {value}")
    return lines



def cmd_health(target, args):
    from ecpsata.host import report, sata
    sata.wait_link(target, args.timeout)
    ident = sata.prepare_drive(target, args.timeout, auto_activate=args.auto_activate,
                               usable=False)
    doc = read_health(target, ident, args.timeout)
    print("\n".join(text_lines(doc)))
    if args.json:
        report.write_json(args.json, {"health": json_document(doc),
                                      "drive": {k: ident[k] for k in ("model", "serial",
                                                                      "firmware")}})
        print(f"wrote {args.json}")
    return 0


def add_parser(sub):
    s = sub.add_parser("health", help="the drive's SMART status and attributes, its device "
                                      "statistics and SATA Phy event counters (read-only)")
    s.add_argument("--json", metavar="FILE", help="also write them as JSON")
    s.set_defaults(func=cmd_health)
    return s
