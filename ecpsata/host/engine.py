# SPDX-License-Identifier: BSD-2-Clause
"""Host driver of the gateware benchmark engine (ecpsata/engines/engine.py, CSRs `sata_bench_*`).

The Python twin of ecpsata/firmware/bench.c: one hardware run, or a host loop of single commands
(firmware-loop mode, the host rewriting `lba_base` between commands). Every figure comes from the
engine's cycle counters; the host clock only bounds waits and paces the progress display.
Field offsets come from csr_fields.json (Target.field), never from constants here.
"""

import time

from ecpsata.core import common as sc
from ecpsata.engines import common as bc
from ecpsata.host import sata
from ecpsata.host.target import TargetError

PREFIX = "sata_bench_"
PROGRESS_PERIOD_S = 0.05          # on_progress at 20 Hz while a run is in flight
FIRST_POLL_S = 0.002              # then 4, 8, ... ms up to PROGRESS_PERIOD_S
MB = 1e6


class RunError(TargetError):
    """A run that ended without results worth reporting (device error, timeout, refusal, link
    drop). `result` holds the counters collected after it, when there are any; `details` what
    is known of the cause (reason, the drive's registers, link-level error counts)."""
    def __init__(self, message, result=None, details=None):
        super().__init__(message)
        self.result = result
        self.details = details or {}

    def kind(self):
        """The failure in one word chain: the engine's reason, the ATA error kinds the drive
        reported and the core's reason for the failed command, e.g.
        'device error:ICRC+ABRT/DATA_CRC' (the fault matrix's and the fuzzer's outcomes)."""
        text = self.details.get("reason", "error")
        kinds = self.details.get("device", {}).get("kinds", [])
        if kinds:
            text += ":" + "+".join(kinds)
        cmd = self.details.get("command", {}).get("reason_code")
        if cmd not in (None, sc.CMD_REASON["OK"], sc.CMD_REASON["DEVICE"]):
            text += "/" + sc.CMD_REASONS.get(cmd, (f"reason {cmd}",))[0]
        return text


ERRORS_PREFIX = "sata_errors_"
LINK_COUNTS = ("fis_crc_errors", "fis_rejected", "cmd_retries")
EVENT_COUNTS = ("escapes", "fis_refused")       # on gateware that has them


def decode_error_register(value):
    """Names of the bits set in an ATA error register, e.g. ["UNC"]."""
    return [text.split(":")[0] for bit, text in sc.ERROR_BITS.items() if value & bit]


def describe_device_error(status, error, lba):
    """One line: 'status 0x51 error 0x40 (UNC: uncorrectable data) at LBA 1000'."""
    kinds = [text for bit, text in sc.ERROR_BITS.items() if error & bit]
    kind = f" ({', '.join(kinds)})" if kinds else ""
    return f"status 0x{status:02x} error 0x{error:02x}{kind} at LBA {lba}"


def mbps(nbytes, cycles, sys_clk_hz):
    """10^6 bytes per second from a byte count and a sys-cycle count."""
    return nbytes / (cycles / sys_clk_hz) / MB if cycles else 0.0


def iops(completed, cycles, sys_clk_hz):
    """Commands per second from a command count and a sys-cycle count."""
    return completed * sys_clk_hz / cycles if cycles else 0.0


def us(cycles, sys_clk_hz):
    """Microseconds from sys cycles."""
    return cycles * 1e6 / sys_clk_hz


def command_timeout_cycles(sectors, sys_clk_hz, base_s=2.0):
    """Per-command engine timeout, as the firmware: 2 s (base_s) plus 10 MB/s worth of data."""
    return min(2**32 - 1, int(base_s * sys_clk_hz + sectors * bc.SECTOR_BYTES * sys_clk_hz / 10e6))


class EngineDriver:
    """The host's driver of the gateware's benchmark engine (ECPSATABenchEngine, ecpsata/engines/
    engine.py): drives `sata_bench_*`. time_scale: wall seconds per second of target time (about
    1000 on the simulated board), used for the host's backstop deadline; margin_s is added to it.
    Subclasses for other engines with the same control, status and counter registers set
    `prefix`; registers an engine lacks (mismatch, first-data, gap, histogram) are not read."""
    prefix = PREFIX

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
        self._errs = None
        self.timeout_base_s = 2.0   # per-command timeout: this plus 10 MB/s worth of data

    # registers ---------------------------------------------------------------------------------
    def has(self):
        if not self.t.has(PREFIX + "control"):
            raise TargetError(f"this gateware has no benchmark engine (no {PREFIX}control in "
                              f"{self.t.csr_csv}): build it with the SATA core and engine")

    def present(self, name):
        """Whether this engine has the register `name` (without the prefix)."""
        return self.t.has(self.prefix + name)

    def reg(self, name):
        return self.t.reg(self.prefix + name)

    def read(self, name):
        return self.reg(name).read()

    def stat(self, source, field):
        """A command statistic (common.STAT_SOURCES, STAT_FIELDS): the block engine keeps them in a
        memory read through stat_select / stat_data, the queued engine in registers of their own."""
        if self.present("stat_select"):
            self.reg("stat_select").write(bc.stat_entry(source, field))
            return self.read("stat_data")
        return self.read(f"{source}_{field}")

    def word(self, reg, **values):
        """A register value assembled from named fields (csr_fields.json)."""
        word = 0
        for name, value in values.items():
            off, size = self.t.field(self.prefix + reg, name)
            if not 0 <= int(value) < 1 << size:
                raise ValueError(f"{reg}.{name} = {value} does not fit in {size} bits")
            word |= int(value) << off
        return word

    def decode(self, reg, value, name):
        off, size = self.t.field(self.prefix + reg, name)
        return value >> off & ((1 << size) - 1)

    def pulse(self, name):
        self.reg("control").write(self.word("control", **{name: 1}))

    def link_downs(self):
        return self.t.reg("sata_phy_link_downs").read()

    def error_counts(self):
        """The device-error and link-level counters (ecpsata/frontend/errors.py), or None on a
        gateware without them."""
        if not self.t.has(ERRORS_PREFIX + "dev_errors"):
            return None
        names = ("dev_errors",) + LINK_COUNTS + tuple(
            n for n in EVENT_COUNTS + ("cmd_failures", "serror") if self.t.has(ERRORS_PREFIX + n))
        return {n: self.t.reg(ERRORS_PREFIX + n).read() for n in names}

    def _mark(self):
        """Before a run: the engine must be free (an earlier run that a host left behind is
        aborted, or refused with a clear error), and the counters are noted for what happens
        during this one."""
        if self.decode("status", self.read("status"), "state") == bc.STATE_BUSY:
            if not self.abort(wait_s=2.0):
                raise RunError("the benchmark engine is still busy with an earlier run (abort "
                               "requested): wait for its command timeout, then run again")
        self._downs = self.link_downs()
        self._errs = self.error_counts()

    def reset_link(self):
        """After a command timeout the engine reset the core, but a drive that stopped answering
        commands only recovers with a COMRESET (as a host's error handler does), and a drive that
        broke the protocol may still be resending its frame: restart the link and wait for it.
        Returns what happened, for the error message."""
        sata.comreset(self.t)
        deadline = time.monotonic() + self.margin_s
        while time.monotonic() < deadline:
            time.sleep(PROGRESS_PERIOD_S)
            st = self.t.reg("sata_phy_status").read()
            off_r, _ = self.t.field("sata_phy_status", "ready")
            if st >> off_r & 1:
                return "the link was reset (COMRESET) and is up again"
        return "the link was reset (COMRESET) and is not up yet"

    def error_details(self, reason):
        """What the SoC knows of the cause of a failed run: the engine's reason, the drive's last
        error registers (when it reported one during the run), link-level counts during it."""
        d = {"reason": bc.REASONS.get(reason, f"unknown ({reason})")}
        now = self.error_counts()
        if now is None or self._errs is None:
            return d
        d["link"] = {n: (now[n] - self._errs[n]) & 0xFFFFFFFF
                     for n in LINK_COUNTS + EVENT_COUNTS if n in now}
        if "cmd_failures" in now and now["cmd_failures"] != self._errs["cmd_failures"]:
            code = self.t.reg(ERRORS_PREFIX + "cmd_reason").read()
            d["command"] = {"reason_code": code,
                            "reason": sc.CMD_REASONS.get(code, ("?", f"unknown ({code})"))[1]}
        if "serror" in now:
            d["serror"] = sc.serror_names(now["serror"] & ~self._errs["serror"])
        if now["dev_errors"] != self._errs["dev_errors"]:
            status, error, lba = (self.t.reg(ERRORS_PREFIX + n).read()
                                  for n in ("dev_status", "dev_error", "dev_lba"))
            d["device"] = {"status": status, "error": error, "lba": lba,
                           "kinds": decode_error_register(error)}
        return d

    def _describe(self, d):
        parts = []
        if "command" in d and d["command"]["reason"] != sc.CMD_REASONS[sc.CMD_REASON["DEVICE"]][1]:
            parts.append(d["command"]["reason"])
        if "device" in d:
            dev = d["device"]
            parts.append("the drive reported " + describe_device_error(dev["status"], dev["error"],
                                                                       dev["lba"]))
        link = d.get("link", {})
        if any(link.values()):
            text = (f"link: {link['fis_crc_errors']} received FIS with a bad CRC, "
                    f"{link['fis_rejected']} FIS refused by the drive "
                    f"(R_ERR, or SYNC: not seen), "
                    f"{link['cmd_retries']} command retries")
            if link.get("escapes"):
                text += f", {link['escapes']} frames the drive abandoned (escape)"
            if link.get("fis_refused"):
                text += f", {link['fis_refused']} FIS refused by the host (type, length, place)"
            parts.append(text)
        if d.get("serror"):
            parts.append("SError { " + " ".join(d["serror"]) + " }")
        return "; ".join(parts)

    # configuration ------------------------------------------------------------------------------
    def configure(self, op="read", lba=0, lba_range=None, sectors=1, commands=1, seed=1,
                  random=False, verify=False, lba28=False, fw_loop=False, hist_source="latency",
                  stop_on_error=True, flush=False):
        """Write every run parameter. lba_range defaults to sectors * commands. flush: a write
        run ends with FLUSH CACHE EXT, timed in its cycles and in flush_cycles."""
        if lba_range is None:
            lba_range = sectors * commands
        if flush and not self.can_flush():
            raise TargetError("this gateware's benchmark engine cannot end a write with FLUSH "
                              "CACHE EXT: run with --no-flush, or rebuild it")
        self._config = dict(op=bc.OPS[op], random=random, verify=verify, lba28=lba28,
                            fw_loop=fw_loop, stop_on_error=stop_on_error,
                            hist_source=bc.HIST_SOURCES[hist_source])
        if self.can_flush():
            self._config["flush"] = int(flush and op != "read")
        self.reg("config").write(self.word("config", **self._config))
        for name, value in (("lba_base", lba), ("lba_range", lba_range), ("sectors", sectors),
                            ("commands", commands), ("seed", seed), ("capacity", self.capacity),
                            ("timeout", command_timeout_cycles(sectors, self.f,
                                                               self.timeout_base_s))):
            self.reg(name).write(value)
        self.params = dict(op=op, lba=lba, lba_range=lba_range, sectors=sectors, commands=commands,
                           seed=seed, random=random, verify=verify, lba28=lba28, fw_loop=fw_loop,
                           flush=bool(flush and op != "read"))

    def can_flush(self):
        return self.present("flush_cycles")

    def set_config(self, **fields):
        """Rewrite config with some fields changed (the firmware loop's last command flushes)."""
        self._config.update(fields)
        self.reg("config").write(self.word("config", **self._config))

    # hardware loop ------------------------------------------------------------------------------
    def run(self, op="read", lba=0, sectors=1, commands=1, label=None, **kwargs):
        """One hardware run of `commands` commands; returns collect()'s dict."""
        self._mark()
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
        self._mark()
        self.configure(op=op, sectors=sectors, commands=1, lba_range=sectors, fw_loop=True, **kwargs)
        self.pulse("clear")
        self._fw = dict(sectors=sectors, total=total_commands * sectors * bc.SECTOR_BYTES,
                        label=label or op)

    def fw_command(self, lba):
        """One command at lba; the counters accumulate since fw_begin."""
        self.reg("lba_base").write(lba)
        self.pulse("start")
        self.wait(1, self._fw["sectors"], self._fw["total"], self._fw["label"])

    def fw_loop(self, op, lbas, sectors, flush=False, **kwargs):
        """Commands at the given LBAs, issued one by one by the host; returns collect(). With
        flush (writes), the last command ends with FLUSH CACHE EXT, timed with the loop."""
        lbas = list(lbas)
        self.fw_begin(op=op, sectors=sectors, total_commands=len(lbas), **kwargs)
        for i, lba in enumerate(lbas):
            if flush and op != "read" and i == len(lbas) - 1:
                if not self.can_flush():
                    raise TargetError("this gateware's benchmark engine cannot end a write with "
                                      "FLUSH CACHE EXT: run with --no-flush, or rebuild it")
                self.set_config(flush=1)
            self.fw_command(lba)
        if flush and op != "read":
            self.params["flush"] = True
        return self.collect()

    # waiting -----------------------------------------------------------------------------------
    def deadline_s(self, commands, sectors):
        per_command = command_timeout_cycles(sectors, self.f, self.timeout_base_s) / self.f
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
                           self.collect(), self.error_details(bc.REASON_LINK_LOST))

    def _check_reason(self, st, label):
        reason = self.decode("status", st, "reason")
        if reason in (bc.REASON_OK, bc.REASON_MISMATCH):   # a mismatch is a result
            return
        r = self.collect()
        details = self.error_details(reason)
        text, cause = self.reason_text(reason, r, details)
        # A timeout, a protocol error of the queued engine, or a command that failed for a reason
        # that leaves the drive's state unknown: COMRESET before the next command.
        if reason in (bc.REASON_TIMEOUT, bc.REASON_PROTOCOL) or \
                details.get("command", {}).get("reason_code") in sc.CMD_RESET_REASONS:
            text += "; " + self.reset_link()
        raise RunError(f"{label}: {text}" + (f": {cause}" if cause else ""), r, details)

    def reason_text(self, reason, r, details):
        """(what ended the run, what the SoC knows of its cause) for a failed run."""
        text = {
            bc.REASON_DEVICE_ERROR: f"command failed ({r['errors']} failed of {r['completed']} "
                                    f"completed; the failing command started at LBA "
                                    f"{r['last_lba']})",
            bc.REASON_TIMEOUT: "a command did not complete within its timeout (the core was "
                               "reset)",
            bc.REASON_REFUSED: "the engine refused the parameters (range beyond capacity, size or "
                               "28-bit limits) or ran while the queued engine was running: "
                               "nothing was sent",
            bc.REASON_ABORTED: "the run was aborted",
            bc.REASON_LINK_LOST: "the SATA link was down or dropped during the command: the "
                                 "command was abandoned; check the drive and cabling, then run "
                                 "again",
            bc.REASON_PROTOCOL: "the drive broke the protocol (frames refused repeatedly, or data "
                                "beyond a transfer): every queued command was abandoned and the "
                                "core reset",
        }.get(reason, f"unknown reason {reason}")
        cause = self._describe(details)
        if reason == bc.REASON_DEVICE_ERROR and "device" not in details:
            cause = ("the drive did not report an error register (CRC error on data or a short "
                     "transfer)" + ("; " + cause if cause else ""))
        return text, cause

    def snapshot(self):
        """Live counters, latched coherently by the engine while a run is in flight."""
        self.reg("snapshot").write(self.word("snapshot", latch=1))
        s = {n: self.read("snap_" + n) if self.present("snap_" + n) else 0
             for n in ("cycles", "bytes", "completed", "errors", "mismatches")}
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
                                       "mismatch_sectors", "first_bad_lba", "last_lba",
                                       "flush_cycles")
             if self.present(n)}
        if "mismatch_sectors" in r and not r["mismatch_sectors"]:
            r["first_bad_lba"] = None
        for source in bc.STAT_SOURCES:
            if self.present("stat_select") or self.present(f"{source}_count"):
                r[source] = {n: self.stat(source, n) for n in ("min", "max", "sum", "count")}
        r["sys_clk_hz"] = self.f
        r["mbps"] = mbps(r["bytes"], r["cycles"], self.f)
        r["us"] = us(r["cycles"], self.f)
        return r

    def histogram(self):
        """Samples per log2 bucket: bucket k counts values in [2^k, 2^(k+1)) cycles."""
        if not self.present("hist_select"):
            return None
        out = []
        for k in range(bc.HIST_BUCKETS):
            self.reg("hist_select").write(k)
            out.append(self.read("hist_data"))
        return out
