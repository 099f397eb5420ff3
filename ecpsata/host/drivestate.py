# SPDX-License-Identifier: BSD-2-Clause
"""The drive's state around a benchmark run, as the drive itself reports it (ecpsata/host/health.py):
temperature, the logical sectors it counts as written and read, SMART's overall status, the SATA
Phy event counters, and the host's own link counts beside them. Each report carries the state
before and after its run and their change (doc/bench-json.md, `drive_state`), so that a reader
sees how hot the drive ran, whether it counted the sectors we wrote, and whether the line had
errors the drive saw. A drive without a section gives null there, and the reason in `missing`.
"""

from ecpsata.host import gplog, health
from ecpsata.host.sata import LinkError
from ecpsata.host.target import TargetError

KEYS = ("temperature_c", "sectors_written", "sectors_read", "smart_status", "phy_events", "host",
        "missing")
COUNTS = ("sectors_written", "sectors_read")


def _devstat(doc, page, name):
    pages = (doc.get("device_statistics") or {}).get("pages") or {}
    for st in (pages.get(page) or {}).get("statistics", []):
        if st["name"] == name:
            return st["value"]
    return None


def _smart_raw(doc, attr_id, decoded=False):
    for a in (doc.get("smart") or {}).get("table", []):
        if a["id"] == attr_id:
            raw = a["raw"]
            return raw["decoded"] if decoded else raw["value"]
    return None


def snapshot(target, ident, timeout=5.0):
    """The state now (the keys of KEYS); never raises for what the drive lacks."""
    missing = []
    try:
        doc = health.read_health(target, ident, timeout)
    except (TargetError, LinkError) as e:
        return dict({k: None for k in KEYS}, missing=[f"the drive's state was not read: {e}"])
    for section in ("smart", "directory", "device_statistics", "phy_events"):
        part = doc.get(section) or {}
        for why in ("missing", "damaged"):
            if why in part and part[why] not in missing:
                missing.append(part[why])
    temp = _devstat(doc, "05h", "Current Temperature")
    if temp is None:
        temp = _smart_raw(doc, 194, decoded=True)
    written = _devstat(doc, "01h", "Logical Sectors Written")
    if written is None:
        written = _smart_raw(doc, 241)
    read = _devstat(doc, "01h", "Logical Sectors Read")
    if read is None:
        read = _smart_raw(doc, 242)
    counters = doc["phy_events"].get("counters")
    return {
        "temperature_c": temp,
        "sectors_written": written,
        "sectors_read": read,
        "smart_status": (doc.get("smart") or {}).get("status"),
        "phy_events": {c["id"]: c["value"] for c in counters} if counters else None,
        "host": doc.get("host") or {},
        "missing": missing,
    }


def change(before, after):
    """after - before for every figure both have (null where either lacks it)."""
    if before is None or after is None:
        return None
    diff = lambda a, b: b - a if a is not None and b is not None else None
    out = {k: diff(before[k], after[k]) for k in ("temperature_c",) + COUNTS}
    pe0, pe1 = before["phy_events"], after["phy_events"]
    out["phy_events"] = ({k: pe1[k] - pe0[k] for k in pe1 if k in pe0 and pe1[k] != pe0[k]}
                         if pe0 is not None and pe1 is not None else None)
    out["host"] = {k: after["host"][k] - before["host"][k] for k in after["host"]
                   if k in before["host"]}
    return out


def lines(state):
    """(label, text) rows for a report's drive table: before -> after (change)."""
    before, after = state.get("before"), state.get("after")
    if not before or not after:
        return []
    arrow = lambda k, unit="": (f"{_text(before[k])} -> {_text(after[k])}{unit}"
                                if before[k] is not None or after[k] is not None
                                else "not reported")
    rows = [("temperature", arrow("temperature_c", " C")),
            ("sectors written", arrow("sectors_written") + " (the drive's count)"),
            ("sectors read", arrow("sectors_read") + " (the drive's count)"),
            ("SMART status", arrow("smart_status"))]
    ch = state.get("change") or {}
    if ch.get("phy_events") is not None:
        moved = ", ".join(f"{k} {gplog.phy_event_name(int(k[:-1], 16))} +{v}"
                          for k, v in ch["phy_events"].items()) or "none moved"
        rows.append(("Phy events", moved))
    if ch.get("host"):
        rows.append(("host counts", ", ".join(f"{k} +{v}" for k, v in ch["host"].items())))
    for why in after.get("missing", []):
        rows.append(("not reported", why))
    return rows


def _text(v):
    return "-" if v is None else str(v)
