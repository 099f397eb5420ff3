"""`python -m bench SUBCOMMAND`: talk to an ecpsata SoC through litex_server.

The SoC's registers are looked up by name in the build's csr.csv; every figure printed comes from
registers of the gateware.
"""

import argparse
import json
import sys
import time

from bench import sata
from bench.ata import SECTOR
from bench.pattern import pattern_bytes
from bench.target import Target, TargetError


def cmd_info(target, args):
    ident = target.identity()
    if args.json:
        print(json.dumps(ident, indent=2))
        return 0
    built = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(ident["build_time"]))
    print(f"ident      {ident['ident']}")
    print(f"board      {ident['board']}")
    print(f"git        {ident['git_rev']}{' (dirty)' if ident['git_dirty'] else ''}")
    print(f"built      {built}")
    print(f"sys_clk    {ident['sys_clk_hz'] / 1e6:.3f} MHz")
    print(f"features   {' '.join(ident['features']) or '-'}")
    return 0


def _link_line(st):
    return (f"Gen{st['gen']}, up in {st['time_to_link_us']:.2f} us "
            f"({st['time_to_link_cycles']} sys cycles, {st['retries']} retries)")


def cmd_status(target, args):
    st = sata.link_status(target)
    if args.json:
        print(json.dumps(st, indent=2))
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
    return 0


def cmd_identify(target, args):
    st = sata.wait_link(target, args.timeout)
    ident = sata.identify(target, args.timeout)
    if args.json:
        print(json.dumps({"link": st, "identify": ident}, indent=2))
        return 0
    print(f"link         {_link_line(st)}")
    print(f"model        {ident['model']}")
    print(f"serial       {ident['serial']}")
    print(f"firmware     {ident['firmware']}")
    print(f"capacity     {ident['sectors']} sectors ({ident['bytes'] / 1e9:.2f} GB, "
          f"{ident['bytes'] / 2**30:.2f} GiB)")
    print(f"lba48        {'yes' if ident['lba48'] else 'no (28-bit commands)'}")
    print(f"ncq          {'yes, depth %d' % ident['queue_depth'] if ident['ncq'] else 'no'}")
    print(f"gens         {' '.join('Gen%d' % g for g in ident['gens'])}")
    rot = ident["rotation"]
    print(f"rotation     {'non-rotating' if rot == 1 else (f'{rot} rpm' if 0x400 < rot < 0xFFFF else 'not reported')}")
    return 0


def parse_range(text):
    try:
        lba, count = (int(x, 0) for x in text.split(":"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"range must be LBA:COUNT, not {text!r}") from None
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


def cmd_verify(target, args):
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
        print(json.dumps(result, indent=2))
    else:
        print(f"verify: {count} sectors written and read back, {bad_sectors} bad sectors, "
              f"{bad_dwords} bad dwords" + (f", first bad LBA {first_bad}" if first_bad is not None else ""))
    return 0 if bad_sectors == 0 else 1


def _progress(what, done, total):
    if sys.stderr.isatty():
        sys.stderr.write(f"\r{what}: {done}/{total} sectors")
        if done == total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def build_parser():
    p = argparse.ArgumentParser(prog="python -m bench", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--host", default="127.0.0.1", help="litex_server host (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=1234, help="litex_server port (default 1234)")
    p.add_argument("--csr-csv", default="build/sim/csr.csv", help="csr.csv of the running build")
    p.add_argument("--timeout", type=float, default=5.0, help="seconds to wait for any answer")
    sub = p.add_subparsers(dest="command", metavar="SUBCOMMAND")
    s = sub.add_parser("info", help="identity of the gateware")
    s.add_argument("--json", action="store_true", help="print JSON")
    s.set_defaults(func=cmd_info)
    s = sub.add_parser("status", help="SATA link status")
    s.add_argument("--json", action="store_true", help="print JSON")
    s.set_defaults(func=cmd_status)
    s = sub.add_parser("identify", help="link state and the drive's IDENTIFY DEVICE data")
    s.add_argument("--json", action="store_true", help="print JSON")
    s.set_defaults(func=cmd_identify)
    s = sub.add_parser("read", help="read sectors (hexdump, or --out FILE)")
    s.add_argument("lba", type=lambda x: int(x, 0))
    s.add_argument("count", type=lambda x: int(x, 0))
    s.add_argument("--out", help="write the data to this file instead of a hexdump")
    s.set_defaults(func=cmd_read)
    s = sub.add_parser("verify", help="write a pattern to a range, read it back, count errors "
                       "(destroys the data in the range)")
    s.add_argument("--allow-write", action="store_true", help="required: this writes to the drive")
    s.add_argument("--range", type=parse_range, required=True, metavar="LBA:COUNT",
                   help="the sectors to overwrite")
    s.add_argument("--seed", type=lambda x: int(x, 0), default=0x5EED, help="pattern seed")
    s.add_argument("--json", action="store_true", help="print JSON")
    s.set_defaults(func=cmd_verify)
    return p


def main(argv=None):
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parser.parse_args(argv)
    if getattr(args, "command", None) == "verify" and not args.allow_write:
        parser.error("verify overwrites the range: add --allow-write to confirm")
    if args.command is None:
        args = parser.parse_args(argv + ["info"])
    try:
        with Target(args.host, args.port, args.csr_csv, args.timeout) as target:
            return args.func(target, args)
    except TargetError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
