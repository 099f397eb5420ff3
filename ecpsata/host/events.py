# SPDX-License-Identifier: BSD-2-Clause
"""The link event log (gateware: ecpsata/frontend/events.py, CSRs `sata_events_*`) from the host:
`ecpsata events [--last N] [--json FILE] [--clear]`.

Every event carries the sys-cycle time the gateware wrote it with; times are printed in
microseconds since the SoC's power-up, at the gateware's own clock (identity_sys_clk)."""

import sys

from ecpsata.core.common import CMD_REASONS, LINK_EVENTS, LINK_EVENT_EDGES
from ecpsata.host import report
from ecpsata.host.target import TargetError
from ecpsata.phy.ctrl import STATES

PREFIX = "sata_events_"
STATE_MASK = 0xF           # PHY_STATE: the state in bits 0-3, Gen2 in bit 4
EDGE_WORDS = {"RX_POLARITY": ("normal", "inverted"), "LINE": ("quiet", "signal")}


def describe(code, arg):
    """An event in words, as the console prints it."""
    if code not in LINK_EVENTS:
        return f"unknown event {code} ({arg})"
    name, text = LINK_EVENTS[code]
    if name == "PHY_STATE":
        state = arg & STATE_MASK
        return f"{text} {STATES[state] if state < len(STATES) else state} (Gen{(arg >> 4 & 1) + 1})"
    if name in LINK_EVENT_EDGES:
        return f"{text} {EDGE_WORDS.get(name, ('down', 'up'))[arg & 1]}"
    if name == "DEVICE_ERROR":
        return f"{text}, error register 0x{arg:02x}"
    if name == "CMD_FAILED":
        return f"{text}: {CMD_REASONS[arg][1] if arg in CMD_REASONS else f'reason {arg}'}"
    return text


def read(target, last=0):
    """The log: {count, lost, depth, now_cycles, now_us, events: [...]}, oldest event first;
    `last` > 0 keeps only the last that many."""
    if not target.has(PREFIX + "count"):
        raise TargetError("this gateware has no link event log (no sata_events_* registers): "
                          "rebuild it")
    depth = int(target.constants.get("sata_events_depth", 0))
    if depth <= 0:
        raise TargetError(f"no constant sata_events_depth in {target.csr_csv}: rebuild the gateware")
    f = target.sys_clk_hz()
    reg = lambda name: target.reg(PREFIX + name)
    count, lost = reg("count").read(), reg("lost").read()
    held = min(count, depth)
    n = held if not last else min(last, held)
    code_off, code_size = target.field(PREFIX + "entry", "code")
    arg_off, arg_size = target.field(PREFIX + "entry", "arg")
    events = []
    for k in range(count - n, count):
        reg("index").write(k % depth)
        entry, t = reg("entry").read(), reg("time").read()
        code = entry >> code_off & ((1 << code_size) - 1)
        arg = entry >> arg_off & ((1 << arg_size) - 1)
        events.append({"n": k, "time_cycles": t, "time_us": t * 1e6 / f, "code": code,
                       "name": LINK_EVENTS[code][0] if code in LINK_EVENTS else None, "arg": arg,
                       "text": describe(code, arg)})
    now = reg("now").read()
    return {"count": count, "lost": lost, "depth": depth, "sys_clk_hz": f, "now_cycles": now,
            "now_us": now * 1e6 / f, "events": events}


def lines(log):
    """The log as the console prints it: a header, then one line per event."""
    out = [f"events: {log['count']} since the clear, the last {len(log['events'])} shown "
           f"({log['lost']} lost), times in us since power-up (now {log['now_us']:.2f})"]
    out += [f"{e['time_us']:15.2f}  {e['text']}" for e in log["events"]]
    return out


AFTER_FAILURE = 12   # events shown when a command fails (as the console's `fail`)


def after_failure(target, out=None):
    """Print the last AFTER_FAILURE events after a failed link attempt or command, and return
    them (for the error's JSON), or None where the gateware has no log or it cannot be read
    (the failure may be the bridge's own)."""
    out = out or sys.stderr
    if not target.has(PREFIX + "count"):
        return None
    try:
        log = read(target, AFTER_FAILURE)
    except (TargetError, OSError) as e:
        print(f"(the link event log could not be read: {e})", file=out)
        return None
    print(f"the link's last {len(log['events'])} events ('ecpsata events' shows the whole log):",
          file=out)
    for line in lines(log)[1:]:
        print(line, file=out)
    return log["events"]


def cmd_events(target, args):
    log = read(target, args.last)
    for line in lines(log):
        print(line)
    if args.json:
        report.write_json(args.json, dict(log, tool=report.TOOL, kind="events",
                                          target=target.identity()))
    if args.clear:
        target.reg(PREFIX + "control").write(1 << target.field(PREFIX + "control", "clear")[0])
        target.reg(PREFIX + "count").read()      # the write has reached the SoC
        print("events: cleared")
    return 0


def add_parser(sub):
    s = sub.add_parser("events", help="the link event log: OOB, speed attempts, lock, link up and "
                                      "down, drive ready, errors, with their times")
    s.add_argument("--last", type=int, default=0, metavar="N",
                   help="only the last N events (default: all the log holds)")
    s.add_argument("--json", metavar="FILE", help="also write the events as JSON")
    s.add_argument("--clear", action="store_true", help="empty the log after reading it")
    s.set_defaults(func=cmd_events)
    return s


def check(parser, args):
    if args.command == "events" and args.last < 0:
        parser.error("events: --last N must be 0 or more")
