# SPDX-License-Identifier: BSD-2-Clause
"""`ecpsata purge --allow-write --whole-drive --erase SERIAL`: the whole drive erased by SANITIZE
(BLOCK ERASE EXT, else CRYPTO SCRAMBLE EXT, whichever the drive offers: IDENTIFY word 59), its
progress from SANITIZE STATUS EXT (the progress indicator in LBA 15:0, the state in the count's
bits 15:12) as a bar on stderr; or, on a drive without SANITIZE, a TRIM of the whole capacity,
named as such (not a purge: the drive may keep the data in its spare area).

A sanitize runs in the drive and survives resets: `purge` started while one is in progress (after a
link drop, a reset, a host that was stopped) follows it instead of starting another. A link that
drops while it waits is brought up again and the wait goes on; a link lost during the erase
command itself is brought up again and the drive asked whether it started (if it did not, the
command goes out once more). Every way the wait can end without the drive's "completed without
error" says what is known of the drive: the erase may still run in it, and `purge` again follows
it. The confirmation is the drive's serial number, typed: beyond --allow-write, since everything on
the drive is lost. Never part of the benchmark suite.

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
RECONNECT_S = 30.0         # host seconds for the link to come back after a drop
MAX_DROPS = 10             # a link that keeps dropping: the wait ends, named
FOLLOW_AGAIN = "run `ecpsata purge` again (same confirmation) to follow it to its end"


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


class PurgeInterrupted(sata.LinkError):
    """The wait for the sanitize ended before the drive said it completed: the message says what
    is known of the drive's state and how to follow the erase to its end."""


def _percent(progress):
    return "?" if progress is None else f"{100 * progress:.1f} %"


def _link_ready(target):
    return sata.link_status(target)["ready"] and sata.device_ready(target)


def reconnect(target, record, show, why, reconnect_s):
    """The link was lost (why): count it, bring it up again within reconnect_s host seconds.
    PurgeInterrupted, naming the drive's state as last known, when it does not come back."""
    record["link_drops"] += 1
    if record["link_drops"] > MAX_DROPS:
        raise PurgeInterrupted(
            f"the link dropped {record['link_drops']} times during the sanitize (last: {why}): "
            f"its last SANITIZE STATUS EXT said {record['last_state']}; the erase goes on in "
            f"the drive through resets; check the cable and the drive's power, then "
            f"{FOLLOW_AGAIN}")
    show(None, f"link lost ({why}); bringing it up again: a sanitize goes on in the drive "
               f"through resets")
    try:
        sata.wait_link(target, reconnect_s)
    except sata.LinkError as e:
        raise PurgeInterrupted(
            f"the link did not come back after a drop during the sanitize ({e}). The drive's "
            f"state is not known from here: its last SANITIZE STATUS EXT said "
            f"{record['last_state']}; an erase goes on in the drive through resets and its data "
            f"is lost either way; {FOLLOW_AGAIN}") from None
    show(None, "link up again: asking the drive (SANITIZE STATUS EXT)")


def new_record():
    """What purge() and follow() keep of a run: the link drops met, the drive's last state."""
    return {"link_drops": 0, "last_state": "nothing yet", "events": []}


def follow(target, timeout, show, reconnect_s=RECONNECT_S, record=None):
    """Wait for the sanitize in progress to end; a link drop is recovered (the operation goes on
    in the drive) and counted in record. Returns the last status."""
    record = new_record() if record is None else record
    last_change, last = time.monotonic(), None
    while True:
        try:
            if not _link_ready(target):
                raise sata.LinkError("the link is down")
            st = status(target, timeout)
        except CommandAborted as e:
            raise PurgeInterrupted(f"SANITIZE STATUS EXT aborted while following the sanitize "
                                   f"({e}): its last status said {record['last_state']}; "
                                   f"{FOLLOW_AGAIN}") from None
        except sata.LinkError as e:
            reconnect(target, record, show, e, reconnect_s)
            record["events"].append(f"link lost while the sanitize ran at "
                                    f"{_percent(last)}; back up, the sanitize followed")
            continue
        record["last_state"] = (f"in progress at {_percent(st['progress'])}"
                                if st["in_progress"] else
                                "ended, " + ("completed without error" if st["completed"]
                                             else "not completed"))
        if not st["in_progress"]:
            return st
        if st["progress"] != last:
            last, last_change = st["progress"], time.monotonic()
        elif time.monotonic() - last_change > STALL_S:
            raise PurgeInterrupted(f"SANITIZE: no progress for {STALL_S:.0f} s at "
                                   f"{_percent(last)}: the drive may have stopped; "
                                   f"{FOLLOW_AGAIN}, or ask the drive's vendor")
        show(st["progress"], None)
        time.sleep(POLL_S)


def shower(stream):
    """show(fraction, text) for purge() and follow(): a progress bar, or a line of text."""
    def show(frac, text):
        if text:
            stream.write(f"\n{text}\n")
        else:
            bar = "#" * int(20 * frac) + "." * (20 - int(20 * frac))
            stream.write(f"\r[{bar}] sanitize {100 * frac:5.1f}%\x1b[K")
        stream.flush()
    return show


def _start(target, timeout, m, before, record, show, reconnect_s):
    """Send the erase. A link lost with the command: bring it up again and ask the drive whether
    it started (in progress, or completed since `before` was not), else send it once more.
    Returns the drive's status when the erase is already over, else None (follow it)."""
    name, features, key, _ = m
    for attempt in (1, 2):
        try:
            ata_command(target, ATA_SANITIZE, features, lba=key, timeout=timeout, what=name)
            return None
        except CommandAborted as e:
            raise TargetError(f"{name} refused by the drive: {e}") from None
        except sata.LinkError as e:
            reconnect(target, record, show, e, reconnect_s)
        try:
            st = status(target, timeout)
        except sata.LinkError as e:
            raise PurgeInterrupted(f"{name}: the link was lost with the command, and the drive "
                                   f"could not be asked whether it started it ({e}): it may be "
                                   f"erasing; {FOLLOW_AGAIN}") from None
        if st["in_progress"]:
            record["events"].append(f"link lost with the {name} command; the drive had "
                                    f"started it")
            return None
        if st["completed"] and not before["completed"]:
            record["events"].append(f"link lost with the {name} command; the drive had "
                                    f"started it and completed it meanwhile")
            return st
        if attempt == 2:
            raise PurgeInterrupted(f"{name}: the link was lost with the command twice and the "
                                   f"drive reports no sanitize in progress: nothing was erased "
                                   f"as far as the drive says; run `ecpsata purge` again")
        record["events"].append(f"link lost with the {name} command before the drive took it: "
                                f"sent again")


def purge(target, ident, timeout, show, reconnect_s=RECONNECT_S):
    """Erase the whole drive; returns what was done (method, resumed, completed, link_drops,
    events: what happened on the way)."""
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
    record = new_record()
    resumed = st["in_progress"]
    if resumed:
        record["events"].append(f"a sanitize was in progress at {_percent(st['progress'])}: "
                                f"followed, not started again")
    ended = None if resumed else _start(target, timeout, m, st, record, show, reconnect_s)
    st = ended or follow(target, timeout, show, reconnect_s, record)
    if not st["completed"]:
        raise PurgeInterrupted("SANITIZE ended without its 'completed without error' bit: the "
                               "drive says the erase failed (SANITIZE STATUS EXT count bit 15 "
                               "clear); its data is in an unknown state")
    return {"method": m[0], "resumed": resumed, "completed": True,
            "link_drops": record["link_drops"], "events": record["events"]}


def describe(res):
    """What purge() did, for a line of output after 'purged MODEL SERIAL: '."""
    text = res["method"]
    if res.get("resumed"):
        text += " (followed the sanitize already in progress)"
    if res.get("link_drops"):
        text += (f"; the link dropped {res['link_drops']} time(s) on the way, came back, and the "
                 f"drive reported the sanitize completed without error: "
                 + "; ".join(res["events"]))
    return text


def cmd_purge(target, args):
    from ecpsata.host import report
    sata.wait_link(target, args.timeout)
    ident = sata.prepare_drive(target, args.timeout, auto_activate=args.auto_activate)
    if args.erase != ident["serial"]:
        raise TargetError(f"--erase {args.erase!r} is not this drive's serial number "
                          f"({ident['serial']!r}, model {ident['model']!r}): nothing sent")
    try:
        res = purge(target, ident, args.timeout, shower(sys.stderr),
                    reconnect_s=max(RECONNECT_S, args.timeout))
    except KeyboardInterrupt:
        sys.stderr.write(f"\ninterrupted: a sanitize already started goes on in the drive; "
                         f"{FOLLOW_AGAIN}\n")
        raise
    sys.stderr.write("\n")
    print(f"purged {ident['model']} {ident['serial']}: {describe(res)}")
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
