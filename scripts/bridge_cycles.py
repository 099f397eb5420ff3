# SPDX-License-Identifier: BSD-2-Clause
"""What one bus read through a host bridge costs in the simulated ECPIX-5, in sys cycles of the
SoC's uptime counter: reads of 1, 128 and 255 words, and of the whole sector buffer as the
tools read it (requests of 255 words, all sent before the first answer is read), through
litex_server (the server the tools start, ecpsata/host/server.py), over the board UART's bridge and over Etherbone; with
--cpu-reset, after holding the CPU in reset for a moment (ctrl_reset), to see what the firmware's
own bus use costs the bridges; with --records, Etherbone read records of 128 words sent straight
to the SoC (no litex_server) with 1, 2 and 3 of them in flight.

    .venv/bin/python -m ecpsata.host.netns -- .venv/bin/python scripts/bridge_cycles.py
    .venv/bin/python scripts/bridge_cycles.py --bridge uart                 # no namespace needed

The cycles of a read include the host's time to answer (the simulation runs on meanwhile), so
they move with the host's speed and load. Needs the simulated ECPIX-5 (make build/ecpix5_sim/.built).
"""

import argparse
import os
import socket
import sys
import time
from types import SimpleNamespace

from litex.tools.remote.etherbone import EtherbonePacket, EtherboneRecord, EtherboneWrites

from ecpsata.host import netns, server
from ecpsata.host.ata import SECTOR
from ecpsata.host.sata import DMA_SECTORS
from ecpsata.host.simboard import SimBoard, pick_free_port
from ecpsata.host.target import REQUEST_WORDS, Target
from ecpsata.platforms.ecpix5_sim import BOARD_IP

BUFFER_WORDS = DMA_SECTORS * SECTOR // 4   # the sector buffer: what SectorIO reads at a time
ETHERBONE_PORT = 1234     # the SoC's Etherbone UDP port, which also answers to that port


def through_server(board, words, n, cpu_reset):
    """[(words, cycles per read)] through litex_server."""
    with Target(port=board.server_port, csr_csv=os.path.join(board.build_dir, "csr.csv"),
                timeout=30.0) as t:
        def cycles():
            t.reg("timer0_uptime_latch").write(1)
            return t.reg("timer0_uptime_cycles").read()
        if cpu_reset:
            t.reg("ctrl_reset").write(2)
            t.reg("ctrl_reset").write(0)
            time.sleep(1.0)
        base, _ = t.mem_region("sata_buffer")
        out = []
        for w in words:
            bursts = [(base + 4 * off, min(REQUEST_WORDS, w - off)) for off in range(0, w, REQUEST_WORDS)]
            t.read_bursts(bursts)
            c0 = cycles()
            for _ in range(n):
                t.read_bursts(bursts)
            out.append((w, (cycles() - c0) / n))
        return out


def csr_addresses(csv):
    regs = {}
    for line in open(csv):
        f = line.strip().split(",")
        if f[0] == "csr_register":
            regs[f[1]] = int(f[2], 0)
        if f[0] == "memory_region" and f[1] == "sata_buffer":
            regs["sata_buffer"] = int(f[2], 0)
    return regs


def records_in_flight(board, words=128, windows=(1, 2, 3), n=24):
    """[(in flight, cycles per record)]: read records sent straight to the SoC's Etherbone, as
    ecpsata/host/server.py sends them. The board's litex_server is stopped first: the SoC answers
    to UDP port 1234, which it holds."""
    board.procs[-1].kill()
    board.procs[-1].wait()
    regs = csr_addresses(os.path.join(board.build_dir, "csr.csv"))
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("", ETHERBONE_PORT))
    s.settimeout(5.0)
    comm = SimpleNamespace(socket=s, server=BOARD_IP, port=ETHERBONE_PORT, addr_width=32,
                           read_counter=0)

    def cycles():
        comm.socket.sendto(write_packet(regs["timer0_uptime_latch"], 1), (BOARD_IP, ETHERBONE_PORT))
        return server.pipelined_read(comm, regs["timer0_uptime_cycles"], 2)

    def uptime():
        hi, lo = cycles()
        return hi << 32 | lo

    base = regs["sata_buffer"]
    out = []
    for window in windows:
        c0 = uptime()
        sent = got = 0
        while got < n:
            while sent < n and sent - got < window:
                server.request(comm, base, 0, words)
                sent += 1
            s.recvfrom(8192)     # a lost answer ends the script with socket.timeout
            got += 1
        out.append((window, (uptime() - c0) / n))
    s.close()
    return out


def write_packet(addr, value):
    record = EtherboneRecord(4)
    record.writes = EtherboneWrites(addr_size=4, base_addr=addr, datas=[value])
    record.wcount = 1
    packet = EtherbonePacket(32)
    packet.records = [record]
    packet.encode()
    return packet.bytes


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bridge", choices=("uart", "etherbone", "both"), default="both")
    ap.add_argument("--reads", type=int, default=20, help="reads per figure (default 20)")
    ap.add_argument("--cpu-reset", action="store_true",
                    help="hold the CPU in reset for a moment first (the firmware restarts)")
    ap.add_argument("--records", action="store_true",
                    help="also Etherbone records straight to the SoC, 1 to 3 in flight")
    args = ap.parse_args(argv)
    bridges = ["uart", "etherbone"] if args.bridge == "both" else [args.bridge]
    if "etherbone" in bridges and not os.environ.get(netns.ENV):
        ap.error("Etherbone needs the network namespace: run under python -m ecpsata.host.netns --")
    if args.records and "etherbone" not in bridges:
        ap.error("--records is Etherbone's")
    print(f"{'bridge':<10} {'words':>5} {'cycles/read':>11} {'cycles/word':>11}")
    for bridge in bridges:
        with SimBoard(board="ecpix5_sim", bridge=bridge, server_port=pick_free_port()) as board:
            for w, c in through_server(board, (1, 128, 255, BUFFER_WORDS), args.reads, args.cpu_reset):
                print(f"{bridge:<10} {w:>5} {c:>11.0f} {c / w:>11.2f}", flush=True)
            if args.records and bridge == "etherbone":
                print(f"\n{'records in flight (128 words each)':<36} {'cycles/record':>13}")
                for window, c in records_in_flight(board):
                    print(f"{window:<36} {c:>13.0f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
