# SPDX-License-Identifier: BSD-2-Clause
"""`ecpsata phy scan [--sets FILE] [--window S] [--sectors N] [--json FILE]`: which PHY settings
link with this board and this drive.

For each set of settings (a default list, or the user's JSON file): write the settings (over the
values the scan started from: a key one set changes is put back for the sets without it),
restart the link, wait up to `--window` seconds of the target's time (the gateware's event-log
clock) for it, then read `--sectors` sectors from LBA 0 (reads only: nothing on the drive
changes) and count what went wrong meanwhile: 8b10b code and disparity errors (PHY), FIS CRC
errors, frames the drive rejected (R_ERR), escapes. The table ranks the sets: linked first, then
fewest errors, fewest failed attempts, shortest time to link; the best one is applied at the end.

A sets file is a JSON list of {"name": TEXT, "settings": {KEY: VALUE, ...}} with the keys and
values of `phy --set`; every set is checked before anything is written.
"""

import json
import time

from ecpsata.host import phy, report, sata
from ecpsata.host.target import TargetError
from ecpsata.phy.ecp5.settings import SCAN_HW_WINDOW, SCAN_SETS, SCAN_SIM_WINDOW

STALL_TIMEOUT = 10.0   # wall seconds without the target's clock moving
ERROR_COUNTERS = (("code_errors", "sata_phy_code_errors"), ("disp_errors", "sata_phy_disp_errors"),
                  ("crc_errors", "sata_errors_fis_crc_errors"),
                  ("r_err", "sata_errors_fis_rejected"), ("escapes", "sata_errors_escapes"))


def load_sets(path):
    """The sets of a JSON file, each checked (names, keys, values)."""
    try:
        sets = json.load(open(path))
    except (OSError, ValueError) as e:
        raise TargetError(f"--sets {path}: {e}") from None
    if not isinstance(sets, list) or not sets:
        raise TargetError(f"--sets {path}: a JSON list of {{\"name\", \"settings\"}} objects")
    for n, s in enumerate(sets):
        if not isinstance(s, dict) or not isinstance(s.get("settings"), dict):
            raise TargetError(f"--sets {path}: entry {n} has no \"settings\" object")
        s.setdefault("name", f"set {n + 1}")
        for key, value in s["settings"].items():
            phy.parse_set(f"{key}={value}")
    return sets


def _clock(target):
    """A reader of the target's time in seconds (the event log's clock), or None."""
    if not target.has("sata_events_now"):
        return None
    f = target.sys_clk_hz()
    return lambda: target.reg("sata_events_now").read() / f


def _counters(target):
    return {name: target.reg(reg).read() if target.has(reg) else 0 for name, reg in ERROR_COUNTERS}


def _wait_link(target, window, clock):
    """True once the link is up, False after `window` target seconds (wall seconds without a
    clock); a target that stops answering or counting is an error."""
    start_t = clock() if clock else None
    start_w = last_w = time.monotonic()
    last = start_t
    while True:
        if sata.link_status(target)["ready"]:
            return True
        now_w = time.monotonic()
        if clock:
            now = clock()
            if now - start_t > window:
                return False
            if now != last:
                last, last_w = now, now_w
            elif now_w - last_w > STALL_TIMEOUT:
                raise TargetError(f"the target's clock stopped for {STALL_TIMEOUT:.0f} s")
        elif now_w - start_w > window:
            return False
        time.sleep(0.05)


def baseline(target, sets):
    """{key: value} before the scan, of every key some set changes (those it can write back)."""
    out = {}
    for key in dict.fromkeys(k for s in sets for k in s["settings"]):
        value = phy.read(target, key)
        if value in phy.SETTINGS[key].values:
            out[key] = value
    return out


def writes(base, s):
    """What to write for set `s`: the baseline, then the set's own values, so that each set is
    tried on the same settings whatever the sets before it changed."""
    return dict(base, **s["settings"])


def apply(target, base, s):
    phy.write_settings(target, list(writes(base, s).items()))


def try_set(target, s, window, sectors, timeout, clock, base):
    """Apply one set, restart, wait, read: the row of the table."""
    apply(target, base, s)
    before = sata.link_status(target)
    sata.comreset(target)
    time.sleep(0.01)
    linked = _wait_link(target, window, clock)
    st = sata.link_status(target)
    row = {"name": s["name"], "settings": dict(s["settings"]), "linked": linked,
           "gen": st["gen"] if linked else None,
           "time_to_link_us": st["time_to_link_us"] if linked else None,
           "retries": st["retries"] - before["retries"], "state": st["state"],
           "sectors_read": 0, "read_error": None}
    errors_before = _counters(target)
    if linked:
        try:
            sata.wait_link(target, timeout)
            sata.SectorIO(target, timeout).read(0, sectors)
            row["sectors_read"] = sectors
        except TargetError as e:
            row["read_error"] = str(e)
    after = _counters(target)
    row.update({k: after[k] - errors_before[k] for k in after})
    row["errors"] = sum(after[k] - errors_before[k] for k in after) + int(row["read_error"] is not None)
    return row


def rank_key(row):
    return (not row["linked"], row["errors"], row["retries"], row["time_to_link_us"] or 0)


def cmd_scan(target, args):
    phy._require(target)
    sets = load_sets(args.sets) if args.sets else [dict(s) for s in SCAN_SETS]
    simulated = "simulated" in target.identity()["features"]
    window = args.window or (SCAN_SIM_WINDOW if simulated else SCAN_HW_WINDOW)
    clock = _clock(target)
    base = baseline(target, sets)
    for s in sets:                                   # every set checked before any is tried
        phy.check_sets(target, list(writes(base, s).items()))
    print(f"phy scan: {len(sets)} sets, up to {window:g} s of the target's time each to link, "
          f"then {args.sectors} sectors read from LBA 0 (reads only)")
    rows = []
    for n, s in enumerate(sets, 1):
        print(f"[{n}/{len(sets)}] {s['name']}: " +
              ", ".join(f"{k}={v}" for k, v in s["settings"].items()), flush=True)
        rows.append(try_set(target, s, window, args.sectors, args.timeout, clock, base))
    ranked = sorted(rows, key=rank_key)
    head = ("rank", "set", "linked", "gen", "time to link", "failed attempts", "sectors",
            "code", "disp", "CRC", "R_ERR", "escapes")
    table = [head] + [
        (str(i), r["name"], "yes" if r["linked"] else "no", f"Gen{r['gen']}" if r["gen"] else "-",
         f"{r['time_to_link_us']:.1f} us" if r["linked"] else "-", str(r["retries"]),
         str(r["sectors_read"]), str(r["code_errors"]), str(r["disp_errors"]),
         str(r["crc_errors"]), str(r["r_err"]), str(r["escapes"]))
        for i, r in enumerate(ranked, 1)]
    widths = [max(len(row[i]) for row in table) for i in range(len(head))]
    for row in table:
        print("  " + "  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip())
    for r in ranked:
        if r["read_error"]:
            print(f"  {r['name']}: the read failed: {r['read_error']}")
    best = ranked[0] if ranked[0]["linked"] else None
    if best:
        apply(target, base, best)
        sata.comreset(target)
        time.sleep(0.01)
        if not _wait_link(target, window, clock):
            raise sata.LinkError(f"the best set ({best['name']}) did not link again when applied")
        print(f"phy scan: applied {best['name']} (" +
              ", ".join(f"{k}={v}" for k, v in best["settings"].items()) + ")")
    else:
        print("phy scan: no set linked: see doc/bringup.md, \"What to try when link-up fails\"; "
              "the settings are left as the last set had them")
    if args.json:
        report.write_json(args.json, {"tool": report.TOOL, "kind": "phy-scan",
                                      "target": target.identity(), "window_s": window,
                                      "sectors": args.sectors, "rows": ranked,
                                      "applied": best["name"] if best else None})
    return 0 if best else 1
