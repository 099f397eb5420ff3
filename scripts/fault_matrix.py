"""Fault matrix: every fault key of the virtual drive against read, write and write-then-verify on
the simulated board, each on a fresh board and drive.

For each (fault, operation) it checks:
- the outcome is the one expected (ok, or the error named: device error with the drive's error
  kind, data mismatch, link lost, timeout);
- no silent corruption: a read is checked against the pattern by the engine; after a write the
  disk image must hold, in every sector of the range, either the pattern or what was there before
  (zeros), and the whole range is the pattern when the write reported success;
- the device time to the end of the operation (the SoC's uptime counter, sys cycles, not a host
  clock) is under 10 ms, except where a command timeout is the only signal;
- the next command (a 16-sector read elsewhere) works.

    .venv/bin/python scripts/fault_matrix.py            # every row (under a minute; make test)
    .venv/bin/python scripts/fault_matrix.py --only 'cont=1;rerr_fis=2'   # faults, ';' between
    .venv/bin/python scripts/fault_matrix.py --only 'ber_d2h=2e-6,seed=5' --seeds 20
                                   # bit-error rows again with seeds 1..20 (other bit errors)

Prints a table (fault, operation, outcome, device time, next command ok) and exits 1 if a row fails.
Needs the simulated SoC (make sim-build).
"""

import argparse
import os
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

from bench import sata                                    # noqa: E402
from bench.engine import RunError                         # noqa: E402
from bench.pattern import pattern_bytes                   # noqa: E402
from bench.simboard import SimBoard, pick_free_port       # noqa: E402
from bench.suite import Session                           # noqa: E402
from bench.target import Target                           # noqa: E402

SECTOR = 512
SECTORS = 64                 # per operation: four 8 KiB Data FISes
LBA = {"read": 0, "write": 1024, "verify": 2048, "next": 512}
SEED = 0x5EED
CAPACITY = 8192
LIMIT_MS = 10.0              # device time to the error (or the end)
TIMEOUT_BASE_S = 0.005       # engine command timeout for the matrix (the default is 2 s)
# D2H FISes before the operation's first one: the signature after the reset, then IDENTIFY's
# PIO Setup and Data FIS (bench/suite.py Session reads IDENTIFY once).
D2H_BEFORE = 3
# Host FISes before the operation's first one: IDENTIFY's command FIS.
H2D_BEFORE = 1

# (fault keys, operation) -> expected outcome: "ok", or an engine reason, optionally with the
# ATA error kind the drive must have reported ("device error:UNC").
EXPECTED = {}


NOISY = set()     # faults that stay on for the next command too (bit errors on the line)


def row(fault, read, write, verify, noisy=False):
    for op, outcome in (("read", read), ("write", write), ("verify", verify)):
        if outcome is not None:
            EXPECTED[(fault, op)] = outcome
    if noisy:
        NOISY.add(fault)


d = D2H_BEFORE
h = H2D_BEFORE
row("", "ok", "ok", "ok")
row("cont=1", "ok", "ok", "ok")
# Bit errors stay on for the next command: it may fail too, but only with a named error.
row("ber_h2d=2e-6,seed=5", "ok|device error", "ok|device error", "ok|device error|data mismatch",
    noisy=True)
row("ber_d2h=2e-6,seed=5", "ok|device error", "ok|device error", "ok|device error|data mismatch",
    noisy=True)
# Received FIS with a bad CRC, by type: a read's first Data FIS (data: not retried, the drive
# ends the command with ICRC/ABRT), a write's DMA Activate and a read's Register D2H (control:
# the host answers R_ERR, the drive sends it again, the command completes).
row(f"crc_error_fis={d + 1}", "device error:ICRC", "ok", None)
row(f"crc_error_fis={d + 5}", "ok", None, None)
row(f"crc_error_fis={d + 1},cont=1", None, "ok", None)
# A bit error inside a received FIS's content (its CRC fails as with crc_error_fis).
row(f"bad_fis={d + 1}", "device error:ICRC", "ok", None)
# Our FIS answered with R_ERR, by type: the command FIS (sent again) and a write's Data FIS (the
# drive fails the command).
row(f"rerr_fis={h + 1}", "ok", "ok", "ok")
row(f"rerr_fis={h + 2}", None, "device error", None)
for kind, name in (("abrt", "ABRT"), ("unc", "UNC"), ("idnf", "IDNF")):
    row(f"error_lba=40,error_kind={kind}", f"device error:{name}", None, None)
    row(f"error_lba=1060,error_kind={kind}", None, f"device error:{name}", None)
row("drop_after_dwords=3000", "link lost", "link lost", "link lost")
row("stop_after_cmds=1", "timeout", "timeout", "timeout")
row("corrupt_lba=10", "data mismatch", None, None)
row("corrupt_lba=2060", None, None, "data mismatch")


def is_noisy(fault):
    return any(reseed(fault, 0) == reseed(n, 0) for n in NOISY)


def reseed(fault, seed):
    """``fault`` with its seed key set to ``seed`` (None: unchanged)."""
    if seed is None:
        return fault
    keys = [k for k in fault.split(",") if not k.startswith("seed=")]
    return ",".join(keys + [f"seed={seed}"])


def fill_image(path):
    with open(path, "wb") as f:
        f.truncate(CAPACITY * SECTOR)
        for op in ("read", "next"):
            f.seek(LBA[op] * SECTOR)
            f.write(pattern_bytes(SEED, LBA[op], SECTORS))


def check_image(path, op, succeeded):
    """None when the range holds only the pattern or zeros (the pattern everywhere after a
    success), else what is wrong."""
    lba = LBA[op]
    want = pattern_bytes(SEED, lba, SECTORS)
    with open(path, "rb") as f:
        f.seek(lba * SECTOR)
        got = f.read(SECTORS * SECTOR)
    zeros = bytes(SECTOR)
    for i in range(SECTORS):
        s = got[i * SECTOR:(i + 1) * SECTOR]
        w = want[i * SECTOR:(i + 1) * SECTOR]
        if s != w and (succeeded or s != zeros):
            return f"sector {lba + i} holds neither the pattern nor its old content"
    return None


def uptime(target):
    target.reg("timer0_uptime_latch").write(1)
    return target.reg("timer0_uptime_cycles").read()


def run_row(fault, op, workdir):
    workdir = os.path.abspath(workdir)
    image = os.path.join(workdir, "disk.img")
    fill_image(image)
    cfg = f"capacity={CAPACITY},image={image},cominit_interval_us=0" + (f",{fault}" if fault else "")
    res = {"fault": fault or "(none)", "op": op}
    with SimBoard(server_port=pick_free_port(), vdrive=cfg, log_dir=workdir) as board:
        board.wait_prompt()
        with Target(port=board.server_port, csr_csv=os.path.join(board.build_dir, "csr.csv"),
                    timeout=300) as t:
            s = Session(t, timeout=300, allow_write=True)
            e = s.engine
            e.timeout_base_s = TIMEOUT_BASE_S
            f = s.f
            t0 = uptime(t)
            try:
                kind = {"read": "read", "write": "write", "verify": "write_verify"}[op]
                r = e.run(kind, LBA[op], SECTORS, 1, verify=(op != "write"), seed=SEED)
                res["outcome"] = "data mismatch" if r["mismatch_dwords"] else "ok"
            except RunError as err:
                res["outcome"] = err.details.get("reason", "error")
                kinds = err.details.get("device", {}).get("kinds", [])
                if kinds:
                    res["outcome"] += ":" + "+".join(kinds)
                res["message"] = str(err)
            res["device_ms"] = (uptime(t) - t0) / f * 1e3
            # The next command.
            try:
                sata.wait_link(t, 300)
                e.timeout_base_s = 2.0
                r = e.run("read", LBA["next"], 16, 1, verify=True, seed=SEED)
                res["next_ok"] = r["mismatch_dwords"] == 0
            except RunError as err:
                res["next_ok"] = is_noisy(fault) and err.details.get("reason") == "device error"
                res["next_message"] = str(err)
    res["image"] = check_image(image, op, res["outcome"] == "ok") if op != "read" else None
    return res


def judge(res, expected):
    alternatives = expected.split("|")
    outcome = res["outcome"]
    named = any(outcome == a or (":" not in a and outcome.split(":")[0] == a) or
                (":" in a and outcome.startswith(a.split(":")[0]) and a.split(":")[1] in outcome)
                for a in alternatives)
    timeout_only = outcome == "timeout"
    problems = []
    if not named:
        problems.append(f"outcome {outcome}, expected {expected}")
    if not timeout_only and res["device_ms"] > LIMIT_MS:
        problems.append(f"{res['device_ms']:.2f} ms of device time")
    if not res["next_ok"]:
        problems.append("the next command failed: " + res.get("next_message", "mismatch"))
    if res["image"]:
        problems.append(res["image"])
    return problems


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", help="fault strings as in the table, separated by ';'")
    ap.add_argument("--seeds", type=int, default=0, metavar="N",
                    help="run each bit-error row with seed=1..N instead of its own seed")
    ap.add_argument("--workdir", default=os.path.join(REPO, "build", "faults"))
    args = ap.parse_args(argv)
    rows = list(EXPECTED.items())
    if args.only:
        wanted = set(args.only.split(";"))
        rows = [(k, v) for k, v in rows if (k[0] or "(none)") in wanted]
    if args.seeds < 0:
        ap.error("--seeds must be 0 or more")
    if args.seeds:
        rows = [((reseed(k[0], n), k[1]), v) for k, v in rows
                for n in (range(1, args.seeds + 1) if is_noisy(k[0]) else [None])]
    os.makedirs(args.workdir, exist_ok=True)
    print(f"{'fault':36} {'operation':9} {'outcome':24} {'device ms':>9} {'next':>5}  verdict")
    failed = 0
    for (fault, op), expected in rows:
        t = time.monotonic()
        res = run_row(fault, op, args.workdir)
        problems = judge(res, expected)
        failed += bool(problems)
        print(f"{res['fault']:36} {op:9} {res['outcome']:24} {res['device_ms']:9.3f} "
              f"{'ok' if res['next_ok'] else 'FAIL':>5}  {'; '.join(problems) or 'pass'}"
              f"  ({time.monotonic() - t:.0f} s)", flush=True)
    print(f"{len(rows) - failed} of {len(rows)} rows pass")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
