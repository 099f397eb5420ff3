# SPDX-License-Identifier: BSD-2-Clause
"""`ecpsata SUBCOMMAND` (or `python -m ecpsata SUBCOMMAND`): talk to an ecpsata SoC through
litex_server.

The SoC's registers are looked up by name in the build's csr.csv; every figure printed comes from
registers of the gateware.
"""

import argparse
import json
import math
import os
import sys
import time

from ecpsata.engines import common as bc
from ecpsata.host import checks, events, htmlreport, phy, quick, report, sata, selftest, suite
from ecpsata.host.ata import SECTOR
from ecpsata.host.progress import Progress
from ecpsata.host.pattern import pattern_bytes
from ecpsata.host.target import Target, TargetError
from ecpsata.host.engine import RunError

U32 = 2**32 - 1
LBA48_LIMIT = 1 << 48


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


def parse_range(text):
    try:
        lba, count = (int(x, 0) for x in text.split(":"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"range must be LBA:COUNT, not {text!r}") from None
    if lba < 0:
        raise argparse.ArgumentTypeError(f"LBA must be at least 0, not {lba}")
    if count < 1:
        raise argparse.ArgumentTypeError(f"COUNT must be at least 1, not {count}")
    if lba + count > LBA48_LIMIT:
        raise argparse.ArgumentTypeError(f"LBAs {lba}..{lba + count - 1} go beyond 48-bit LBA")
    return lba, count


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


def cmd_verify_buffer(target, args):
    """verify --buffer: the data goes through the sector buffer and the host, compared here."""
    lba, count = args.range
    sata.wait_link(target, args.timeout)
    ident = sata.identify(target, args.timeout)
    sata.check_range(ident, lba, count)
    io = sata.SectorIO(target, args.timeout)
    seed = args.seed
    chunk = 256
    print(f"verify: writing {count} sectors ({count * SECTOR / 2**20:.2f} MiB) from LBA {lba} "
          f"with seed 0x{seed:08x}, then reading them back", flush=True)
    for off in range(0, count, chunk):
        n = min(chunk, count - off)
        io.write(lba + off, pattern_bytes(seed, lba + off, n))
        _progress("write", off + n, count)
    bad_dwords = bad_sectors = 0
    first_bad = None
    for off in range(0, count, chunk):
        n = min(chunk, count - off)
        got = io.read(lba + off, n)
        want = pattern_bytes(seed, lba + off, n)
        for s in range(n):
            g, w = got[s * SECTOR:(s + 1) * SECTOR], want[s * SECTOR:(s + 1) * SECTOR]
            if g != w:
                bad_sectors += 1
                bad_dwords += sum(g[i:i + 4] != w[i:i + 4] for i in range(0, SECTOR, 4))
                first_bad = lba + off + s if first_bad is None else first_bad
        _progress("read", off + n, count)
    result = {"lba": lba, "sectors": count, "bytes": count * SECTOR, "seed": seed,
              "bad_sectors": bad_sectors, "bad_dwords": bad_dwords, "first_bad_lba": first_bad}
    if args.json:
        report.write_json(args.json, result)
    print(f"verify: {count} sectors written and read back, {bad_sectors} bad sectors, "
          f"{bad_dwords} bad dwords" + (f", first bad LBA {first_bad}" if first_bad is not None else ""))
    return 0 if bad_sectors == 0 else 1


def _progress(what, done, total):
    if sys.stderr.isatty():
        sys.stderr.write(f"\r{what}: {done}/{total} sectors")
        if done == total:
            sys.stderr.write("\n")
        sys.stderr.flush()


# Benchmark experiments ---------------------------------------------------------------------------

def _experiment_kwargs(name, args):
    """The experiment function's arguments from the subcommand's options."""
    pick = {
        "single":   ("sectors", "write", "seed", "loops"),
        "long":     ("loops", "sectors", "write"),
        "hwloop":   ("loops", "sectors", "write"),
        "overhead": ("loops", "sectors", "write"),
        "lba28":    ("count", "write"),
        "latency":  ("min_kib", "max_kib", "runs"),
        "cpu":      ("count", "write"),
        "access":   ("n", "seed", "loops"),
        "random":   ("n", "min_sectors", "max_sectors", "seed", "qd", "qd_seq", "queued_only",
                     "write", "write_only", "loops", "mix"),
        "quick":    quick.KWARGS,
        "verify":   ("count", "seed", "check"),
    }[name]
    return {k: getattr(args, k) for k in pick}


def _session(target, args, progress):
    return suite.Session(target, timeout=args.timeout, time_scale=args.time_scale,
                         allow_write=args.allow_write, lba_range=args.range,
                         force_lba28=args.lba28, on_progress=progress, flush=args.flush,
                         write_cache=args.write_cache, auto_activate=args.auto_activate)


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
    if args.command == "verify" and args.buffer:
        return cmd_verify_buffer(target, args)
    progress = Progress()
    s = _session(target, args, progress)
    try:
        res = _run(s, progress, getattr(suite, args.command),
                   **_experiment_kwargs(args.command, args))
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
    if args.command == "verify":
        return 0 if res["summary"]["passed"] else 1
    return 0


def cmd_suite(target, args):
    progress = Progress()
    s = _session(target, args, progress)
    write = args.allow_write
    span = suite.suite_span(min(args.sectors, s.max_command))
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
    for name, fn, kwargs in suite.suite_plan(s, args.sectors, write):
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


def _int(text):
    return int(text, 0)


# argparse types that refuse nonsense while parsing, before anything is sent: a zero or negative
# size must not fall back to a default, and a bad port or timeout must not become a traceback.
def _int_in(lo, hi=None):
    """An integer (any base) in lo..hi (no upper bound when hi is None)."""
    def integer(text):
        value = _int(text)
        if hi is None and value < lo:
            raise argparse.ArgumentTypeError(f"must be at least {lo}, not {value}")
        if hi is not None and not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"must be {lo}..{hi}, not {value}")
        return value
    return integer


def _sectors_of(unit):
    """A positive multiple of `unit` sectors."""
    def integer(text):
        value = _int(text)
        if value < unit or value % unit:
            raise argparse.ArgumentTypeError(f"must be a positive multiple of {unit}, not {value}")
        return value
    return integer


def _positive(what="", most=None):
    """A finite number above 0 (and at most `most`)."""
    def number(text):
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a number, not {text!r}") from None
        if not (math.isfinite(value) and 0 < value <= (most or math.inf)):
            limit = f" (at most {most:g})" if most else ""
            raise argparse.ArgumentTypeError(f"must be a positive number{what}{limit}, not {text}")
        return value
    return number


def _queue_depths(text):
    """A comma list of queue depths 1..QD_MAX, e.g. 1,2,4,8,16,32 (sorted, each once)."""
    try:
        depths = [int(x, 0) for x in text.split(",")]
    except ValueError:
        depths = []
    if not depths or not all(1 <= d <= bc.QD_MAX for d in depths):
        raise argparse.ArgumentTypeError(f"must be a comma list of queue depths 1..{bc.QD_MAX} "
                                         f"(e.g. 1,2,4,8,16,32), not {text!r}")
    return sorted(set(depths))


_sectors = _int_in(1, bc.MAX_SECTORS)
_seed = _int_in(0, U32)


def _add_common(s, sweep=False, outputs=True):
    s.add_argument("--range", type=parse_range, metavar="LBA:COUNT",
                   help="sectors the experiment may use (required for writes; reads default to "
                        "a range at LBA 0)")
    s.add_argument("--allow-write", action="store_true",
                   help="allow writes inside --range (destroys the data there)")
    s.add_argument("--lba28", action="store_true",
                   help="force 28-bit READ/WRITE DMA (automatic when the drive has no 48-bit LBA)")
    s.add_argument("--time-scale", type=_positive(), default=None,
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
    if sweep:
        s.add_argument("--plot", metavar="FILE.png", help="plot the sweep into a PNG")


def _add_experiments(sub):
    def exp(name, help, sweep=False):
        s = sub.add_parser(name, help=help)
        _add_common(s, sweep)
        s.set_defaults(func=cmd_experiment)
        return s

    def write_flag(s, help="also write (needs --allow-write --range)"):
        s.add_argument("--write", action="store_true", help=help)

    def loops_flag(s):
        s.add_argument("--loops", type=_int_in(1, 1000), default=1, help="repeat every run N "
                       "times; rates as mean, stdev, min and max over the loops (default 1)")

    s = exp("single", "one command of up to 65,536 sectors: MB/s")
    s.add_argument("--sectors", type=_sectors, help="sectors (default: the largest command)")
    s.add_argument("--seed", type=_seed, default=suite.SEED, help="pattern seed of written data")
    write_flag(s)
    loops_flag(s)
    for name, loops, help in (("long", 512, "host loop of commands, loop counts 1..--loops (Tables 5-1/5-2)"),
                              ("hwloop", 4, "hardware sequencer vs host loop (Table 6-1)"),
                              ("overhead", 4, "status to next first data, both loops (Table 6-2)")):
        s = exp(name, help, sweep=name in suite.SWEEPS)
        s.add_argument("--loops", type=_int_in(2 if name == "overhead" else 1, U32), default=loops,
                       help=f"commands (default {loops})")
        s.add_argument("--sectors", type=_sectors, help="sectors per command (default: the largest)")
        write_flag(s)
    s = exp("lba28", "28-bit READ/WRITE DMA over the capacity (Table 7-1)")
    s.add_argument("--count", type=_int_in(1), help="sectors (default: the capacity below 2^28)")
    write_flag(s)
    s = exp("latency", "read time vs size, 10 runs, min/max dropped (e7SATA read test)", sweep=True)
    kib = _int_in(1, bc.MAX_SECTORS // 2)
    s.add_argument("--min", dest="min_kib", type=kib, default=16, help="smallest size, KiB")
    s.add_argument("--max", dest="max_kib", type=kib, default=4096, help="largest size, KiB")
    s.add_argument("--runs", type=_int_in(3, 64), default=10, help="runs per size (3..64)")
    s = exp("cpu", "data through the bridge and host vs through the engine (FPGA Drive dd test)")
    s.add_argument("--count", type=_sectors_of(sata.DMA_SECTORS), default=256,
                   help="sectors, a multiple of 16")
    write_flag(s)
    s = exp("access", "single-sector random read access time, latency percentiles and "
                      "histogram (Quantum SSD paper)", sweep=True)
    s.add_argument("-n", type=_int_in(1, 100_000), default=100, help="reads")
    s.add_argument("--seed", type=_seed, default=suite.SEED, help="random LBA seed")
    loops_flag(s)
    s = exp("random", "IOPS and MB/s vs request size, random vs sequential (Quantum SSD paper)",
            sweep=True)
    s.add_argument("-n", type=_int_in(1, U32), default=200, help="requests per size")
    s.add_argument("--min", dest="min_sectors", type=_sectors, default=1,
                   help="smallest request, sectors (default 1); sizes double up to --max")
    s.add_argument("--max", dest="max_sectors", type=_sectors, default=256,
                   help="largest request, sectors")
    s.add_argument("--seed", type=_seed, default=suite.SEED, help="random LBA seed")
    s.add_argument("--qd", type=_queue_depths, metavar="LIST",
                   help=f"also queued random reads (NCQ, READ FPDMA QUEUED) at these queue depths, "
                        f"a comma list of 1..{bc.QD_MAX}, e.g. 1,2,4,8,16,32")
    s.add_argument("--qd-seq", action="store_true",
                   help="with --qd: also queued sequential reads at each depth")
    s.add_argument("--queued-only", action="store_true",
                   help="with --qd: only the queued runs (no READ DMA EXT columns)")
    write_flag(s, "with --qd: also queued writes (WRITE FPDMA QUEUED; needs --allow-write --range)")
    s.add_argument("--write-only", action="store_true", help="with --qd: queued writes instead "
                   "of queued reads (needs --allow-write --range)")
    s.add_argument("--mix", type=_int_in(0, 100), metavar="READ_PERCENT", help="with --qd: also a "
                   "queued read/write mix, READ_PERCENT %% reads as fio's rwmixread (writes: needs "
                   "--allow-write --range)")
    loops_flag(s)
    quick.add_arguments(exp("quick", quick.HELP), _int_in, _sectors, _seed)
    s = exp("verify", "write a pattern to --range, read it back through the engine, count "
                      "errors (destroys the data in the range)")
    s.add_argument("--count", type=_int_in(1), help="sectors (default: the whole --range)")
    s.add_argument("--seed", type=_seed, default=0x5EED, help="pattern seed")
    s.add_argument("--check", action="store_true", help="only read and check an earlier write")
    s.add_argument("--buffer", action="store_true",
                   help="the old path: data through the sector buffer and the host")
    s = sub.add_parser("suite", help="a scaled-down run of every experiment; tables plus "
                                     "OUT/<experiment>.json/.csv/.png")
    _add_common(s, outputs=False)
    s.add_argument("--out", default="results", help="folder for the result files (default results)")
    s.add_argument("--sectors", type=_sectors, default=256, help="largest command of the suite")
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
    p.add_argument("--port", type=_int_in(1, 65535), default=1234,
                   help="litex_server port (default 1234)")
    p.add_argument("--csr-csv", default="build/sim/csr.csv", help="csr.csv of the running build")
    p.add_argument("--timeout", type=_positive(" of seconds", most=86400), default=5.0,
                   help="seconds to wait for any answer")
    p.add_argument("--ready-timeout", type=_positive(" of seconds", most=57), default=None,
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
    s.add_argument("lba", type=_int_in(0))
    s.add_argument("count", type=_int_in(1))
    s.add_argument("--out", help="write the data to this file instead of a hexdump")
    s.set_defaults(func=cmd_read)
    events.add_parser(sub)
    phy.add_parser(sub)
    selftest.add_parser(sub)
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
