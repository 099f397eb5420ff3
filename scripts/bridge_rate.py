# SPDX-License-Identifier: BSD-2-Clause
"""CSR reads per second through litex_server: the simulated ECPIX-5 over Etherbone against its
board UART's bridge. Each read is one round trip to the SoC (the identity register), timed with
the host's clock: it measures the host link (here, through the simulation), not the SoC. Also the
rate of the host CLI's live progress updates during a 65,536-sector read (the display wants at
least 10 per second).

    .venv/bin/python -m ecpsata.host.netns -- .venv/bin/python scripts/bridge_rate.py   # both bridges
    .venv/bin/python scripts/bridge_rate.py --bridge uart                          # UART only

Needs the simulated ECPIX-5 (make build/ecpix5_sim/.built); Etherbone runs only inside the
network namespace ecpsata/host/netns.py makes (the tap interface stays in it).
"""

import argparse
import os
import sys
import time


from ecpsata.host import netns
from ecpsata.host.simboard import SimBoard, pick_free_port
from ecpsata.host.target import Target


def reads_per_second(board, seconds):
    with Target(port=board.server_port, csr_csv=os.path.join(board.build_dir, "csr.csv"),
                timeout=30.0) as t:
        reg = t.reg("identity_board")
        n, t0 = 0, time.monotonic()
        while time.monotonic() - t0 < seconds:
            reg.read()
            n += 1
        return n / (time.monotonic() - t0), n


def progress_rate(board, sectors=65536):
    """Live progress updates per second of wall-clock time during one `single` read."""
    from ecpsata.host import cli
    stamps = []
    shown = cli.Progress.__call__
    cli.Progress.__call__ = lambda self, p: stamps.append(time.monotonic())
    try:
        rc = cli.main(["--port", str(board.server_port), "--csr-csv",
                       os.path.join(board.build_dir, "csr.csv"), "--timeout", "120", "single",
                       "--sectors", str(sectors)])
    finally:
        cli.Progress.__call__ = shown
    if rc != 0 or len(stamps) < 2:
        return 0.0, len(stamps)
    return (len(stamps) - 1) / (stamps[-1] - stamps[0]), len(stamps)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bridge", choices=("uart", "etherbone", "both"), default="both")
    ap.add_argument("--seconds", type=float, default=5.0, help="time per bridge (default 5 s)")
    args = ap.parse_args(argv)
    bridges = ["uart", "etherbone"] if args.bridge == "both" else [args.bridge]
    if "etherbone" in bridges and not os.environ.get(netns.ENV):
        ap.error("Etherbone needs the network namespace: run under python -m ecpsata.host.netns --")
    rows = []
    for bridge in bridges:
        with SimBoard(board="ecpix5_sim", bridge=bridge, server_port=pick_free_port()) as board:
            rate, n = reads_per_second(board, args.seconds)
            hz, updates = progress_rate(board)
        rows.append(f"{bridge:<10} {n:>7} {rate:>9.0f} {updates:>16} {hz:>11.1f}")
    print(f"{'bridge':<10} {'reads':>7} {'reads/s':>9} {'progress updates':>16} {'updates/s':>11}")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
