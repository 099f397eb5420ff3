# SPDX-License-Identifier: BSD-2-Clause
"""`ecpsata purge --allow-write --whole-drive --erase SERIAL`: the whole drive erased by SANITIZE
(BLOCK ERASE EXT, else CRYPTO SCRAMBLE EXT, whichever the drive offers: IDENTIFY word 59), its
progress from SANITIZE STATUS EXT (the progress indicator in LBA 15:0, the state in the count's
bits 15:12) as a bar on stderr; or, on a drive without SANITIZE, a TRIM of the whole capacity,
named as such (not a purge: the drive may keep the data in its spare area).

A sanitize runs in the drive and survives resets: `purge` started while one is in progress (after a
link drop, a reset, a host that was stopped) follows it instead of starting another; a link that
drops while it waits is brought up again and the wait goes on. The confirmation is the drive's
serial number, typed: beyond --allow-write, since everything on the drive is lost. Never part of
the benchmark suite.

Ref: ATA/ATAPI Command Set - 3 (ACS-3), the Sanitize Device feature set: SANITIZE STATUS EXT,
BLOCK ERASE EXT, CRYPTO SCRAMBLE EXT; IDENTIFY DEVICE word 59.
"""

import sys
import time

from ecpsata.core.common import ATA_SANITIZE
from ecpsata.host import sata
from ecpsata.host.atacmd import CommandAborted, ata_command
from ecpsata.host.target import TargetError

STATUS_EXT = 0x0000
# (name, features, key in LBA 31:0, the IDENTIFY field that offers it: word 59 bits 15, 13)
METHODS = (("BLOCK ERASE EXT", 0x0012, 0x426B4572, "sanitize_block_erase"),
           ("CRYPTO SCRAMBLE EXT", 0x0011, 0x43727970, "sanitize_crypto"))
COMPLETED, IN_PROGRESS, FROZEN = 1 << 15, 1 << 14, 1 << 13
POLL_S = 0.2
STALL_S = 600.0            # no progress this long (host time): the wait ends, named


def method(ident):
    """The SANITIZE method to use, or None when the drive has no SANITIZE."""
    for m in METHODS:
        if ident.get(m[3]):
            return m
    return None


def status(target, timeout):
    """SANITIZE STATUS EXT: (in progress, completed without error, frozen, progress 0..1)."""
    _, tf = ata_command(target, ATA_SANITIZE, STATUS_EXT, timeout=timeout,
                        what="SANITIZE STATUS EXT")
    count, progress = tf["count"], tf["lba"] & 0xFFFF
    return {"in_progress": bool(count & IN_PROGRESS), "completed": bool(count & COMPLETED),
            "frozen": bool(count & FROZEN),
            "progress": progress / 65536 if count & IN_PROGRESS else None}


def follow(target, timeout, show, reconnect_s=30.0):
    """Wait for the sanitize in progress to end; a link drop is recovered (the operation goes on
    in the drive). Returns the last status."""
    last_change, last = time.monotonic(), None
    while True:
        try:
            st = status(target, timeout)
        except sata.LinkError as e:
            show(None, f"link lost ({e}); bringing it up again, the sanitize goes on in the drive")
            sata.wait_link(target, reconnect_s)
            continue
        if not st["in_progress"]:
            return st
        if st["progress"] != last:
            last, last_change = st["progress"], time.monotonic()
        elif time.monotonic() - last_change > STALL_S:
            raise sata.LinkError(f"SANITIZE: no progress for {STALL_S:.0f} s at "
                                 f"{100 * (last or 0):.1f} %: the drive may have stopped; run "
                                 f"purge again to follow it, or ask the drive's vendor")
        show(st["progress"], None)
        time.sleep(POLL_S)


def _shower(stream):
    def show(frac, text):
        if text:
            stream.write(f"\n{text}\n")
        else:
            bar = "#" * int(20 * frac) + "." * (20 - int(20 * frac))
            stream.write(f"\r[{bar}] sanitize {100 * frac:5.1f}%\x1b[K")
        stream.flush()
    return show


def purge(target, ident, timeout, show):
    """Erase the whole drive; returns what was done."""
    m = method(ident)
    if m is None:
        from ecpsata.host import trim
        if not ident.get("trim"):
            raise TargetError("the drive has neither SANITIZE (IDENTIFY word 59 bit 12) nor TRIM "
                              "(word 169 bit 0): it cannot be purged from here; nothing sent")
        res = trim.trim(target, ident, 0, ident["sectors"], timeout)
        return {"method": "TRIM of the whole capacity (not a purge: the drive has no SANITIZE)",
                **res}
    st = status(target, timeout)
    if st["frozen"]:
        raise TargetError("SANITIZE is frozen on this drive (SANITIZE FREEZE LOCK): a power cycle "
                          "clears it; nothing sent")
    resumed = st["in_progress"]
    if not resumed:
        name, features, key, _ = m
        try:
            ata_command(target, ATA_SANITIZE, features, lba=key, timeout=timeout, what=name)
        except CommandAborted as e:
            raise TargetError(f"{name} refused by the drive: {e}") from None
    st = follow(target, timeout, show)
    if not st["completed"]:
        raise sata.LinkError("SANITIZE ended without its 'completed without error' bit: the drive "
                             "says the erase failed (SANITIZE STATUS EXT count bit 15 clear)")
    return {"method": m[0], "resumed": resumed, "completed": True}


def cmd_purge(target, args):
    from ecpsata.host import report
    sata.wait_link(target, args.timeout)
    ident = sata.prepare_drive(target, args.timeout, auto_activate=args.auto_activate)
    if args.erase != ident["serial"]:
        raise TargetError(f"--erase {args.erase!r} is not this drive's serial number "
                          f"({ident['serial']!r}, model {ident['model']!r}): nothing sent")
    res = purge(target, ident, args.timeout, _shower(sys.stderr))
    sys.stderr.write("\n")
    resumed = " (followed the sanitize already in progress)" if res.get("resumed") else ""
    print(f"purged {ident['model']} {ident['serial']}: {res['method']}{resumed}")
    if args.json:
        report.write_json(args.json, {"purge": res})
        print(f"wrote {args.json}")
    return 0


def add_parser(sub):
    s = sub.add_parser("purge", help="erase the whole drive (SANITIZE, or TRIM of everything on a "
                                     "drive without it): needs --allow-write --whole-drive "
                                     "--erase SERIAL")
    s.add_argument("--allow-write", action="store_true", help="confirm: the drive's data is lost")
    s.add_argument("--whole-drive", action="store_true", required=True,
                   help="confirm: every sector, not a range")
    s.add_argument("--erase", metavar="SERIAL", required=True,
                   help="the drive's serial number (as `identify` shows it), typed as a last "
                        "confirmation")
    s.add_argument("--json", metavar="FILE", help="also write what was done as JSON")
    s.set_defaults(func=cmd_purge, writes_always=True)
    return s
