# SPDX-License-Identifier: BSD-2-Clause
"""Device-side fuzzing of the host core: the virtual drive's fuzzer (`fuzz=P`: with probability P
per frame it sends, an intact frame that is wrong: too long, too short, of an unknown type, a
stray status, a changed field, a duplicate, a dropped frame) against the simulated SoC (the whole
host core, its engines, the host tools), each case a fresh board and drive with its own seed.

A case runs ROUNDS rounds of the operations below with the fuzzer on; a command here is one
operation: IDENTIFY, a read (checked by the engine against the pattern written before), a write,
a verify (write and read back), a queued run of 4 reads or of 4 writes at queue depth 4. Each
ends as one of:

- ok: completed, and its data right (reads are checked by the engine; written ranges are checked
  in the disk image when the case ends; IDENTIFY's model and capacity are the drive's);
- failed with a named error: the host said what went wrong (a device error, a protocol error, a
  timeout of the engine after TIMEOUT_MS, a link drop, ...);
- hung: it did not end within LIMIT_MS of device time (the SoC's uptime counter; IDENTIFY_LIMIT_MS
  for IDENTIFY, whose 512 bytes the host reads through the bridge a dword at a time, so that its
  device time is mostly the bridge's and grows with the load of the machine), or the host had
  to give up on the engine;
- wrong data: it was reported good, but its data (or IDENTIFY's) is wrong.

After every failure the fuzzer is turned off (the drive's `control` file) and the next command,
a read checked by the engine, must work, with at most a COMRESET that the host does itself.

    .venv/bin/python scripts/fuzz.py                     # REGRESSION seeds, then FUZZ_CASES more
    .venv/bin/python scripts/fuzz.py --cases 200 --first-seed 1000 --fuzz 0.05
    make fuzz FUZZ_CASES=200
    .venv/bin/python scripts/fuzz.py --no-regression --cases 50 --kinds -drop   # all but drops

Before the last line: the failures by kind (the engine's reason, the drive's error kinds, the
core's reason: `device error:ICRC+ABRT/DATA_CRC`, `protocol error`, ...), and apart from them the
commands that ended only at a timeout (the engine's, the core's own TIMEOUT, or the host's
IDENTIFY timeout and a COMRESET): where the fuzzed drive broke a rule, the core should name it
instead, so each of these is listed with its case. The last line: `fuzz: C commands, K ok, E
failed with a named error, H hung, W wrong data` (and R recoveries that failed); the exit status
is 1 if any command hung, any data was wrong or any recovery failed. A seed that ever failed
becomes a REGRESSION seed.
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
from ecpsata.host.session import Session
from ecpsata.host.target import Target, TargetError

SECTOR = 512
CAPACITY = 8192
MODEL = "ecpsata fuzz drive"
READ_LBA, READ_SECTORS = 0, 16           # the pattern the reads check, written before the case
WRITE_BASE = 1024                        # each write gets its own 32 sectors from here
SEED = 0x5EED
TIMEOUT_MS = 5.0                         # the engine's command timeout
LIMIT_MS = 10.0                          # device time a command may take (ideal drive: no latency)
IDENTIFY_LIMIT_MS = 60.0                 # 3 tries of 128 bridge reads (4-13 ms each measured)
IDENTIFY_TIMEOUT_S = 20                  # host seconds (the simulation: about 80 ms of device time)
HOST_TIMEOUT = "identify: the host's timeout and a COMRESET"
ROUNDS = 3
OPS = ("identify", "read", "write", "verify", "qread", "qwrite")
# Seeds of cases that failed once: make test runs them every time. 8: a recovery failed (the
# drive's signature taken for ready while it was still busy); 2, 101, 105: a queued read short of
# a dword reported good; 106: IDENTIFY after a dropped frame (the host's timeout, a COMRESET);
# 107: a COMRESET while the fuzzer ran left the drive never ready; 30063: an NCQ error the drive
# never had (a changed error field), whose log 10h then failed, left the queue's state unknown
# without a COMRESET. (A seed fixes the fuzzer's
# choices; which frames they hit can move a little with the host's timing, e.g. the retries
# after a refused frame.)
REGRESSION = (1, 2, 3, 4, 8, 101, 105, 106, 107, 30063)


class Case:
    def __init__(self, seed, fuzz, workdir, kinds="all", clock_seed=None):
        self.seed, self.fuzz, self.fuzz_kinds = seed, fuzz, kinds
        self.clock_seed = clock_seed
        self.clocks = None
        self.dir = os.path.abspath(workdir)
        os.makedirs(self.dir, exist_ok=True)
        self.image = os.path.join(self.dir, "disk.img")
        self.ctl = os.path.join(self.dir, "control")
        self.results = []            # (op, outcome, device ms, message, kind)
        self.writes = []             # (lba, sectors) reported good
        self.recoveries_failed = 0
        self.next_write = WRITE_BASE

    def set_fuzz(self, p):
        with open(self.ctl, "w") as f:
            f.write(f"fuzz={p}\n")
        time.sleep(0.3)              # the drive reads it within 8,192 words (about 60 us)

    def run(self):
        with open(self.image, "wb") as f:
            f.truncate(CAPACITY * SECTOR)
            f.seek(READ_LBA * SECTOR)
            f.write(pattern_bytes(SEED, READ_LBA, READ_SECTORS))
        with open(self.ctl, "w") as f:
            f.write("fuzz=0\n")
        cfg = (f"persona=ideal,ncq=1,capacity={CAPACITY},image={self.image},model={MODEL},"
               f"cominit_interval_us=0,seed={self.seed},control={self.ctl},"
               f"fuzz_kinds={self.fuzz_kinds},"
               f"stats_file={os.path.join(self.dir, 'stats.json')}")
        with SimBoard(server_port=pick_free_port(), vdrive=cfg, log_dir=self.dir,
                      clock_seed=self.clock_seed) as board:
            self.clocks = board.clocks.describe()
            board.wait_prompt()
            with Target(port=board.server_port, csr_csv=os.path.join(board.build_dir, "csr.csv"),
                        timeout=300) as t:
                sata.set_ready_timeout(t, 0.02)
                self.t = t
                self.s = Session(t, timeout=300, allow_write=True)
                self.s.engine.timeout_base_s = TIMEOUT_MS / 1e3
                self.q = self.s.queued([4])
                self.q.timeout_base_s = TIMEOUT_MS / 1e3
                self.set_fuzz(self.fuzz)
                for _ in range(ROUNDS):
                    for op in OPS:
                        self.one(op)
                self.set_fuzz(0)
        self.check_image()
        with open(os.path.join(self.dir, "stats.json")) as f:
            stats = json.load(f)
        self.faults = stats.get("fuzz_applied", 0)
        self.fuzz_log = stats.get("fuzz_log", [])
        return self

    def uptime(self):
        self.t.reg("timer0_uptime_latch").write(1)
        return self.t.reg("timer0_uptime_cycles").read()

    def one(self, op):
        t0 = self.uptime()
        ups = self.t.reg("sata_phy_link_ups").read()
        message, kind = "", ""
        try:
            outcome = getattr(self, "op_" + op)()
            if isinstance(outcome, tuple):
                outcome, message = outcome
            if outcome == "failed":
                kind = "data mismatch"
        except RunError as e:
            message = str(e)
            outcome = "hung" if "did not finish within" in message else "failed"
            kind = e.kind()
        except TargetError as e:
            message = str(e)
            outcome = "failed"
            kind = f"{op}: {message.split(':')[0]}"
        ms = (self.uptime() - t0) / self.t.sys_clk_hz() * 1e3
        limit = IDENTIFY_LIMIT_MS if op == "identify" else LIMIT_MS
        # A frame the drive dropped leaves only a timeout to end IDENTIFY (the host's, then a
        # COMRESET and IDENTIFY again): like an engine timeout, not held to the limit.
        timed_out = op == "identify" and self.t.reg("sata_phy_link_ups").read() != ups
        if timed_out and outcome == "ok":
            message = "after the host's IDENTIFY timeout and a COMRESET"
            kind = HOST_TIMEOUT
        if outcome != "hung" and ms > limit and not timed_out:
            outcome, message = "hung", f"{ms:.2f} ms of device time; {message}"
        self.results.append((op, outcome, ms, message, kind))
        if outcome != "ok":
            self.recover()

    def recover(self):
        """The fuzzer off, the next command (a checked read) must work."""
        self.set_fuzz(0)
        try:
            sata.wait_link(self.t, 300, out=open(os.devnull, "w"))
            outcome = self.op_read()
            ok, message = outcome == "ok", f"the read after it: {outcome}"
        except (RunError, TargetError) as e:
            ok, message = False, f"the read after it: {e}"
        if not ok:
            self.recoveries_failed += 1
            op, outcome, ms, msg, kind = self.results[-1]
            self.results[-1] = (op, outcome, ms, f"{msg}; recovery failed: {message}", kind)
        self.set_fuzz(self.fuzz)

    # operations ----------------------------------------------------------------------------
    def op_identify(self):
        ident = sata.identify(self.t, IDENTIFY_TIMEOUT_S)
        right = ident["model"] == MODEL and ident["sectors"] == CAPACITY
        return "ok" if right else "wrong"

    def op_read(self):
        r = self.s.engine.run("read", READ_LBA, READ_SECTORS, 1, verify=True, seed=SEED)
        if r["mismatch_dwords"]:
            return "failed"          # named: a data mismatch the engine found
        return "ok" if r["bytes"] == READ_SECTORS * SECTOR else "wrong"

    def _lba(self, sectors):
        lba, self.next_write = self.next_write, self.next_write + 32
        assert self.next_write <= CAPACITY
        return lba

    def op_write(self):
        lba = self._lba(16)
        r = self.s.engine.run("write", lba, 16, 1, seed=SEED)
        self.writes.append((lba, 16))
        return "ok" if r["bytes"] == 16 * SECTOR else "wrong"

    def op_verify(self):
        lba = self._lba(16)
        r = self.s.engine.run("write_verify", lba, 16, 1, verify=True, seed=SEED)
        if r["mismatch_dwords"]:
            return "failed"
        self.writes.append((lba, 16))
        return "ok" if r["bytes"] == 2 * 16 * SECTOR else "wrong"

    def op_qread(self):
        r = self.q.run("read", READ_LBA, 4, 4, qd=4, seed=SEED)
        return self._counted(r, 16)

    def op_qwrite(self):
        lba = self._lba(16)
        r = self.q.run("write", lba, 4, 4, qd=4, seed=SEED)
        self.writes.append((lba, 16))
        return self._counted(r, 16)

    @staticmethod
    def _counted(r, sectors):
        """A queued run reported good must have moved every byte asked for."""
        if r["bytes"] == sectors * SECTOR:
            return "ok"
        return "wrong", (f"reported good with {r['bytes']} bytes of {sectors * SECTOR} "
                         f"({r['completed']} commands, {r['reissued']} re-issued)")

    def check_image(self):
        """Every write reported good holds the pattern: otherwise its result becomes 'wrong'."""
        with open(self.image, "rb") as f:
            for lba, n in self.writes:
                f.seek(lba * SECTOR)
                if f.read(n * SECTOR) != pattern_bytes(SEED, lba, n):
                    for i, (op, outcome, ms, msg, kind) in enumerate(self.results):
                        if outcome == "ok" and op in ("write", "verify", "qwrite"):
                            self.results[i] = (op, "wrong", ms, f"LBA {lba}: not the pattern",
                                               kind)
                            break

    def counts(self):
        c = {k: 0 for k in ("ok", "failed", "hung", "wrong")}
        for _, outcome, _, _, _ in self.results:
            c[outcome] += 1
        return c

    def kinds(self):
        """The failures by kind, and the commands that ended only at a timeout."""
        k = {}
        for _, outcome, _, _, kind in self.results:
            if kind:
                k[kind] = k.get(kind, 0) + 1
        return k


def is_timeout(kind):
    """An engine's or the host's timeout (the core's own TIMEOUT included): where the fuzzed drive
    broke a rule, the core should have named it instead."""
    return kind == HOST_TIMEOUT or kind.startswith("timeout") or kind.endswith("/TIMEOUT")


def kinds_line(kinds):
    named = {k: n for k, n in kinds.items() if not is_timeout(k)}
    timeouts = {k: n for k, n in kinds.items() if is_timeout(k)}
    fmt = lambda d: ", ".join(f"{k} {n}" for k, n in sorted(d.items(), key=lambda i: -i[1]))
    return (f"failures by kind: {fmt(named) or 'none'}\n"
            f"ended at a timeout: {sum(timeouts.values())}" +
            (f" ({fmt(timeouts)})" if timeouts else ""))


def summary(counts, recoveries):
    n = sum(counts.values())
    text = (f"fuzz: {n} commands, {counts['ok']} ok, {counts['failed']} failed with a named "
            f"error, {counts['hung']} hung, {counts['wrong']} wrong data")
    return text + (f", {recoveries} recoveries failed" if recoveries else "")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=0, help="cases beyond the regression seeds")
    ap.add_argument("--first-seed", type=int, default=100, help="seed of the first extra case")
    ap.add_argument("--fuzz", type=float, default=0.05, help="probability per frame (0..1)")
    ap.add_argument("--no-regression", action="store_true", help="only the extra cases")
    ap.add_argument("--kinds", default="all",
                    help="the fuzzer's kinds (the drive's fuzz_kinds: 'all', 'long+short', or "
                         "'-drop' for all but drops)")
    ap.add_argument("--clock-seed", default="nominal", metavar="N|random|nominal",
                    help="the clocks' placement (ecpsata/platforms/sim.py): case i's board starts "
                         "with clock seed N+i, each case in another phase (default: nominal)")
    ap.add_argument("--workdir", default=os.path.join(REPO, "build", "fuzz"))
    ap.add_argument("-v", "--verbose", action="store_true", help="every command's outcome")
    args = ap.parse_args(argv)
    try:
        clock_base = parse_clock_seed(args.clock_seed)
    except ValueError as e:
        ap.error(str(e))
    if not 0 < args.fuzz <= 1 or args.cases < 0:
        ap.error("--fuzz must be in (0, 1] and --cases at least 0")
    seeds = ([] if args.no_regression else list(REGRESSION)) + \
        list(range(args.first_seed, args.first_seed + args.cases))
    total = {k: 0 for k in ("ok", "failed", "hung", "wrong")}
    kinds = {}
    recoveries = faults = 0
    bad_seeds = []
    if clock_base is not None:
        print(f"clock seeds {clock_base}..{clock_base + len(seeds) - 1}, one per case")
    for i, seed in enumerate(seeds):
        t0 = time.monotonic()
        case = Case(seed, args.fuzz, os.path.join(args.workdir, f"seed{seed}"), args.kinds,
                    None if clock_base is None else clock_base + i).run()
        c = case.counts()
        for k in total:
            total[k] += c[k]
        for k, v in case.kinds().items():
            kinds[k] = kinds.get(k, 0) + v
        recoveries += case.recoveries_failed
        if c["hung"] or c["wrong"] or case.recoveries_failed:
            bad_seeds.append(seed)
        faults += case.faults
        print(f"seed {seed:5}: {summary(c, case.recoveries_failed)[6:]}; {case.faults} frames "
              f"fuzzed  ({time.monotonic() - t0:.0f} s)" +
              (f"; clocks {case.clocks}" if clock_base is not None else ""), flush=True)
        shown = False
        for op, outcome, ms, msg, kind in case.results:
            if args.verbose or outcome in ("hung", "wrong") or "recovery failed" in msg or \
                    (kind and is_timeout(kind)):
                print(f"    {op:8} {outcome:6} {ms:7.3f} ms  {kind or '-'}  {msg}")
                shown = True
        if shown:
            print(f"    the drive's fuzz actions: {'; '.join(case.fuzz_log)}")
    if bad_seeds:
        print(f"seeds to add to REGRESSION: {', '.join(map(str, bad_seeds))}")
    print(f"{faults} frames fuzzed in {len(seeds)} cases")
    print(kinds_line(kinds))
    print(summary(total, recoveries))
    return 1 if total["hung"] or total["wrong"] or recoveries else 0


if __name__ == "__main__":
    sys.exit(main())
