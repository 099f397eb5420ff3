# SPDX-License-Identifier: BSD-2-Clause
"""Compares the figures of two suite runs (`make bench RESULTS=A` on one build, `RESULTS=B` on
another) that the engine's hardware timed, and prints every change above a tolerance.

    .venv/bin/python scripts/suite_diff.py A/ideal B/ideal [--tolerance 0.005]

Only hardware-timed figures count: rows that a host loop paced (`long`, `cpu`, and the "host
loop" rows of `hwloop` and `overhead`) move with the load of the machine running litex_server, on
the same build too, and are left out. First-data latencies and the hardware loop's gaps
(`overhead`) are a few dozen to a hundred cycles; they are compared in cycles: between two runs of
the same build they move by up to 3 cycles (where a command starts against the ALIGN pairs both
ends insert every 256 dwords, and the phase between the word clocks), so a change above
--gap-cycles (4) fails. Exits 1 if a throughput or run-time figure changed by more than the
tolerance, or a latency or gap by more than --gap-cycles.
"""

import argparse
import glob
import json
import os
import sys

HOST_PACED = {"long", "cpu"}
RATE_KEYS = ("mbps", "iops", "cycles")          # key suffixes of throughput and run-time figures


def figures(doc):
    """{(row index, key): value} of the hardware-timed figures of one experiment's JSON."""
    out = {}
    for i, row in enumerate(doc.get("rows", [])):
        if row.get("circuit") == "host loop":
            continue
        for k, v in row.items():
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                out[(i, k)] = v
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--tolerance", type=float, default=0.005)
    p.add_argument("--gap-cycles", type=float, default=4)
    args = p.parse_args()
    worst, worst_at, bad, fd_cycles, gap_cycles = 0.0, None, 0, 0.0, 0.0
    for path in sorted(glob.glob(os.path.join(args.a, "*.json"))):
        name = os.path.basename(path)[:-5]
        if name in HOST_PACED:
            continue
        other = os.path.join(args.b, name + ".json")
        if not os.path.exists(other):
            print(f"{name}: missing in {args.b}")
            bad += 1
            continue
        fa, fb = figures(json.load(open(path))), figures(json.load(open(other)))
        for key, va in fa.items():
            vb = fb.get(key)
            if vb is None or not va:
                continue
            if key[1] == "first_data_us":
                fd_cycles = max(fd_cycles, abs(vb - va) * 75)
                continue
            if key[1] == "first_data_cycles":        # access: one sample's first data
                fd_cycles = max(fd_cycles, abs(vb - va))
                continue
            if name == "overhead":
                if key[1].endswith("_cycles"):
                    gap_cycles = max(gap_cycles, abs(vb - va))
                continue
            if not key[1].endswith(RATE_KEYS):
                continue
            d = abs(vb - va) / abs(va)
            if d > worst:
                worst, worst_at = d, f"{name} row {key[0]} {key[1]}"
            if d > args.tolerance:
                bad += 1
                print(f"{name} row {key[0]} {key[1]}: {va:.6g} -> {vb:.6g} ({(vb - va) / va:+.3%})")
    print(f"largest change of a hardware-timed throughput or run-time figure: {worst:.3%}"
          + (f" ({worst_at})" if worst_at else ""))
    print(f"largest change of a first-data latency: {fd_cycles:.1f} cycles at 75 MHz")
    print(f"largest change of a hardware-loop gap (overhead): {gap_cycles:.1f} cycles")
    bad += fd_cycles > args.gap_cycles or gap_cycles > args.gap_cycles
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
