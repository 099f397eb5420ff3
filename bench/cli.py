"""`python -m bench SUBCOMMAND`: talk to an ecpsata SoC through litex_server.

The SoC's registers are looked up by name in the build's csr.csv; every figure printed comes from
registers of the gateware.
"""

import argparse
import json
import sys
import time

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
    return p


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        args = parser.parse_args(["info"] if argv is None or not argv else argv + ["info"])
    try:
        with Target(args.host, args.port, args.csr_csv, args.timeout) as target:
            return args.func(target, args)
    except TargetError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
