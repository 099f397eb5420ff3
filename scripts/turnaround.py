# SPDX-License-Identifier: BSD-2-Clause
"""Where the time between two read or write commands goes: the PHY, our core and the virtual
drive (ctypes) in Migen simulation, the line decoded into dwords on both sides.

    .venv/bin/python -m scripts.turnaround            # summary
    .venv/bin/python -m scripts.turnaround --trace    # plus the dword timeline of the gap
    .venv/bin/python -m scripts.turnaround --write    # writes (the drive's DMA Activate)
    .venv/bin/python -m scripts.turnaround --frame-check  # with the PHY's frame check

Reads (or writes) `--commands` commands of `--sectors` sectors back to back (the next one
presented at the previous one's status, as the benchmark engine does; a write's first data is
the cycle the core takes its first dword) and prints, per gap, status to first data, and for every
primitive the host answered during the gaps the time from its arrival at the host's receiver pads
to the host's answer on its transmitter pads. The answers the link layer gives in sys (R_OK after
EOF, SOF after R_RDY) are split in three: the receive path (the pads to the cycle the primitive
leaves the PHY's receive FIFO), the link layer (to the cycle it writes its answer into the PHY's
transmit sink) and the transmit path (to the answer on the pads). Then R_OK after every frame
the drive sent, Data FISes apart: with `--frame-check` (the PHY's option, which the ECPIX-5
builds by default) the PHY answers a good Data FIS's or status's EOF in the word clock; without
it the link layer answers every frame. With --dcu-latency the line
runs through the ECP5 DCU's data path latency (the DCUA model's, ecpsata/phy/ecp5/dcua_model.py)
and the times are at its pins. The times come from the simulator's clock: words of
6.667 ns at Gen2, sys at 100 MHz (the Migen harness of tests/support/phy_link_harness.py; the simulated
SoC and the boards run sys at 75 MHz).
"""

import argparse


from ecpsata.core.common import CTRL_FIS_DWORDS
from ecpsata.core.core import ECPSATACore
from ecpsata.engines.common import MAX_SECTORS28, SECTOR_DWORDS
from ecpsata.phy.ecp5.dcua_model import CONFIG as DCUA
from ecpsata.sim.vdrive import VirtualDrive
from ecpsata.sim.vdrive.host_model import DEC, PRIM_NAME
from tests.support.phy_harness import now_ns, run_word_sim
from tests.support.phy_link_harness import PHYDUT, drive_process

CAPACITY = 4096
FIRST_LBA = 10
DRIVE = f"persona=ideal,capacity={CAPACITY},cominit_interval_us=0"
# The host's answer to each drive primitive in a command's handshakes.
ANSWERS = {"SYNC": "X_RDY", "R_RDY": "SOF", "R_OK": "SYNC", "X_RDY": "R_RDY", "EOF": "R_OK"}
# The answers only the link layer gives (the others the PHY's word clock gives itself).
THROUGH_SYS = ("EOF", "R_RDY")


def symbol(code):
    for rd in (-1, 1):
        if (code, rd) in DEC:
            return DEC[(code, rd)][0]
    return None


def dwords(words):
    """[(t_ns, word)] of one direction -> [(t_ns, name)]: primitive names, 'D' for data, '?' for
    undecodable; dword boundaries from the first K28.5."""
    start = next(i for i, (_, w) in enumerate(words) if symbol(w & 0x3FF) == 0x1BC)
    out = []
    for i in range(start % 2, len(words) - 1, 2):
        (t, w0), (_, w1) = words[i], words[i + 1]
        s = [symbol(w0 & 0x3FF), symbol(w0 >> 10), symbol(w1 & 0x3FF), symbol(w1 >> 10)]
        if None in s:
            out.append((t, "?"))
        elif s[0] >= 0x100:
            v = sum((b & 0xFF) << (8 * n) for n, b in enumerate(s))
            out.append((t, PRIM_NAME.get(v, f"K{v:08x}")))
        else:
            out.append((t, "D"))
    return out


def changes(seq):
    """Keep the first dword of each run of equal names (ALIGN pairs do not break a run)."""
    out, last = [], None
    for t, n in seq:
        if n == "ALIGN":
            continue
        if n != last:
            out.append((t, n))
            last = n
    return out


COMMAND_TIMEOUT_NS = 200_000


def check(t0, n):
    if now_ns() - t0 > COMMAND_TIMEOUT_NS:
        raise SystemExit(f"error: command {n + 1} did not end within "
                         f"{COMMAND_TIMEOUT_NS / 1000:.0f} us of simulated time")


def frame_ends(seq):
    """[(t_ns, name)] of one direction, every dword -> [(t_ns of each EOF, data dwords since the
    SOF before it)]."""
    out, n = [], None
    for t, name in seq:
        if name == "SOF":
            n = 0
        elif name == "D" and n is not None:
            n += 1
        elif name == "EOF" and n is not None:
            out.append((t, n))
            n = None
    return out


# A control FIS is 8 dwords at most with its CRC (a DMA Setup); a longer frame is a Data FIS.
CONTROL_FIS_MAX_DWORDS = max(CTRL_FIS_DWORDS.values()) + 1


def simulate(commands, latency=(0, 0), write=False, sectors=1, frame_check=False):
    """Returns the events, the host's and the drive's primitives on the pins (changes only), the
    primitives the PHY passed to the link layer and took from it, and the drive's frame ends
    (``frame_ends``). ``frame_check``: the PHY's (an R_OK in the word clock after a good Data
    FIS); off, as the boards are built."""
    drive = VirtualDrive(DRIVE)
    dut = PHYDUT(frame_check=frame_check)
    dut.core = core = ECPSATACore(dut.phy)
    events, log = [], []       # log: (t_ns, the host's word, the drive's word, los) on the pins
    sys_rx, sys_tx = [], []     # (t_ns, primitive name): the PHY's source, the PHY's sink

    def commands_proc():
        while not (yield dut.phy.ctrl.ready):
            yield
        for _ in range(300):   # the drive's signature FIS
            yield
        sink, source = core.sink, core.source
        yield source.ready.eq(1)
        for n in range(commands):
            t0 = now_ns()
            yield sink.read.eq(int(not write))
            yield sink.write.eq(int(write))
            yield sink.sector.eq(FIRST_LBA + n * sectors)
            yield sink.count.eq(sectors)
            yield sink.valid.eq(1)
            beats = sectors * SECTOR_DWORDS if write else 1    # a read: the command beat alone
            left = beats
            while left:
                yield sink.last.eq(left == 1)
                yield sink.data.eq(left)
                yield
                check(t0, n)
                if (yield sink.ready):
                    if write and left == beats:
                        events.append((now_ns(), "first data", n))
                    left -= 1
            yield sink.valid.eq(0)
            first = not write
            while True:
                check(t0, n)
                if (yield source.valid):
                    if (yield source.end):
                        events.append((now_ns(), "status", n))
                        break
                    if first:
                        events.append((now_ns(), "first data", n))
                        first = False
                yield

    def drive_proc():
        # The drive on the pins, `latency` word clocks (out, in) from the host's SerDes buses.
        yield "passive"
        yield from drive_process(dut, drive, log, line_latency=latency)

    def link_proc():
        yield "passive"
        src, snk = dut.phy.source, dut.phy.sink
        while True:
            if (yield src.valid) and (yield src.charisk) == 0b0001:
                sys_rx.append((now_ns(), PRIM_NAME.get((yield src.data), "?")))
            if (yield snk.valid) and (yield snk.ready) and (yield snk.charisk) == 0b0001:
                sys_tx.append((now_ns(), PRIM_NAME.get((yield snk.data), "?")))
            yield

    run_word_sim(dut, {"sys": [commands_proc(), link_proc()], "sata_tx": drive_proc()},
                 dut.serdes.word_ce)
    host = [(t, tx) for t, tx, _, _ in log]
    dev = [(t, rx) for t, _, rx, _ in log]
    return (events, changes(dwords(host)), changes(dwords(dev)), sys_rx, sys_tx,
            frame_ends(dwords(dev)))


def stages(t_in, name, t_out, sys_rx, sys_tx):
    """(receive, link layer, transmit) in ns for an answer the link layer gives in sys, or None
    for one the PHY gave before the link layer had its answer out."""
    t_rx = next((t for t, n in sys_rx if t >= t_in and n == name), None)
    if t_rx is None:
        return None
    t_tx = next((t for t, n in sys_tx if t >= t_rx and n == ANSWERS[name]), None)
    if t_tx is None or t_tx > t_out:
        return None
    return t_rx - t_in, t_tx - t_rx, t_out - t_tx


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--commands", type=int, default=4, help="back-to-back reads (default 4)")
    p.add_argument("--trace", action="store_true", help="print the dword timeline of each gap")
    p.add_argument("--dcu-latency", action="store_true",
                   help="add the ECP5 DCU's data path latency between the host's SerDes buses and "
                        "the pins (the DCUA model's: %d word clocks out, %d in); the times are then "
                        "at the pins" % (DCUA["tx_latency"], DCUA["rx_latency"]))
    p.add_argument("--write", action="store_true",
                   help="writes instead of reads (first data: the core takes the first dword)")
    p.add_argument("--sectors", type=int, default=1,
                   help="sectors per command (default 1; 17 and more take two Data FISes)")
    p.add_argument("--frame-check", action="store_true",
                   help="the PHY with its frame check, as the ECPIX-5 builds it: R_OK in the "
                        "word clock after a good Data FIS or status")
    args = p.parse_args()
    if args.commands < 2:
        p.error("--commands must be at least 2 (a gap needs two commands)")
    if not 1 <= args.sectors <= MAX_SECTORS28:
        p.error(f"--sectors must be 1 to {MAX_SECTORS28} (an LBA28 command's count)")
    if FIRST_LBA + args.commands * args.sectors > CAPACITY:
        p.error(f"--commands x --sectors must stay within the virtual drive's {CAPACITY} sectors "
                f"from LBA {FIRST_LBA}")
    events, host, dev, sys_rx, sys_tx, ends = simulate(
        args.commands, (DCUA["tx_latency"], DCUA["rx_latency"]) if args.dcu_latency else (0, 0),
        args.write, args.sectors, frame_check=args.frame_check)
    at = {(what, n): t for t, what, n in events}
    reactions, split = {}, {}
    for n in range(args.commands - 1):
        t0, t1 = at[("status", n)], at[("first data", n + 1)]
        print(f"gap {n + 1}: status to first data {(t1 - t0):7.1f} ns")
        # Answers: each drive primitive in the gap (from the drive's EOF before the status) and
        # the host's first matching primitive after it.
        t_from = max(t for t, name in dev if name == "EOF" and t < t0)
        for t, name in dev:
            if not t_from <= t < t1 or name not in ANSWERS:
                continue
            answer = next(((th, nh) for th, nh in host if th > t and nh == ANSWERS[name]), None)
            if answer and answer[0] < t1:
                key = f"{name} -> {ANSWERS[name]}"
                reactions.setdefault(key, []).append(answer[0] - t)
                parts = name in THROUGH_SYS and stages(t, name, answer[0], sys_rx, sys_tx)
                if parts:
                    split.setdefault(key, []).append(parts)
        if args.trace:
            rows = [(t, f"drive {nm}") for t, nm in dev if t_from <= t <= t1] + \
                   [(t, f"      host {nm}") for t, nm in host if t_from <= t <= t1] + \
                   [(t, f">>> {w} {k}") for t, w, k in events if t_from <= t <= t1]
            for t, text in sorted(rows):
                print(f"  {t:10.1f}  {text}")
    where = "pins, through the DCU's latency" if args.dcu_latency else "pads"
    print(f"host answers (drive primitive at the receiver {where} -> answer at the transmitter "
          f"{where.split(',')[0]}):")
    for key, values in sorted(reactions.items()):
        print(f"  {key:14s} {sum(values) / len(values):6.1f} ns avg, {min(values):6.1f} min, "
              f"{max(values):6.1f} max ({len(values)})")
    # R_OK after every frame the drive sent, Data FISes apart (with the PHY's frame check the
    # word clock answers theirs; the link layer in sys answers the others).
    print("R_OK after the drive's frames (EOF -> R_OK):")
    for label, data in (("Data FIS", True), ("control FIS", False)):
        values = [th - t for t, n in ends if (n > CONTROL_FIS_MAX_DWORDS) == data
                  for th in [next((th for th, nh in host if th > t and nh == "R_OK"), None)]
                  if th is not None]
        if values:
            print(f"  {label:14s} {sum(values) / len(values):6.1f} ns avg, {min(values):6.1f} min, "
                  f"{max(values):6.1f} max ({len(values)})")
    if split:
        print("answers the link layer gives in sys, split (averages):")
    for key, parts in sorted(split.items()):
        rx, link, tx = (sum(p[i] for p in parts) / len(parts) for i in range(3))
        print(f"  {key:14s} receive {rx:6.1f} ns, link layer {link:6.1f} ns, "
              f"transmit {tx:6.1f} ns ({len(parts)})")


if __name__ == "__main__":
    main()
