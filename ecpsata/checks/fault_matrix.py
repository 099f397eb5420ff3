# SPDX-License-Identifier: BSD-2-Clause
"""Fault matrix: every fault key of the virtual drive against every operation it applies to, on
the simulated board, each on a fresh board and drive.

Operations: `read`, `write` and `verify` (write then read back) through the benchmark engine,
`qread` and `qwrite` (queued reads and writes, READ/WRITE FPDMA QUEUED at queue depth 8, through
the queued engine; a queued write is read back and checked), and `session` (what happens before
any command: the drive's readiness, signature and IDENTIFY, as every host tool starts).

For each (fault, operation) it checks:
- the outcome is the one expected (ok, or the error named: the engine's reason, the drive's error
  kind, the core's reason for a failed command, the session's refusal);
- no silent corruption: a read is checked against the pattern by the engine; after a write the
  disk image must hold, in every sector of the range, either the pattern or what was there before
  (zeros), and the whole range is the pattern when the write reported success;
- the device time to the end of the operation (the SoC's uptime counter, sys cycles, not a host
  clock) is under 10 ms, except where a command timeout is the only signal;
- the next command (a 16-sector read elsewhere) works.

Rows a key does not apply to are left out, with the reason in NOT_APPLICABLE.

    .venv/bin/python scripts/fault_matrix.py            # every row (make test runs them all)
    .venv/bin/python scripts/fault_matrix.py --only 'cont=1;rerr_fis=2'   # faults, ';' between
    .venv/bin/python scripts/fault_matrix.py --ops read,qread             # operations
    .venv/bin/python scripts/fault_matrix.py --only 'ber_d2h=2e-6,seed=5' --seeds 20
                                   # bit-error rows again with seeds 1..20 (other bit errors)
    .venv/bin/python scripts/fault_matrix.py --board ecpix5_sim --only rx_fifo=20 --ops write
                                   # on the simulated ECPIX-5 (the DCU's latencies modelled)

Prints a table (fault, operation, outcome, device time, next command ok) and exits 1 if a row fails.
Needs the simulated SoC (make sim-build).
"""

import argparse
import json
import os
import sys
import time


from ecpsata.paths import ROOT as REPO
from ecpsata.host import sata
from ecpsata.host.engine import RunError
from ecpsata.host.pattern import pattern_bytes
from ecpsata.host.simboard import SimBoard, pick_free_port
from ecpsata.platforms.sim import parse_clock_seed
from ecpsata.soc import boards
from ecpsata.host.session import Session
from ecpsata.host.target import Target, TargetError

SECTOR = 512
SECTORS = 64                 # per operation: four 8 KiB Data FISes (queued: 16 x 4 sectors)
LBA = {"read": 0, "write": 1024, "verify": 2048, "next": 512, "qread": 0, "qwrite": 3072,
       "session": 0}
SEED = 0x5EED
CAPACITY = 8192
LIMIT_MS = 10.0              # device time to the error (or the end)
TIMEOUT_BASE_S = 0.005       # engine command timeout for the matrix (the default is 2 s)
READY_TIMEOUT_S = 0.02       # the drive's busy limit after a reset (the default is 31 s)
RESENDS = 1000000            # a refused frame resent (the most the drive takes): long after the failure
OPS = ("read", "write", "verify", "qread", "qwrite", "session")
# D2H FISes before the operation's first one: the signature after the reset, then IDENTIFY's
# PIO Setup and Data FIS (ecpsata/host/session.py: Session reads IDENTIFY once).
D2H_BEFORE = 3
# Host FISes before the operation's first one: IDENTIFY's command FIS.
H2D_BEFORE = 1
# Data FISes the drive sends before the operation's first one: IDENTIFY's.
DATA_BEFORE = 1

# (fault keys, operation) -> expected outcome: "ok", or an engine reason, optionally with the
# ATA error kind the drive must have reported ("device error:UNC") and the core's reason for the
# failed command ("device error/ESCAPE"); several may be allowed ("ok|device error").
EXPECTED = {}
NOISY = set()     # faults that stay on for the next command too (bit errors on the line)
NOT_APPLICABLE = {}
# fault -> {drive statistic: "==N" | ">N" | "<=N"}: what the drive itself counted in the row
# (its stats_file), for rules only the drive can see (our PMNAK, dwords after its HOLD).
STATS = {}


def row(fault, noisy=False, stats=None, **outcomes):
    for op, outcome in outcomes.items():
        assert op in OPS, op
        EXPECTED[(fault, op)] = outcome
    if noisy:
        NOISY.add(fault)
    if stats:
        STATS[fault] = stats


def stats_problems(fault, stats):
    """The drive's statistics against the row's expectations."""
    problems = []
    for name, want in STATS.get(fault, {}).items():
        op, value = want[:2] if want[1] == "=" else want[:1], int(want.lstrip("=<>"))
        got = stats.get(name)
        ok = got is not None and {"==": got == value, ">": got > value, "<=": got <= value,
                                  "<": got < value, ">=": got >= value}[op]
        if not ok:
            problems.append(f"drive's {name} {got}, expected {want}")
    return problems


def not_applicable(key, why):
    NOT_APPLICABLE[key] = why


d, h, n = D2H_BEFORE, H2D_BEFORE, DATA_BEFORE
OK = dict(read="ok", write="ok", verify="ok", qread="ok", qwrite="ok")
row("", **OK, session="ok")
row("cont=1", **OK)
# Bit errors stay on for the next command: it may fail too, but only with a named error (a
# write's Data FIS hidden from the drive by a bit error in its SOF: lose_sof below).
for line in ("h2d", "d2h"):
    row(f"ber_{line}=2e-6,seed=5", noisy=True, read="ok|device error", write="ok|device error",
        verify="ok|device error|data mismatch", qread="ok|device error|timeout",
        qwrite="ok|device error|timeout")
# Received FIS with a bad CRC, by type: a read's first Data FIS (data: not retried, the drive
# ends the command with ICRC/ABRT), a write's DMA Activate and a read's Register D2H (control:
# the host answers R_ERR, the drive sends it again, the command completes).
row(f"crc_error_fis={d + 1}", read="device error:ICRC", write="ok", verify="ok",
    qread="ok")
row(f"crc_error_fis={d + 5}", read="ok", verify="ok")
row(f"crc_error_fis={d + 6}", verify="device error:ICRC")       # the read pass's first Data FIS
row(f"crc_error_fis={d + 1},cont=1", write="ok")
# A bit error inside a received FIS's content (its CRC fails as with crc_error_fis).
row(f"bad_fis={d + 1}", read="device error:ICRC", write="ok", verify="ok", qread="ok")
row(f"bad_fis={d + 6}", verify="device error:ICRC")
# Our FIS answered with R_ERR, by type: the command FIS (sent again) and a write's Data FIS (the
# drive fails the command).
row(f"rerr_fis={h + 1}", **OK)
# In a queued write the host's second FIS is the second command FIS or the first Data FIS,
# whichever the queued engine sends first after the drive's answers (a race of a few cycles that
# moves with the session's timing): sent again (ok), or the drive fails the command.
row(f"rerr_fis={h + 2}", write="device error", verify="device error",
    qwrite="ok|device error|protocol error")
# Our frame lost with its SOF (a bit error there): the drive never receives it and answers its
# end with SYNC. A command FIS goes out again (ok); a write's Data FIS leaves the drive waiting
# for data with no status to send: the write fails once the drive stays silent for the core's
# settle time (NO_STATUS), and the link is reset.
lost = {"injected_lost_sof": "==1"}
row(f"lose_sof={h + 1}", stats=lost, **OK)
row(f"lose_sof={h + 2}", stats=lost, write="device error/NO_STATUS",
    verify="device error/NO_STATUS")
for kind, name in (("abrt", "ABRT"), ("unc", "UNC"), ("idnf", "IDNF")):
    row(f"error_lba=40,error_kind={kind}", read=f"device error:{name}",
        qread="device error")
    row(f"error_lba=1060,error_kind={kind}", write=f"device error:{name}")
    row(f"error_lba=2060,error_kind={kind}", verify=f"device error:{name}")
row("drop_after_dwords=3000", read="link lost", write="link lost", verify="link lost",
    qread="link lost", qwrite="link lost")
row("stop_after_cmds=1", read="timeout", write="timeout", verify="timeout", qread="timeout",
    qwrite="timeout")
row("corrupt_lba=10", read="data mismatch")
row("corrupt_lba=2060", verify="data mismatch")
not_applicable("corrupt_lba", "qread/qwrite: the queued engine counts reads, it does not check "
               "them (a corrupted sector is found by the read-back after qwrite); writes do not "
               "read")
# What real drives do: spin-up, a busy Register D2H first, a non-ATA device, IDENTIFY in DRQ
# blocks, a 4Kn drive, no signature at all (never ready).
row("spinup_ms=5", session="ok", read="ok")
row("spinup_ms=5,busy_fis=1", session="ok", read="ok")
row("spinup_ms=5000", session="never ready")
row("signature=0", session="never ready")
row("atapi=1", session="refused:not an ATA drive")
row("device=pm", session="refused:not an ATA drive")
row("pio_blocks=4", session="ok", read="ok", qread="ok")
row("pio_blocks=128", session="ok")
row("logical_sector=4096", session="refused:logical sectors of 4096 bytes")
not_applicable("spinup_ms/busy_fis/atapi/device/signature/logical_sector",
               "act before the first command: the session row covers them")
# The drive abandons a frame (SYNC escape): a read's Data FIS, a write's DMA Activate, the read
# pass of a verify, a queued data phase.
row(f"escape_fis={d + 1}", read="device error/ESCAPE", write="device error/ESCAPE",
    qread="ok")        # queued: the answer to the first command, which the drive sends again
row(f"escape_fis={d + 6}", verify="device error/ESCAPE")
# DMAT in our Data FIS: the drive fails the write, or asks for the rest (dmat_resume).
row("dmat_fis=1", write="device error/DMAT", verify="device error/DMAT", qwrite="device error")
row("dmat_fis=1,dmat_resume=1", write="ok", verify="ok", qwrite="ok")
not_applicable("dmat_fis", "read/qread: DMAT stops the host's Data FIS, a read has none")
# Intact frames that are still wrong: a control FIS too long or too short (refused, sent again),
# a frame of an unknown type (refused), a status with no command (taken and dropped), more data
# than asked for (the command fails, EXTRA), a Data FIS a dword short (SHORT). Here a read's
# Data FISes carry 2,048 dwords: one longer is over the most a Data FIS may carry, refused (R_ERR)
# as any frame longer than a FIS, and the drive aborts the read (ICRC, ABRT: DATA_CRC).
row(f"long_fis={d + 5}", read="ok", write="ok", verify="ok")
row(f"long_fis={d + 1}", read="device error/DATA_CRC", write="ok", qread="ok|protocol error",
    qwrite="ok")
row(f"short_fis={d + 5}", read="ok", write="ok", verify="ok")
row(f"short_fis={d + 1}", read="device error/SHORT", write="ok")
row(f"short_fis={d + 2}", qread="ok", qwrite="ok")
# The queued read's third FIS from the drive is a dword short: its first Data FIS (PROTOCOL) when
# the drive starts the data phase before the host's next command, a control FIS (refused, sent
# again: ok) when the command gets in first, a race that moves with the host's turnaround (a
# short queued Data FIS alone: tests/core/test_ncq_drive.py).
row(f"short_fis={d + 3}", qread="ok|protocol error", qwrite="ok")
row(f"unknown_fis={d + 1}", **OK)
row(f"stray_fis={d + 5}", read="ok", write="ok", verify="ok")
row(f"stray_fis={d + 2}", qread="ok", qwrite="ok")
row(f"extra_data={n + 1}", read="device error/DATA_CRC", verify="device error/DATA_CRC",
    qread="protocol error")
not_applicable("extra_data", "write/qwrite: the drive sends no Data FIS")
# The same bad frame every time it is refused: the command fails (PROTOCOL) at once. The drive
# goes on resending it long after, and ignores a command sent meanwhile (busy_ignores_cmd): unless
# the host resets the link (COMRESET) after a PROTOCOL, the next command may fail too.
resend = f"fault_repeat={RESENDS},busy_ignores_cmd=1"
row(f"long_fis={d + 5},{resend}", read="device error/PROTOCOL", write="device error/PROTOCOL")
row(f"long_fis={d + 1},{resend}", write="device error/PROTOCOL")
row(f"short_fis={d + 5},{resend}", read="device error/PROTOCOL")
row(f"long_fis={d + 3},{resend}", qread="protocol error")
# A CRC error is the line's, not a broken rule: the host asks for the frame again for as long as
# the drive keeps sending it (it gives up after fault_repeat + 3 tries, the last one clean).
row(f"crc_error_fis={d + 5},fault_repeat=1000", read="ok")
# The protocol's corners a drive produces and an ideal one does not. IDENTIFY's Data FIS lost on
# the line (the drive ends the command with 51h/84h): the session reads it again at once.
row("pio_lost_data=1", session="ok")
# An interim status (BSY, DRQ) after every non-queued command FIS: not the command's end.
row("interim_status=0x80", read="ok", write="ok", verify="ok", session="ok")
row("interim_status=0x58", read="ok", write="ok")
row("interim_status=0x80,error_lba=40,error_kind=unc", read="device error:UNC")
# A refused frame the drive does not send again (it need not): a read's and a write's status.
row(f"long_fis={d + 5},no_resend=1", read="device error/PROTOCOL", write="device error/PROTOCOL")
# Power management requests whenever the drive idles 2 us: each answered PMNAK, none left
# unanswered, no X_RDY of ours into one.
pm = dict(pmreq_sent=">0", pmnak_received=">0", pmreq_unanswered="==0", pmreq_xrdy="==0")
row("pmreq=partial,pmreq_idle_us=2", stats=pm, **OK, session="ok")
row("pmreq=slumber,pmreq_idle_us=2", stats=pm, read="ok", write="ok")
# A drive with a receive FIFO of 20 dwords after its HOLD (SATA: a receiver takes up to 20 more
# dwords after it sends HOLD), HOLDing our data every 256 dwords: never overrun.
row("rx_fifo=20", stats=dict(rx_hold_count=">0", rx_hold_over_budget="==0"),
    write="ok", verify="ok", qwrite="ok")
# A Data FIS over 2,048 dwords: refused, the read fails; a drive that ignores our HOLD.
row("data_fis_dwords=4096", read="device error/DATA_CRC")
row("ignore_hold=1", read="ok", qread="ok")
not_applicable("data_fis_dwords", "qread/qwrite: a queued command here moves 4 sectors, 512 "
               "dwords: no Data FIS reaches 2,048; write: the drive sends no Data FIS")
# A DMA Setup with a buffer offset we never enabled, or a count other than the command's.
row("setup_offset=8", qread="protocol error", qwrite="protocol error")
row("setup_count_delta=-2048", qread="protocol error", qwrite="protocol error")
not_applicable("fuzz", "random faults: `make fuzz` (scripts/fuzz.py) runs them")


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


def run_row(fault, op, workdir, clock_seed=None, board="sim"):
    workdir = os.path.abspath(workdir)
    image = os.path.join(workdir, "disk.img")
    fill_image(image)
    stats_file = os.path.join(workdir, "stats.json")
    cfg = (f"capacity={CAPACITY},image={image},cominit_interval_us=0,stats_file={stats_file}" +
           (f",{fault}" if fault else ""))
    if op in ("qread", "qwrite"):
        cfg += ",ncq=1"
    res = {"fault": fault or "(none)", "op": op, "key": fault}
    res["stats"] = {}
    with SimBoard(board=board, server_port=pick_free_port(), vdrive=cfg, log_dir=workdir,
                  clock_seed=clock_seed) as sim:
        res["clocks"] = sim.clocks.describe()
        before_op = _run_on_board(sim, res, fault, op)
    if os.path.exists(stats_file):
        with open(stats_file) as f:
            res["stats"] = json.load(f)
    if before_op:
        return res
    res["image"] = check_image(image, op, res["outcome"] == "ok") if op in ("write", "verify",
                                                                             "qwrite") else None
    return res


def _run_on_board(board, res, fault, op):
    """The row on a started board; True when it ended before an operation (a session row, or
    a session that could not start)."""
    board.wait_prompt()
    with Target(port=board.server_port, csr_csv=os.path.join(board.build_dir, "csr.csv"),
                timeout=300) as t:
        sata.set_ready_timeout(t, READY_TIMEOUT_S)
        t0 = uptime(t)
        f = t.sys_clk_hz()
        try:
            s = Session(t, timeout=300, allow_write=True)
        except TargetError as err:
            res["outcome"] = session_outcome(err)
            res["message"] = str(err)
            res["device_ms"] = (uptime(t) - t0) / f * 1e3
            res["next_ok"] = op == "session" and res["outcome"] != "ok" and next_after(t)
            res["image"] = None
            return True
        if op == "session":
            res["outcome"] = "ok"
            res["device_ms"] = (uptime(t) - t0) / f * 1e3
            res["next_ok"] = next_after(t)
            res["image"] = None
            return True
        e = s.queued([8]) if op in ("qread", "qwrite") else s.engine
        e.timeout_base_s = TIMEOUT_BASE_S
        t0 = uptime(t)
        try:
            if op in ("qread", "qwrite"):
                kind = op[1:]
                r = e.run(kind, LBA[op], 4, SECTORS // 4, qd=8, seed=SEED)
                if kind == "write":
                    s.engine.timeout_base_s = TIMEOUT_BASE_S
                    r = s.engine.run("read", LBA[op], SECTORS, 1, verify=True, seed=SEED)
            else:
                kind = {"read": "read", "write": "write", "verify": "write_verify"}[op]
                r = e.run(kind, LBA[op], SECTORS, 1, verify=(op != "write"), seed=SEED)
            res["outcome"] = "data mismatch" if r.get("mismatch_dwords") else "ok"
        except RunError as err:
            res["outcome"] = err.kind()
            res["message"] = str(err)
        res["device_ms"] = (uptime(t) - t0) / f * 1e3
        res["next_ok"] = next_after(t, s.engine, fault)
        if not res["next_ok"]:
            res["next_message"] = getattr(next_after, "message", "")
    return False


def session_outcome(err):
    """The named refusal of a session that could not start."""
    text = str(err)
    if isinstance(err, sata.DriveNotReady):
        return "never ready"
    for name in ("not an ATA drive", "logical sectors of 4096 bytes"):
        if name in text:
            return f"refused:{name}"
    return "error"


def next_after(t, engine=None, fault=""):
    """The next command works: a checked 16-sector read elsewhere. A session refused at the start
    has no engine to run: the link must be up then (a drive that never becomes ready: the link
    comes back after a COMRESET, the host is not wedged)."""
    try:
        if engine is None:
            if sata.device_ready(t):
                return sata.link_status(t)["ready"]
            sata.comreset(t)
            deadline = time.monotonic() + 300
            while not sata.link_status(t)["ready"]:
                if time.monotonic() > deadline:
                    return False
                time.sleep(0.05)
            return True
        sata.wait_link(t, 300)
        engine.timeout_base_s = 2.0
        r = engine.run("read", LBA["next"], 16, 1, verify=True, seed=SEED)
        return r["mismatch_dwords"] == 0
    except (RunError, TargetError) as err:
        next_after.message = str(err)
        return is_noisy(fault) and getattr(err, "details", {}).get("reason") == "device error"


def _parts(text):
    """'device error:ABRT/ESCAPE' -> ('device error', 'ABRT', 'ESCAPE')."""
    text, _, cmd = text.partition("/")
    reason, _, kind = text.partition(":")
    return reason, kind, cmd


def matches(outcome, expected):
    """The outcome is one of the alternatives: same reason, and the drive's error kind and the
    core's reason where the expectation names them."""
    got = _parts(outcome)
    for alt in expected.split("|"):
        want = _parts(alt)
        if got[0] == want[0] and (not want[1] or want[1] in got[1].split("+") or
                                  want[1] == got[1]) and (not want[2] or want[2] == got[2]):
            return True
    return False


def judge(res, expected):
    outcome = res["outcome"]
    named = matches(outcome, expected)
    timeout_only = outcome == "timeout"
    problems = []
    if not named:
        problems.append(f"outcome {outcome}, expected {expected}")
    # A session waits for the drive's spin-up, bounded by its busy limit twice (the host sends
    # one more COMRESET when the first wait ends); a command must end within LIMIT_MS unless a
    # timeout is the only signal.
    limit = 2 * READY_TIMEOUT_S * 1e3 + LIMIT_MS if res["op"] == "session" else LIMIT_MS
    if not timeout_only and res["device_ms"] > limit:
        problems.append(f"{res['device_ms']:.2f} ms of device time")
    if not res["next_ok"]:
        problems.append("the next command failed: " + res.get("next_message", "mismatch"))
    if res["image"]:
        problems.append(res["image"])
    problems += stats_problems(res["key"], res["stats"])
    return problems


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", help="fault strings as in the table, separated by ';'")
    ap.add_argument("--ops", help=f"operations, separated by ',' (of {', '.join(OPS)})")
    ap.add_argument("--seeds", type=int, default=0, metavar="N",
                    help="run each bit-error row with seed=1..N instead of its own seed")
    ap.add_argument("--clock-seed", default="nominal", metavar="N|random|nominal",
                    help="the clocks' placement (ecpsata/platforms/sim.py): row i's board starts "
                         "with clock seed N+i, each row in another phase (default: nominal)")
    ap.add_argument("--board", default="sim", choices=boards.names("simulated"),
                    help="the simulated board (default sim; ecpix5_sim has the DCUA model with "
                         "the DCU's latencies, and needs make build/ecpix5_sim/.built)")
    ap.add_argument("--workdir", default=os.path.join(REPO, "build", "faults"))
    args = ap.parse_args(argv)
    try:
        base = parse_clock_seed(args.clock_seed)
    except ValueError as e:
        ap.error(str(e))
    rows = list(EXPECTED.items())
    if args.only:
        wanted = set(args.only.split(";"))
        rows = [(k, v) for k, v in rows if (k[0] or "(none)") in wanted]
    if args.ops:
        ops = set(args.ops.split(","))
        if not ops <= set(OPS):
            ap.error(f"--ops: operations are {', '.join(OPS)}")
        rows = [(k, v) for k, v in rows if k[1] in ops]
    if args.seeds < 0:
        ap.error("--seeds must be 0 or more")
    if args.seeds:
        rows = [((reseed(k[0], n), k[1]), v) for k, v in rows
                for n in (range(1, args.seeds + 1) if is_noisy(k[0]) else [None])]
    os.makedirs(args.workdir, exist_ok=True)
    failed = 0
    if base is not None:
        print(f"clock seeds {base}..{base + len(rows) - 1}, one per row (--clock-seed N reruns "
              f"row i with N = {base} + i)")
    print(f"{'fault':36} {'operation':9} {'outcome':24} {'device ms':>9} {'next':>5}  verdict")
    for i, ((fault, op), expected) in enumerate(rows):
        t = time.monotonic()
        res = run_row(fault, op, args.workdir, None if base is None else base + i, args.board)
        problems = judge(res, expected)
        failed += bool(problems)
        print(f"{res['fault']:36} {op:9} {res['outcome']:24} {res['device_ms']:9.3f} "
              f"{'ok' if res['next_ok'] else 'FAIL':>5}  {'; '.join(problems) or 'pass'}"
              f"  ({time.monotonic() - t:.0f} s)" +
              (f"  clocks {res['clocks']}" if base is not None else ""), flush=True)
    print(f"{len(rows) - failed} of {len(rows)} rows pass")
    if not args.only and not args.ops:
        for key, why in NOT_APPLICABLE.items():
            print(f"not applicable: {key}: {why}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
