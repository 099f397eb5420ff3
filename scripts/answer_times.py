# SPDX-License-Identifier: BSD-2-Clause
"""The host's answer times as the virtual drive measured them, against the drive's zero-latency
test host on the same drive: where a board's commands spend their time beyond the line's.

    .venv/bin/python scripts/answer_times.py                          # build/sim/run's last run
    .venv/bin/python scripts/answer_times.py STATS.json --against REF.json

The drive times each of its primitives that asks for an answer, from the first dword it sends to
the first dword of the answer (ecpsata/sim/vdrive/src/answers.c): R_RDY after its X_RDY, R_OK
after its EOF by the kind of its frame, SOF after its R_RDY, SYNC after its R_OK, and SYNC after its SYNC
(the end of the handshake of a frame of the drive's, before which it sends no X_RDY). Each time holds
both directions of the line as well as the host's turnaround, so only the difference between two
hosts on the same drive is the host's own. STATS is the statistics file a run leaves
(`build/sim/run/vdrive_stats.json` after `make bench`); without ``--against`` the reference is the
test host's 4 KiB queued random reads at QD 32 on `persona=ideal,ncq=1`, run here (`make -C
ecpsata/sim/vdrive answer-times`, a second or two).

Prints one row per answer: how many, the mean time in each run, and what the difference costs
per queued command (the count per command in STATS times the difference of the means; a row
marked "of which" is a part of the row above and is not added again); then the X_RDY collisions
and the line's idle time per command (neither side sending while a command
was outstanding). ``--json`` writes the table as well.
"""

import argparse
import json
import os
import subprocess
import sys

from ecpsata.paths import ROOT as REPO

VDRIVE = os.path.join(REPO, "ecpsata", "sim", "vdrive")
REFERENCE = os.path.join(VDRIVE, "build", "answer_times.json")
DWORD_NS = 40 / 3           # a dword at Gen2 (3 Gbit/s, 40 bits)

ANSWERS = (
    ("r_rdy",     "R_RDY after X_RDY"),
    ("r_rdy_coll", "  of which after a collision"),
    ("rok_data",  "R_OK after a Data FIS"),
    ("rok_d2h",   "R_OK after a Register D2H"),
    ("rok_setup", "R_OK after a DMA Setup"),
    ("rok_sdb",   "R_OK after a Set Device Bits"),
    ("rok_other", "R_OK after another frame"),
    ("sof",       "SOF after R_RDY"),
    ("sync",      "SYNC after R_OK"),
    ("idle",      "SYNC after SYNC (R_OK taken)"),
)
NON_QUEUED = ("cmd_identify", "cmd_read_dma", "cmd_read_dma_ext", "cmd_write_dma",
              "cmd_write_dma_ext", "cmd_flush", "cmd_set_features", "cmd_other", "cmd_read_log",
              "cmd_nop", "cmd_dsm", "cmd_smart", "cmd_sanitize")
PARTS = {"r_rdy_coll"}      # rows that are a part of the row above: not added to the sum


def commands(stats):
    """Queued commands in a run (the 'per command' figures divide by them)."""
    return stats.get("cmd_fpdma_read", 0) + stats.get("cmd_fpdma_write", 0)


def load(path):
    try:
        with open(path) as f:
            stats = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"answer_times: cannot read {path}: {e}")
    if "host_r_rdy_n" not in stats:
        sys.exit(f"answer_times: {path} has no answer times: the virtual drive that wrote it is "
                 "older than them (rebuild the simulation: make sim-build)")
    return stats


def reference():
    """The test host's run (make answer-times), written to REFERENCE."""
    r = subprocess.run(["make", "-s", "-C", VDRIVE, "answer-times"], capture_output=True,
                       text=True)
    if r.returncode:
        sys.exit(f"answer_times: the test host's run failed:\n{r.stdout}{r.stderr}")
    return load(REFERENCE)


def table(stats, ref):
    """Rows (key, label, n, mean ns, reference n, reference mean ns, ns per command)."""
    cmds = commands(stats)
    rows = []
    for key, label in ANSWERS:
        n, rn = stats[f"host_{key}_n"], ref[f"host_{key}_n"]
        mean = stats[f"host_{key}_ps"] / n / 1000 if n else None
        rmean = ref[f"host_{key}_ps"] / rn / 1000 if rn else None
        cost = (n / cmds * (mean - rmean)) if cmds and mean is not None and rmean is not None \
            else None
        rows.append((key, label, n, mean, rn, rmean, cost))
    return rows


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("stats", nargs="?", default=os.path.join(REPO, "build", "sim", "run",
                                                            "vdrive_stats.json"),
                   help="the run's statistics (default: the simulated board's last run)")
    p.add_argument("--against", metavar="REF", help="the reference run's statistics (default: "
                   "the drive's zero-latency test host, run now)")
    p.add_argument("--json", metavar="OUT", help="write the table as JSON too")
    a = p.parse_args(argv)
    stats = load(a.stats)
    ref = load(a.against) if a.against else reference()
    cmds, rcmds = commands(stats), commands(ref)
    rows = table(stats, ref)

    def ns(v):
        return f"{v:8.1f}" if v is not None else "       -"
    print(f"{a.stats}: {cmds} queued commands; reference "
          f"{a.against or 'the zero-latency test host'}: {rcmds}")
    for name, st in ((a.stats, stats), (a.against or "the reference", ref)):
        others = sum(st.get(k, 0) for k in NON_QUEUED)
        if others * 100 > commands(st):      # more than the IDENTIFY a run starts with
            print(f"note: {name} holds {others} non-queued commands as well: their answers are in "
                  "its counts, and so in its figures per queued command (run the queued commands "
                  "alone, `--queued-only`, for a table per command)")
    print(f"{'answer':30} {'n':>6} {'ns':>8} {'ref n':>6} {'ref ns':>8} {'ns/cmd':>8}")
    total = 0.0
    for key, label, n, mean, rn, rmean, cost in rows:
        print(f"{label:30} {n:6d} {ns(mean)} {rn:6d} {ns(rmean)} {ns(cost)}")
        total += 0.0 if key in PARTS else cost or 0.0
    print(f"{'sum of the differences':30} {'':6} {'':8} {'':6} {'':8} {total:8.1f}")
    per = (lambda s, c, k: s[k] / c if c else 0.0)
    print(f"X_RDY collisions per command: {per(stats, cmds, 'xrdy_collisions'):.2f} "
          f"(reference {per(ref, rcmds, 'xrdy_collisions'):.2f})")
    print(f"line idle per command: {per(stats, cmds, 'line_idle_dwords') * DWORD_NS:.1f} ns "
          f"(reference {per(ref, rcmds, 'line_idle_dwords') * DWORD_NS:.1f} ns)")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"stats": a.stats, "commands": cmds, "reference_commands": rcmds,
                       "answers": [dict(zip(("key", "label", "n", "mean_ns", "ref_n",
                                             "ref_mean_ns", "ns_per_command"), r))
                                   for r in rows],
                       "sum_ns_per_command": total}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
