# SPDX-License-Identifier: BSD-2-Clause
"""Where a queued 4 KiB read's share of the line goes: the PHY, our core and its queued layer
against the virtual drive's NCQ (ctypes) in Migen simulation, the line decoded into dwords on
both sides.

    .venv/bin/python -m scripts.queued_turnaround                  # 160 reads at QD 32
    .venv/bin/python -m scripts.queued_turnaround --reads 48 --qd 4
    .venv/bin/python -m scripts.queued_turnaround --frame-check    # with the PHY's frame check
    .venv/bin/python -m scripts.queued_turnaround --sys-mhz 75     # sys at the boards' clock

Keeps `--qd` READ FPDMA QUEUED commands of 8 sectors at random LBAs outstanding (a new one as
soon as a tag completes, as the queued engine does) and prints, over the middle half of the
completions (the queue full, neither filling nor draining), the time per command and each kind
of answer the host gave on the line: how often per command and how long from the drive's
primitive at the host's receiver pads to the host's answer at its transmitter pads. An answer
counts only where the host was waiting on that primitive (the drive's primitive came after the
host's previous change of primitive). The sum per command is our share of the line; the
drive's zero-latency host (ecpsata/sim/vdrive/README.md) answers at once. Times from the
simulator's clock: words of 6.667 ns at Gen2, sys at 100 MHz or, with `--sys-mhz 75`, the
boards' 75 MHz (the simulated SoC's figures from `make bench` are the ones to quote; this script
says where they go). About two minutes for the default 160 reads.
"""

import argparse
import bisect
import random

from ecpsata.core.common import CTRL_FIS_DWORDS, FIS_DMA_SETUP, FIS_REG_D2H, FIS_SDB
from scripts.turnaround import changes, dwords, frame_ends

DRIVE = "persona=ideal,ncq=1,capacity=65536,cominit_interval_us=0"
SECTORS = 8
TIMEOUT_US = 5000     # no completion for this long: the queue is stuck
# The drive's frames by their dwords between SOF and EOF (the FIS and its CRC): R_OK after EOF
# is split by them (a longer frame is a Data FIS).
FRAME_KIND = {CTRL_FIS_DWORDS[FIS_REG_D2H] + 1: "a Register D2H",
              CTRL_FIS_DWORDS[FIS_DMA_SETUP] + 1: "a DMA Setup",
              CTRL_FIS_DWORDS[FIS_SDB] + 1: "a Set Device Bits"}

# The host's answer -> the drive's primitive it answers (for SYNC: after our R_OK / R_ERR the
# drive's SYNC, after our WTRM the drive's R_OK).
TRIGGER = {"R_RDY": "X_RDY", "R_OK": "EOF", "R_ERR": "EOF", "SOF": "R_RDY", "X_RDY": "SYNC"}
SYNC_TRIGGER = {"R_OK": "SYNC", "R_ERR": "SYNC", "WTRM": "R_OK"}


def simulate(reads, qd, seed, frame_check=False, sys_mhz=100):
    """Runs `reads` queued reads at depth `qd`; returns (completion times in ns, the host's
    primitive changes, the drive's, {t_ns of each of the drive's EOFs: its frame's dwords}), each
    change (t_ns, name). ``frame_check``: the PHY's (R_OK in the word clock after a good Data
    FIS, status or DMA Setup; the boards build without it). ``sys_mhz``: 100 or the boards' 75."""
    from ecpsata.sim.vdrive import VirtualDrive
    from tests.support.core_harness import wait_ready
    from tests.support.ncq_harness import Host, ncq_dut
    from tests.support.phy_harness import TIME_UNIT_NS, now_ns, run_word_sim
    from tests.support.phy_link_harness import drive_process

    drive = VirtualDrive(DRIVE)
    dut = ncq_dut(sys_mhz=sys_mhz, frame_check=frame_check)
    host = Host(dut, ready_rate=1.0, timeout_us=TIMEOUT_US)
    rng = random.Random(seed)
    blocks = 65536 // SECTORS
    log, completions = [], []

    def keep_queue_full():
        free, issued, seen = list(range(qd)), 0, 0
        t_last = now_ns()
        while len(completions) < reads:
            while free and issued < reads:
                yield from host.issue(False, rng.randrange(blocks) * SECTORS, SECTORS, free.pop(0))
                issued += 1
            yield
            for _, mask in host.done[seen:]:
                for tag in range(32):
                    if mask >> tag & 1:
                        free.append(tag)
                        completions.append(now_ns())
                        t_last = now_ns()
            seen = len(host.done)
            if host.errors:
                raise SystemExit(f"error: the queued layer reported {host.errors[0]}")
            if now_ns() - t_last > TIMEOUT_US * 1e3:
                raise SystemExit(f"error: no read completed within {TIMEOUT_US} us "
                                 f"({len(completions)} of {reads} done): the queue is stuck")
        yield from host.wait_idle()

    def top():
        yield dut.core.ncq.timeout.eq(100 * sys_mhz)
        yield from wait_ready(dut)
        yield from keep_queue_full()

    def drv():
        yield "passive"
        yield from drive_process(dut, drive, log)

    run_word_sim(dut, {"sys": [top(), host.monitor(), host.writer()], "sata_tx": drv()},
                 dut.serdes.word_ce, sys_period=round(1e3 / sys_mhz / TIME_UNIT_NS))
    host_line = changes(dwords([(t, tx) for t, tx, _, _ in log]))
    drive_dwords = dwords([(t, rx) for t, _, rx, _ in log])
    return completions, host_line, changes(drive_dwords), dict(frame_ends(drive_dwords))


def answers(host_line, drive_line, t0, t1, eof_dwords):
    """For the host's answers in [t0, t1): {"drive primitive -> host answer": [ns, ...]}, and
    R_OK / R_ERR after EOF by the kind of frame ({"EOF -> R_OK": {"a DMA Setup": [ns, ...]}},
    the kind from ``eof_dwords``, {EOF's t_ns: the frame's dwords})."""
    by_name = {}
    for t, name in drive_line:
        by_name.setdefault(name, []).append(t)
    out, by_kind = {}, {}
    previous, t_prev, t_rdy = None, None, None
    for t, name in host_line:
        before, t_before = previous, t_prev
        previous, t_prev = name, t
        if name == "R_RDY":
            t_rdy = t
        if not t0 <= t < t1 or t_before is None:
            continue
        trigger = SYNC_TRIGGER.get(before) if name == "SYNC" else TRIGGER.get(name)
        # R_OK / R_ERR answer the EOF of the frame our last R_RDY let in (our R_IP may follow
        # that EOF on the line after a short frame); the others the primitive after our last
        # change.
        since = t_rdy if name in ("R_OK", "R_ERR") else t_before
        times = by_name.get(trigger, [])
        i = bisect.bisect_left(times, t) - 1     # the drive's last such primitive before t
        if i < 0 or since is None or times[i] < since:
            continue   # the host was not waiting on that primitive
        key = f"{trigger} -> {name}"
        out.setdefault(key, []).append(t - times[i])
        if trigger == "EOF":
            kind = FRAME_KIND.get(eof_dwords.get(times[i]), "a Data FIS")
            by_kind.setdefault(key, {}).setdefault(kind, []).append(t - times[i])
    return out, by_kind


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--reads", type=int, default=160, help="queued reads in all (default 160)")
    p.add_argument("--qd", type=int, default=32, help="commands kept outstanding (default 32)")
    p.add_argument("--seed", type=int, default=5, help="random LBAs' seed (default 5)")
    p.add_argument("--frame-check", action="store_true",
                   help="the PHY with its frame check, as the ECPIX-5 builds it: R_OK in the "
                        "word clock after a good Data FIS, status, DMA Setup or Set Device Bits")
    p.add_argument("--sys-mhz", type=int, choices=(100, 75), default=100,
                   help="sys clock (default 100; the boards and the simulated SoC run 75)")
    args = p.parse_args()
    if not 1 <= args.qd <= 32:
        p.error("--qd must be 1 to 32 (the tags of SATA's NCQ)")
    if args.reads < 4 * args.qd:
        p.error(f"--reads must be at least 4 x --qd ({4 * args.qd}): the figures come from the "
                "middle half of the completions, with the queue full")
    completions, host_line, drive_line, eof_dwords = simulate(args.reads, args.qd, args.seed,
                                                              args.frame_check, args.sys_mhz)
    lo, hi = len(completions) // 4, 3 * len(completions) // 4
    t0, t1, n = completions[lo], completions[hi], hi - lo
    per_command = (t1 - t0) / n
    print(f"{SECTORS}-sector queued reads at QD {args.qd}, `{DRIVE}`: {per_command:.1f} ns per "
          f"command over {n} completions ({1e9 / per_command:,.0f} commands/s at sys {args.sys_mhz} "
          f"MHz)")
    print("host answers (drive primitive at the receiver pads -> answer at the transmitter pads):")
    total = 0.0
    found, by_kind = answers(host_line, drive_line, t0, t1, eof_dwords)
    for key, values in sorted(found.items()):
        share = sum(values) / n
        total += share
        print(f"  {key:14s} {len(values) / n:5.2f} per command, {sum(values) / len(values):6.1f} "
              f"ns avg, {share:6.1f} ns per command")
        for kind, subvalues in sorted(by_kind.get(key, {}).items()):
            print(f"    after {kind:18s} {len(subvalues) / n:5.2f} per command, "
                  f"{sum(subvalues) / len(subvalues):6.1f} ns avg")
    print(f"  in all         {total:6.1f} ns of the {per_command:.1f} ns per command")


if __name__ == "__main__":
    main()
