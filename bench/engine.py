"""Host driver of the gateware benchmark engine (gateware/bench/engine.py, CSRs `sata_bench_*`).

The Python twin of firmware/bench.c: one hardware run, or a host loop of single commands
(firmware-loop mode, the host rewriting `lba_base` between commands). Every figure comes from the
engine's cycle counters; the host clock only bounds waits and paces the progress display.
Field offsets come from csr_fields.json (Target.field), never from constants here.
"""

import time

from gateware.bench import common as bc
from bench.target import TargetError

PREFIX = "sata_bench_"
PROGRESS_PERIOD_S = 0.05          # on_progress at 20 Hz while a run is in flight
FIRST_POLL_S = 0.002              # then 4, 8, ... ms up to PROGRESS_PERIOD_S
MB = 1e6


class RunError(TargetError):
    """A run that ended without results worth reporting (device error, timeout, refusal, link
    drop). `result` holds the counters collected after it, when there are any."""
    def __init__(self, message, result=None):
        super().__init__(message)
        self.result = result


def mbps(nbytes, cycles, sys_clk_hz):
    """10^6 bytes per second from a byte count and a sys-cycle count."""
    return nbytes / (cycles / sys_clk_hz) / MB if cycles else 0.0


def us(cycles, sys_clk_hz):
    """Microseconds from sys cycles."""
    return cycles * 1e6 / sys_clk_hz


def command_timeout_cycles(sectors, sys_clk_hz):
    """Per-command engine timeout, as the firmware: 2 s plus 10 MB/s worth of data."""
    return min(2**32 - 1, int(2 * sys_clk_hz + sectors * bc.SECTOR_BYTES * sys_clk_hz / 10e6))


class BenchEngine:
    """Drives `sata_bench_*`. time_scale: wall seconds per second of target time (about 1000 on
    the simulated board), used for the host's backstop deadline; margin_s is added to it."""
    def __init__(self, target, capacity, time_scale=1.0, margin_s=5.0, on_progress=None):
        self.t = target
        self.capacity = capacity
        self.time_scale = time_scale
        self.margin_s = margin_s
        self.on_progress = on_progress
        self.has()
        self.f = target.sys_clk_hz()
        if not self.f:
            raise TargetError("identity_sys_clk reads 0: cannot turn cycles into time")
        self._downs = None
        self._fw = None

    # registers ---------------------------------------------------------------------------------
    def has(self):
        if not self.t.has(PREFIX + "control"):
            raise TargetError(f"this gateware has no benchmark engine (no {PREFIX}control in "
                              f"{self.t.csr_csv}): build it with the SATA core and engine")

    def reg(self, name):
        return self.t.reg(PREFIX + name)

    def read(self, name):
        return self.reg(name).read()

    def word(self, reg, **values):
        """A register value assembled from named fields (csr_fields.json)."""
        word = 0
        for name, value in values.items():
            off, size = self.t.field(PREFIX + reg, name)
            if not 0 <= int(value) < 1 << size:
                raise ValueError(f"{reg}.{name} = {value} does not fit in {size} bits")
            word |= int(value) << off
        return word

    def decode(self, reg, value, name):
        off, size = self.t.field(PREFIX + reg, name)
        return value >> off & ((1 << size) - 1)

    def pulse(self, name):
        self.reg("control").write(self.word("control", **{name: 1}))

    def link_downs(self):
        return self.t.reg("sata_phy_link_downs").read()

    # configuration ------------------------------------------------------------------------------
    def configure(self, op="read", lba=0, lba_range=None, sectors=1, commands=1, seed=1,
                  random=False, verify=False, lba28=False, fw_loop=False, hist_source="latency",
                  stop_on_error=True):
        """Write every run parameter. lba_range defaults to sectors * commands."""
        if lba_range is None:
            lba_range = sectors * commands
        self.reg("config").write(self.word(
            "config", op=bc.OPS[op], random=random, verify=verify, lba28=lba28, fw_loop=fw_loop,
            stop_on_error=stop_on_error, hist_source=bc.HIST_SOURCES[hist_source]))
        for name, value in (("lba_base", lba), ("lba_range", lba_range), ("sectors", sectors),
                            ("commands", commands), ("seed", seed), ("capacity", self.capacity),
                            ("timeout", command_timeout_cycles(sectors, self.f))):
            self.reg(name).write(value)
        self.params = dict(op=op, lba=lba, lba_range=lba_range, sectors=sectors, commands=commands,
                           seed=seed, random=random, verify=verify, lba28=lba28, fw_loop=fw_loop)

    # hardware loop ------------------------------------------------------------------------------
    def run(self, op="read", lba=0, sectors=1, commands=1, label=None, **kwargs):
        """One hardware run of `commands` commands; returns collect()'s dict."""
        self._downs = self.link_downs()
        self.configure(op=op, lba=lba, sectors=sectors, commands=commands, **kwargs)
        passes = 2 if op == "write_verify" else 1
        self.pulse("start")
        self.wait(commands * passes, sectors, passes * commands * sectors * bc.SECTOR_BYTES,
                  label or op)
        return self.collect()

    # firmware (host) loop -----------------------------------------------------------------------
    def fw_begin(self, op="read", sectors=1, total_commands=1, label=None, **kwargs):
        """Configure firmware-loop mode and clear the counters; fw_command() then issues one
        command per call. total_commands only scales the progress display."""
        if op == "write_verify":
            raise ValueError("write_verify needs the hardware loop")
        self._downs = self.link_downs()
        self.configure(op=op, sectors=sectors, commands=1, lba_range=sectors, fw_loop=True, **kwargs)
        self.pulse("clear")
        self._fw = dict(sectors=sectors, total=total_commands * sectors * bc.SECTOR_BYTES,
                        label=label or op)

    def fw_command(self, lba):
        """One command at lba; the counters accumulate since fw_begin."""
        self.reg("lba_base").write(lba)
        self.pulse("start")
        self.wait(1, self._fw["sectors"], self._fw["total"], self._fw["label"])

    def fw_loop(self, op, lbas, sectors, **kwargs):
        """Commands at the given LBAs, issued one by one by the host; returns collect()."""
        lbas = list(lbas)
        self.fw_begin(op=op, sectors=sectors, total_commands=len(lbas), **kwargs)
        for lba in lbas:
            self.fw_command(lba)
        return self.collect()

    # waiting -----------------------------------------------------------------------------------
    def deadline_s(self, commands, sectors):
        per_command = command_timeout_cycles(sectors, self.f) / self.f
        return commands * per_command * self.time_scale + self.margin_s

    def wait(self, commands, sectors, total_bytes, label):
        """Poll status until done/error, feeding on_progress from snapshots at 20 Hz. The engine
        times stuck commands out itself; the deadline is a backstop (abort, then raise)."""
        limit = self.deadline_s(commands, sectors)
        deadline = time.monotonic() + limit
        pause = FIRST_POLL_S      # short runs end within a few polls; long ones poll at 20 Hz
        while True:
            st = self.read("status")
            state = self.decode("status", st, "state")
            if state in (bc.STATE_DONE, bc.STATE_ERROR):
                break
            self._check_link("during the run")
            self.progress(total_bytes, label)
            if time.monotonic() > deadline:
                stopped = self.abort()
                raise RunError(f"{label}: the benchmark engine did not finish within {limit:.0f} s "
                               f"({commands} command(s) of {sectors} sectors); "
                               f"{'aborted' if stopped else 'abort requested, the engine is still busy'}"
                               f". On the simulated board raise --time-scale")
            time.sleep(pause)
            pause = min(2 * pause, PROGRESS_PERIOD_S)
        self.progress(total_bytes, label)
        self._check_link("during the run")
        self._check_reason(st, label)

    def abort(self, wait_s=1.0):
        """Ask the engine to stop after the command in flight; True once it is no longer busy."""
        self.pulse("abort")
        deadline = time.monotonic() + wait_s
        while True:
            if self.decode("status", self.read("status"), "state") != bc.STATE_BUSY:
                return True
            if time.monotonic() > deadline:
                return False
            time.sleep(PROGRESS_PERIOD_S)

    def _check_link(self, when):
        downs = self.link_downs()
        if self._downs is not None and downs != self._downs:
            raise RunError(f"SATA link dropped {when} (link_downs {self._downs} -> {downs}): "
                           f"results discarded; check the drive and cabling, then run again",
                           self.collect())

    def _check_reason(self, st, label):
        reason = self.decode("status", st, "reason")
        if reason in (bc.REASON_OK, bc.REASON_MISMATCH):   # a mismatch is a result
            return
        r = self.collect()
        text = {
            bc.REASON_DEVICE_ERROR: f"the drive reported an error ({r['errors']} failed of "
                                    f"{r['completed']} completed commands, last LBA {r['last_lba']})",
            bc.REASON_TIMEOUT: "a command did not complete within its timeout",
            bc.REASON_REFUSED: "the engine refused the parameters (range beyond capacity, size or "
                               "28-bit limits): nothing was sent",
            bc.REASON_ABORTED: "the run was aborted",
        }.get(reason, f"unknown reason {reason}")
        raise RunError(f"{label}: {text}", r)

    def snapshot(self):
        """Live counters, latched coherently by the engine while a run is in flight."""
        self.reg("snapshot").write(self.word("snapshot", latch=1))
        s = {n: self.read("snap_" + n) for n in ("cycles", "bytes", "completed", "errors", "mismatches")}
        s["mbps"] = mbps(s["bytes"], s["cycles"], self.f)
        return s

    def progress(self, total_bytes, label):
        if self.on_progress is None:
            return
        s = self.snapshot()
        s["total_bytes"] = total_bytes
        s["label"] = label
        self.on_progress(s)

    # results -----------------------------------------------------------------------------------
    def collect(self):
        """Every result counter, plus MB/s and seconds derived from cycles at sys_clk_hz."""
        r = {n: self.read(n) for n in ("cycles", "bytes", "completed", "errors", "mismatch_dwords",
                                       "mismatch_sectors", "first_bad_lba", "last_lba")}
        if not r["mismatch_sectors"]:
            r["first_bad_lba"] = None
        for stat in ("lat", "first_data", "gap"):
            r[stat] = {n: self.read(f"{stat}_{n}") for n in ("min", "max", "sum", "count")}
        r["sys_clk_hz"] = self.f
        r["mbps"] = mbps(r["bytes"], r["cycles"], self.f)
        r["us"] = us(r["cycles"], self.f)
        return r

    def histogram(self):
        """Samples per log2 bucket: bucket k counts values in [2^k, 2^(k+1)) cycles."""
        if not self.t.has(PREFIX + "hist_select"):
            return None
        out = []
        for k in range(bc.HIST_BUCKETS):
            self.reg("hist_select").write(k)
            out.append(self.read("hist_data"))
        return out
