# SPDX-License-Identifier: BSD-2-Clause
"""`ecpsata SUBCOMMAND` (or `python -m ecpsata SUBCOMMAND`): talk to an ecpsata SoC through
litex_server.

The SoC's registers are looked up by name in the build's csr.csv; every figure printed comes from
registers of the gateware.
"""

import argparse
import json
import os
import sys
import time

from ecpsata.host import (checks, events, experiments, health, htmlreport, phy, purge, report,
                          sata, selftest, trim)
from ecpsata.host.argtypes import int_in, parse_range, positive, sectors
from ecpsata.host.ata import SECTOR
from ecpsata.host.engine import RunError
from ecpsata.host.progress import Progress
from ecpsata.host.session import Session
from ecpsata.host.target import Target, TargetError


def cmd_info(target, args):
    ident = target.identity()
    if args.json:
        print(json.dumps(ident, indent=2))
        return 0
    for label, text in report.target_lines(ident):
        print(f"{label:<10} {text}")
    return 0


def _link_line(st):
    return (f"Gen{st['gen']}, up in {st['time_to_link_us']:.2f} us "
            f"({st['time_to_link_cycles']} sys cycles, {st['retries']} retries)")


def cmd_status(target, args):
    st = sata.link_status(target)
    drive = sata.drive_state(target)
    if args.clear_serror and drive is not None:
        # Write 1 to clear; the read after it returns once the write has reached the SoC (a
        # bridge write is not acknowledged), so the bits are cleared when the command ends.
        target.reg("sata_errors_serror").write(drive["serror"])
        target.reg("sata_errors_serror").read()
    if args.json:
        print(json.dumps(dict(st, drive=drive), indent=2))
        return 0
    print(f"link         {'up' if st['ready'] else 'down'}")
    print(f"state        {st['state']}")
    print(f"gen          Gen{st['gen']}")
    print(f"serdes       tx_ready={st['tx_ready']} rx_ready={st['rx_ready']} rx_los={st['rx_los']} "
          f"rx_polarity={st['rx_polarity']}")
    print(f"retries      {st['retries']}")
    print(f"link ups     {st['link_ups']}, downs {st['link_downs']}")
    print(f"8b10b errors code {st['code_errors']}, disparity {st['disp_errors']}")
    print(f"time to link {st['time_to_link_us']:.2f} us")
    if drive is not None:
        state = ("ready" if drive["ready"] else
                 f"never ready (busy {drive['busy_s']:.1f} s)" if drive["never_ready"] else
                 f"busy for {drive['busy_s']:.1f} s" if st["ready"] else "-")
        print(f"drive        {state}; last status 0x{drive['tf_status']:02x}")
        print(f"signature    {sata.signature_text(drive['signature']) if drive['signature'] else 'none yet'}")
        print(f"SError       0x{drive['serror']:08x} {{ {' '.join(drive['serror_names'])} }}"
              + (" (cleared)" if args.clear_serror and drive["serror"] else ""))
        if drive["cmd_failures"]:
            print(f"last failed  {drive['cmd_reason']} ({drive['cmd_failures']} failed commands)")
    return 0


_yes = report.yes_text


def cmd_identify(target, args):
    st = sata.wait_link(target, args.timeout)
    ident = sata.prepare_drive(target, args.timeout, auto_activate=args.auto_activate,
                               usable=False)
    drive = sata.drive_state(target)
    if args.json:
        print(json.dumps({"link": st, "drive": drive, "identify": ident}, indent=2))
        return 0
    print(f"link         {_link_line(st)}")
    if drive is not None:
        busy = f"; ready after {drive['busy_s']:.1f} s busy" if drive["busy_s"] >= 0.05 else ""
        print(f"device       {sata.signature_text(drive['signature'])}{busy}")
        print(f"SError       0x{drive['serror']:08x} {{ {' '.join(drive['serror_names'])} }}")
    # the lines a results folder's report repeats (report.drive_lines), then the rest
    shared = report.drive_lines(ident)
    rot = ident["rotation"]
    lines = [*[(k, shared[k]) for k in ("model", "serial", "firmware", "capacity")],
             ("sector", f"{ident['sector_bytes']} bytes (logical)"),
             ("lba", "yes" if ident["lba"] else "no (CHS only: the bench cannot use this drive)"),
             *[(k, shared[k]) for k in ("lba48", "ncq", "gens")],
             ("rotation", "non-rotating" if rot == 1 else
              (f"{rot} rpm" if 0x400 < rot < 0xFFFF else "not reported")),
             ("write cache", shared["write cache"]),
             ("look-ahead", _yes(ident["look_ahead"], ident["look_ahead_enabled"])),
             ("auto-activate", shared["auto-activate"])]
    for label, text in lines:
        print(f"{label:<12} {text}")
    print(f"DIPM         {_yes(ident['dipm'], ident['dipm_enabled'])} "
          f"(device-initiated power management)")
    if ident["sector_bytes"] != SECTOR:
        print(f"usable       no: logical sectors of {ident['sector_bytes']} bytes; the bench moves "
              f"{SECTOR}-byte sectors")
    for note in ident["notes"]:
        print(f"note: {note}")
    return 0


def hexdump(data, lba):
    lines = []
    for off in range(0, len(data), 16):
        if off % SECTOR == 0:
            lines.append(f"LBA {lba + off // SECTOR}:")
        chunk = data[off:off + 16]
        text = "".join(chr(c) if 0x20 <= c < 0x7F else "." for c in chunk)
        lines.append(f"{off % SECTOR:04x}  {' '.join(f'{c:02x}' for c in chunk)}  {text}")
    return "\n".join(lines)


def cmd_read(target, args):
    sata.wait_link(target, args.timeout)
    ident = sata.identify(target, args.timeout)
    sata.check_range(ident, args.lba, args.count)
    data = sata.SectorIO(target, args.timeout).read(args.lba, args.count)
    if args.out:
        with open(args.out, "wb") as f:
            f.write(data)
        print(f"read {len(data)} bytes from LBA {args.lba} into {args.out}")
    else:
        print(hexdump(data, args.lba))
    return 0


# Benchmark experiments ---------------------------------------------------------------------------

def _session(target, args, progress):
    return Session(target, timeout=args.timeout, time_scale=args.time_scale,
                         allow_write=args.allow_write, lba_range=args.range,
                         force_lba28=args.lba28, on_progress=progress, flush=args.flush,
                         write_cache=args.write_cache, auto_activate=args.auto_activate,
                         drive_state=args.drive_state)


def _run(session, progress, fn, **kwargs):
    """One experiment; Ctrl-C aborts the engine's run before giving up."""
    try:
        return fn(session, **kwargs)
    except KeyboardInterrupt:
        session.abort()
        raise
    finally:
        progress.clear()


def cmd_experiment(target, args):
    exp = experiments.get(args.command)
    if exp.direct is not None:
        rc = exp.direct(target, args)
        if rc is not None:
            return rc
    progress = Progress()
    s = _session(target, args, progress)
    try:
        res = _run(s, progress, exp.run, **{k: getattr(args, k) for k in exp.kwargs})
    finally:
        s.close()
    res["notes"] = s.notes + res["notes"]
    print(report.render(res))
    if args.json:
        report.write_json(args.json, report.document(res, s))
    if args.csv:
        report.write_csv(args.csv, res)
    if getattr(args, "plot", None):
        report.write_plot(args.plot, res)
    if exp.passed is not None and not exp.passed(res):
        return 1
    return 0


def cmd_suite(target, args):
    progress = Progress()
    s = _session(target, args, progress)
    write = args.allow_write
    span = experiments.suite_span(min(args.sectors, s.max_command))
    s.check_span("suite", s.base(), s.range_count(span), write=write)
    if args.range and args.range[1] < span:
        raise TargetError(f"suite: --range must hold at least {span} sectors")
    if not write:
        print("suite: writes not allowed: running the read experiments only (write parts and "
              "verify need --allow-write --range LBA:COUNT)\n")
    os.makedirs(args.out, exist_ok=True)
    t_suite = time.monotonic()
    try:
        _run_suite(s, progress, args, write)
    finally:
        s.close()
    index = htmlreport.write_index(args.out)
    print(f"suite: results in {args.out}/ (<experiment>.json, .csv, .png for sweeps and the "
          f"access histogram), {time.monotonic() - t_suite:.0f} s; report: {index}")
    return 0


def cmd_report(args):
    """(Re)build index.html from result files, without a board."""
    for path in htmlreport.rebuild(args.folder, plots=args.plots):
        print(f"report: {path}")
    return 0


def _run_suite(s, progress, args, write):
    for name, fn, kwargs in experiments.suite_plan(s, args.sectors, write):
        t0 = time.monotonic()
        res = _run(s, progress, fn, **kwargs)
        res["notes"] = s.notes + res["notes"]
        print(report.render(res))
        print(f"({name}: {time.monotonic() - t0:.1f} s wall clock)\n", flush=True)
        base = os.path.join(args.out, name)
        report.write_json(base + ".json", report.document(res, s))
        report.write_csv(base + ".csv", res)
        if report.can_plot(name):
            report.write_plot(base + ".png", res)
        htmlreport.write_index(args.out)     # a page of what is done, should a later part fail


def _add_common(s, plot=False, outputs=True):
    s.add_argument("--range", type=parse_range, metavar="LBA:COUNT",
                   help="sectors the experiment may use (required for writes; reads default to "
                        "a range at LBA 0)")
    s.add_argument("--allow-write", action="store_true",
                   help="allow writes inside --range (destroys the data there)")
    s.add_argument("--drive-state", action="store_true",
                   help="read the drive's own state (temperature, its sectors written, SMART, "
                        "Phy event counters) before and after each run into the report: a few "
                        "ATA commands between runs")
    s.add_argument("--lba28", action="store_true",
                   help="force 28-bit READ/WRITE DMA (automatic when the drive has no 48-bit LBA)")
    s.add_argument("--time-scale", type=positive(), default=None,
                   help="wall seconds per target second for the host's deadlines "
                        "(default 1000 on the simulated board, else 1)")
    s.add_argument("--no-flush", dest="flush", action="store_false",
                   help="writes without a final FLUSH CACHE EXT (by default every write's timed "
                        "interval ends after it: with the drive's write cache on, a write without "
                        "it measures the cache)")
    s.add_argument("--write-cache", choices=("on", "off"),
                   help="set the drive's volatile write cache for the run (SET FEATURES 02h / "
                        "82h), restored afterwards")
    if not outputs:
        return
    s.add_argument("--json", metavar="FILE", help="write the results as JSON (doc/bench-json.md)")
    s.add_argument("--csv", metavar="FILE", help="write the result rows as CSV")
    if plot:
        s.add_argument("--plot", metavar="FILE.png", help="plot the sweep into a PNG")


def _add_experiments(sub):
    for exp in experiments.all():
        s = sub.add_parser(exp.name, help=exp.help)
        _add_common(s, plot=exp.plot is not None)
        exp.add_arguments(s)
        s.set_defaults(func=cmd_experiment)
    s = sub.add_parser("suite", help="a scaled-down run of every experiment; tables plus "
                                     "OUT/<experiment>.json/.csv/.png")
    _add_common(s, outputs=False)
    s.add_argument("--out", default="results", help="folder for the result files (default results)")
    s.add_argument("--sectors", type=sectors, default=256, help="largest command of the suite")
    s.set_defaults(func=cmd_suite, json=None, csv=None)
    s = sub.add_parser("report", help="(re)build DIR/index.html from the result files in DIR, "
                                      "no board needed (a folder of result folders: each one's "
                                      "page and one over them)")
    s.add_argument("folder", metavar="DIR", help="results folder (suite --out), or its parent")
    s.add_argument("--plots", action="store_true",
                   help="draw every plot again from the JSON files first (overwrites the PNGs)")
    s.set_defaults(func=cmd_report, board=False)


def build_parser():
    p = argparse.ArgumentParser(prog="ecpsata", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--host", default="127.0.0.1", help="litex_server host (default 127.0.0.1)")
    p.add_argument("--port", type=int_in(1, 65535), default=1234,
                   help="litex_server port (default 1234)")
    p.add_argument("--csr-csv", default="build/sim/csr.csv", help="csr.csv of the running build")
    p.add_argument("--timeout", type=positive(" of seconds", most=86400), default=5.0,
                   help="seconds to wait for any answer")
    p.add_argument("--ready-timeout", type=positive(" of seconds", most=57), default=None,
                   help="seconds (of the target's time) the drive may stay busy after a reset "
                        "before it is reported as never ready (the gateware's default is 31: a "
                        "hard disk spins up in 5-30 s)")
    p.add_argument("--no-auto-activate", dest="auto_activate", action="store_false",
                   help="leave DMA Setup auto-activate as the drive has it (by default it is "
                        "enabled when the drive supports it)")
    sub = p.add_subparsers(dest="command", metavar="SUBCOMMAND")
    s = sub.add_parser("info", help="identity of the gateware")
    s.add_argument("--json", action="store_true", help="print JSON")
    s.set_defaults(func=cmd_info)
    s = sub.add_parser("status", help="SATA link status, the drive's state and SError")
    s.add_argument("--json", action="store_true", help="print JSON")
    s.add_argument("--clear-serror", action="store_true",
                   help="clear the SError bits shown (write 1 to clear, as AHCI)")
    s.set_defaults(func=cmd_status)
    s = sub.add_parser("identify", help="link state and the drive's IDENTIFY DEVICE data")
    s.add_argument("--json", action="store_true", help="print JSON")
    s.set_defaults(func=cmd_identify)
    s = sub.add_parser("read", help="read sectors (hexdump, or --out FILE)")
    s.add_argument("lba", type=int_in(0))
    s.add_argument("count", type=int_in(1))
    s.add_argument("--out", help="write the data to this file instead of a hexdump")
    s.set_defaults(func=cmd_read)
    events.add_parser(sub)
    health.add_parser(sub)
    phy.add_parser(sub)
    selftest.add_parser(sub)
    trim.add_parser(sub)
    purge.add_parser(sub)
    _add_experiments(sub)
    return p


def main(argv=None):
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parser.parse_args(argv)
    if args.command is None:
        args = parser.parse_args(argv + ["info"])
    checks.check_args(parser, args)
    checks.check_write_permission(parser, args)
    if getattr(args, "board", True) is False:
        try:
            return args.func(args)
        except TargetError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
    try:
        with Target(args.host, args.port, args.csr_csv, args.timeout) as target:
            try:
                if args.ready_timeout is not None:
                    sata.set_ready_timeout(target, args.ready_timeout)
                return args.func(target, args)
            except (RunError, sata.LinkError) as e:
                # A link attempt or a command failed: what the link did, as the console shows it.
                print(f"error: {e}", file=sys.stderr)
                e.details = dict(getattr(e, "details", None) or {})
                log = events.after_failure(target)
                if log is not None:
                    e.details["link_events"] = log
                if getattr(args, "json", None):
                    report.write_json(args.json, report.error_document(args.command, str(e),
                                                                       e.details))
                return 2
    except TargetError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except (ConnectionError, TimeoutError) as e:
        print(f"error: lost the connection to litex_server at {args.host}:{args.port}: {e}",
              file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
