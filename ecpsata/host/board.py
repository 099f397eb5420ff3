# SPDX-License-Identifier: BSD-2-Clause
"""Run the bench CLI against a real board: start litex_server on the given bridge, run, stop.

    python -m ecpsata.host.board --board ecpix5 --bridge uart:/dev/ttyUSB1 -- info
    python -m ecpsata.host.board --board ecpix5 --bridge etherbone:192.168.1.50 -- info
"""

import argparse
import os
import signal
import subprocess
import sys

from ecpsata.host.server import argv as server_argv
from ecpsata.host.simboard import LOOPBACK, REPO, SimBoardError, port_is_free, wait_for_port


def server_command(bridge, port):
    kind, _, where = bridge.partition(":")
    if kind == "uart" and where:
        if not os.path.exists(where):
            raise SimBoardError(f"{where} does not exist (is the board's USB cable plugged in?)")
        return ["--uart", "--uart-port", where]
    if kind == "etherbone" and where:
        return ["--udp", "--udp-ip", where]
    raise SimBoardError(f"BRIDGE must be uart:/dev/ttyUSBx or etherbone:IP, not {bridge!r}")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--board", required=True)
    p.add_argument("--bridge", default="", help="uart:/dev/ttyUSBx or etherbone:IP")
    p.add_argument("--server-port", type=int, default=1234)
    p.add_argument("args", nargs=argparse.REMAINDER, help="bench CLI arguments")
    args = p.parse_args(argv)
    csr_csv = os.path.join(REPO, "build", args.board, "csr.csv")
    bench_args = [a for a in args.args if a != "--"] or ["info"]
    server = None
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    try:
        if not os.path.exists(csr_csv):
            raise SimBoardError(f"{csr_csv} not found: run make build BOARD={args.board} first")
        if not port_is_free(args.server_port):
            raise SimBoardError(f"port {args.server_port} is busy (another litex_server?); set SERVER_PORT")
        cmd = server_argv(*server_command(args.bridge, args.server_port), bind_ip=LOOPBACK,
                          bind_port=args.server_port)
        server = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, start_new_session=True, cwd=REPO)
        wait_for_port(args.server_port, server, "litex_server", 20).close()
        return subprocess.call([sys.executable, "-m", "ecpsata", "--port", str(args.server_port),
                                "--csr-csv", csr_csv, *bench_args])
    except SimBoardError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    finally:
        if server is not None and server.poll() is None:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=10)


if __name__ == "__main__":
    sys.exit(main())
