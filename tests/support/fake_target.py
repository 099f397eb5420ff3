# SPDX-License-Identifier: BSD-2-Clause
"""A fake SoC behind a real litex_server RemoteServer: registers from a csr.csv, values in a dict.

Host-tool tests talk to it exactly as to the simulated or real SoC (RemoteClient over TCP).
Reads of addresses with a hook call the hook, so tests can model registers that change.
FakeSATATarget adds a SATA link, IDENTIFY, the sector buffer, timer0's uptime counter and a model
of the benchmark engine (EngineModel) with the gateware's own register layout; with_queued=True
adds the queued engine (tests/support/fake_queued.py).
"""

import csv
import functools
import json
import os
import socket
import threading

import litex.tools.litex_server as litex_server
from litex.tools.litex_server import RemoteServer

from ecpsata.engines import common as bc
from ecpsata.soc.identity import IDENTITY_MAGIC, stamp_words
from ecpsata.phy.ctrl import STATE as PHY_STATE
from tests.support.fake_queued import qbench_csrs, BusyRun, QueuedEngineFake, QueuedModel


class _QuietServer(RemoteServer):
    """RemoteServer whose accept thread ends quietly when the test closes the socket."""
    def _serve_thread(self):
        try:
            super()._serve_thread()
        except OSError:
            pass


class FakeComm:
    def __init__(self):
        self.mem = {}
        self.read_hooks = {}
        self.write_hooks = {}
        self.silent = False  # when True, reads never answer (a dead bridge)
        self.writes = []     # (addr, value) of every write, in order

    def open(self):
        pass

    def close(self):
        pass

    def read(self, addr, length=None, burst="incr"):
        n = 1 if length is None else length
        out = []
        for i in range(n):
            a = addr + (4 * i if burst == "incr" else 0)
            hook = self.read_hooks.get(a)
            out.append(hook() if hook else self.mem.get(a, 0))
        if self.silent:
            threading.Event().wait()  # never returns: the client must time out
        return out

    def write(self, addr, datas):
        for i, d in enumerate(datas):
            self.writes.append((addr + 4 * i, d))
            hook = self.write_hooks.get(addr + 4 * i)
            if hook:
                hook(d)
            else:
                self.mem[addr + 4 * i] = d


def write_csr_csv(path, registers, constants=None):
    """registers: {name: (addr, size_in_words, mode)}; identity registers are added if absent."""
    base = 0xF0001000
    regs = {
        "identity_magic":      (base + 0x00, 1, "ro"),
        "identity_stamp":      (base + 0x04, 1, "ro"),
        "identity_sys_clk":    (base + 0x0C, 1, "ro"),
        "identity_board":      (base + 0x10, 1, "ro"),
        "identity_features":   (base + 0x14, 1, "ro"),
    } | dict(registers)
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["csr_base", "identifier_mem", "0xf0000800", "", ""])
        w.writerow(["csr_base", "identity", f"0x{base:08x}", "", ""])
        for name, (addr, size, mode) in regs.items():
            w.writerow(["csr_register", name, f"0x{addr:08x}", size, mode])
        for name, value in ({"config_csr_data_width": 32, "config_bus_address_width": 32}
                            | (constants or {})).items():
            w.writerow(["constant", name, value, "", ""])
    return regs


class FakeTarget:
    """Serves a FakeComm through RemoteServer on a free loopback port."""
    STAMP_ADDR = 0x0000FFF0  # the build stamp: the last words of a 64 KiB ROM at 0

    def __init__(self, tmpdir, registers=None, git_rev=0x1234abcd, build_time=1700000000,
                 board=1, features=0b10001, sys_clk=100_000_000, git_dirty=False):
        self.csr_csv = os.path.join(tmpdir, "csr.csv")
        self.regs = write_csr_csv(self.csr_csv, registers or {},
                                  {"ecpsata_git_rev": git_rev, "ecpsata_build_time": build_time})
        self.comm = FakeComm()
        for name, value in [("identity_magic", IDENTITY_MAGIC), ("identity_stamp", self.STAMP_ADDR),
                            ("identity_sys_clk", sys_clk),
                            ("identity_board", board), ("identity_features", features)]:
            self.set(name, value)
        self.set_stamp(git_rev, git_dirty, build_time)
        for i, c in enumerate(b"ecpsata fake\0"):
            self.comm.mem[0xF0000800 + 4 * i] = c
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        litex_server.print = lambda *args, **kwargs: None  # its connection chatter is not our output
        self.server = _QuietServer(self.comm, "127.0.0.1", self.port)
        self.server.open()
        self.server.start(1)

    def set_stamp(self, git_rev, git_dirty, build_time):
        """The build stamp in the fake ROM (what the firmware image of a build carries)."""
        for i, w in enumerate(stamp_words(git_rev, git_dirty, build_time)):
            self.comm.mem[self.STAMP_ADDR + 4 * i] = w

    def set(self, name, value):
        addr, size, _ = self.regs[name]
        for i in range(size):  # big-endian words, as LiteX CSRs of 32-bit data width
            self.comm.mem[addr + 4 * i] = (value >> (32 * (size - 1 - i))) & 0xFFFFFFFF

    def close(self):
        self.server.socket.shutdown(socket.SHUT_RDWR)
        self.server.socket.close()


# A fake SATA SoC: link, IDENTIFY, sector buffer, uptime timer and a model of the benchmark engine ---

SATA_BASE   = 0xF0002000
BUFFER_BASE = 0x90000000
BUFFER_SECTORS = 16

PHY_REGS = [  # (name, bits, mode, fields) as ecpsata/phy/phy.py declares them
    ("control", 11, "rw", [("enable", 0, 1), ("tx_polarity", 1, 1), ("force_gen", 2, 2), ("restart", 4, 1),
                           ("tx_polarity_auto", 5, 1), ("rx_polarity", 6, 1),
                           ("rx_polarity_auto", 7, 1), ("pacing", 8, 2), ("oob_ei_gaps", 10, 1)]),
    ("status", 11, "ro", [("ready", 0, 1), ("state", 1, 4), ("gen", 5, 1), ("rx_polarity", 6, 1),
                          ("tx_ready", 7, 1), ("rx_ready", 8, 1), ("rx_los", 9, 1), ("tx_polarity", 10, 1)]),
    ("retries", 32, "ro", []), ("link_ups", 32, "ro", []), ("link_downs", 32, "ro", []),
    ("code_errors", 32, "ro", []), ("disp_errors", 32, "ro", []), ("time_to_link", 32, "ro", []),
]
IDENTIFY_REGS = [("start", 1, "rw", []), ("done", 1, "ro", []), ("data_width", 16, "ro", []),
                 ("source_valid", 1, "ro", []), ("source_ready", 1, "rw", []),
                 ("source_data", 32, "ro", [])]
TIMER_REGS = [("uptime_latch", 1, "rw", []), ("uptime_cycles", 64, "ro", [])]
def gateware_csrs(module):
    """(name, bits, mode, fields) of a Migen module's CSRs: the fake copies the real layout."""
    out = []
    for c in module.get_csrs():
        fields = getattr(getattr(c, "fields", None), "fields", None) or []
        mode = "ro" if type(c).__name__ == "CSRStatus" else "rw"
        out.append((c.name, c.size, mode, [(f.name, f.offset, f.size) for f in fields]))
    return out


@functools.lru_cache(maxsize=None)
def bench_csrs():
    from ecpsata.frontend.crossbar import ECPSATAUserPort
    from ecpsata.engines.engine import ECPSATABenchEngine
    return gateware_csrs(ECPSATABenchEngine(ECPSATAUserPort(32), 100e6))


@functools.lru_cache(maxsize=None)
def error_csrs():
    """ecpsata/frontend/errors.py's registers, from the block itself on stand-in core and PHY
    signals (it only taps them)."""
    from types import SimpleNamespace as NS
    from migen import Signal
    from ecpsata.frontend.errors import ECPSATAErrors
    sig = Signal
    core = NS(d2h=NS(valid=sig(), status=sig(8), errors=sig(8), lba=sig(48), count=sig(16)),
              command=NS(rx=NS(idle=sig())), cmd_failed=sig(), cmd_reason=sig(4),
              cmd_recovered=sig(), fis_crc_error=sig(), fis_rejected=sig(), cmd_retry=sig(),
              rx_escape=sig(), rx_bad_seq=sig(), fis_unknown=sig(), fis_bad_length=sig(),
              rx_overrun=sig(), fis_unexpected=sig(), fis_stray=sig(), data_extra=sig())
    phy = NS(ready=sig(), ctrl=NS(rx_valid=sig(), rx_code_errors=sig(3), rx_disp_errors=sig(3)),
             oob_det=NS(comwake=sig(), cominit=sig(), cominit_active=sig()))
    return gateware_csrs(ECPSATAErrors(core, phy, 100e6))


@functools.lru_cache(maxsize=None)
def buffer_csrs():
    from ecpsata.frontend.crossbar import ECPSATAUserPort
    from ecpsata.frontend.buffer import ECPSATASectorBuffer
    return gateware_csrs(ECPSATASectorBuffer(ECPSATAUserPort(32), BUFFER_SECTORS, 100e6))


def layout(blocks, base=SATA_BASE):
    """{prefix: csrs} -> (registers for write_csr_csv, csr_fields.json content)."""
    regs, fields, addr = {}, {}, base
    for prefix, csrs in blocks.items():
        for name, bits, mode, flds in csrs:
            words = (bits + 31) // 32
            regs[f"{prefix}_{name}"] = (addr, words, mode)
            if flds:
                fields[f"{prefix}_{name}"] = {n: [o, s] for n, o, s in flds}
            addr += 4 * words
    return regs, fields


def identify_words(sectors, lba48=True, model="FAKE SSD 1", serial="FAKE0001", firmware="1.0",
                   gens=(1, 2), ncq=True, queue_depth=32, write_cache=True, auto_activate=True):
    w = [0] * 256

    def put(first, count, text):
        raw = text.ljust(2 * count).encode()
        for i in range(count):
            w[first + i] = raw[2 * i] << 8 | raw[2 * i + 1]
    put(10, 10, serial)
    put(23, 4, firmware)
    put(27, 20, model)
    cap28 = min(sectors, (1 << 28) - 1)
    w[60], w[61] = cap28 & 0xFFFF, cap28 >> 16
    w[75] = queue_depth - 1
    w[76] = sum(1 << g for g in gens) | (int(ncq) << 8)
    w[49] = 1 << 9 | 1 << 8                  # LBA, DMA
    w[83] = 0x4000 | int(lba48) << 10        # bits 15:14 = 01: word 83 is valid
    for i in range(4):
        w[100 + i] = sectors >> (16 * i) & 0xFFFF if lba48 else 0
    w[217] = 1
    # As current drives: volatile write cache and look-ahead supported and on; DMA Setup
    # auto-activate supported (with NCQ) and off until the host enables it.
    w[82] = 1 << 14 | int(write_cache) << 5 | 1 << 6
    w[85] = 1 << 14 | int(write_cache) << 5 | 1 << 6
    w[78] = int(auto_activate and ncq) << 2 | 1 << 3
    w[79] = 0
    return w


class EngineModel:
    """What the fake drive and engine do, in sys cycles. Every figure a test expects follows from
    these numbers: a command of n sectors takes first_data + n * cycles_per_sector from issue to
    status; the next command's issue follows hw_gap (hardware loop) or fw_gap (firmware loop)
    cycles after a status, its first data first_data cycles later."""
    def __init__(self, cycles_per_sector=256, first_data=1000, hw_gap=100, fw_gap=50_000,
                 busy_reads=0, buffer_cycles=400_000):
        self.cycles_per_sector = cycles_per_sector
        self.first_data = first_data
        self.hw_gap = hw_gap
        self.fw_gap = fw_gap
        self.busy_reads = busy_reads          # status reads that answer busy per start
        self.buffer_cycles = buffer_cycles    # uptime cycles per sector-buffer command
        self.fail_command = None              # the n-th command this fake issues fails (0 = first)
        self.fail_registers = (0x51, 0x40, 3)  # its Register D2H: status, error, LBA offset in it
        self.fail_link = (0, 0, 0)            # link counts during it: CRC errors, R_ERR, retries
        self.bad_lbas = set()                 # sectors that read back wrong (3 dwords each)
        self.flush_cycles = 40_000            # FLUSH CACHE EXT at the end of a flushed write run
        self.drop_link = False                # the link goes down during the next run
        self.hang = False                     # the engine never finishes (until abort)

    def latency(self, sectors):
        return self.first_data + sectors * self.cycles_per_sector


class FakeSATATarget(BusyRun, FakeTarget):
    """FakeTarget with a SATA link, IDENTIFY, the sector buffer, timer0 uptime and the benchmark
    engine (register layout taken from the gateware). Run results come from `model`; with_queued
    adds the queued engine (`qbench`, results from `queued_model`). ncq and queue_depth are what
    IDENTIFY advertises (words 76 bit 8 and 75)."""
    CONTROL = "sata_bench_control"

    def __init__(self, tmpdir, sectors=1 << 24, lba48=True, model=None, with_bench=True,
                 link_up=True, with_queued=False, queued_model=None, ncq=True, queue_depth=32,
                 **kwargs):
        blocks = {"sata_phy": PHY_REGS, "sata_identify": IDENTIFY_REGS, "sata_buffer": buffer_csrs(),
                  "timer0": TIMER_REGS}
        if with_bench:
            blocks["sata_bench"] = bench_csrs()
            blocks["sata_errors"] = error_csrs()
        if with_queued:
            blocks["sata_qbench"] = qbench_csrs()
        regs, self.fields = layout(blocks)
        super().__init__(tmpdir, registers=regs, **kwargs)
        with open(self.csr_csv, "a", newline="") as f:
            csv.writer(f).writerow(["memory_region", "sata_buffer", f"0x{BUFFER_BASE:08x}",
                                    BUFFER_SECTORS * 512, "io"])
        with open(os.path.join(tmpdir, "csr_fields.json"), "w") as f:
            json.dump(self.fields, f)
        self.sectors, self.model = sectors, model or EngineModel()
        self.sys_clk = kwargs.get("sys_clk", 100_000_000)
        self.identify_data = identify_words(sectors, lba48, ncq=ncq, queue_depth=queue_depth)
        self.disk = {}            # lba -> 512 bytes written through the sector buffer
        self.uptime = 0
        self.runs = []            # parameters of every engine start
        self._identify_queue = []
        self.nodata_log = []      # (command, features, count) of each non-data command
        self.nodata_fail = set()  # command codes the fake drive aborts
        self.busy_polls = 0       # dev_ready reads that answer busy after the link comes up
        self.never_ready = False  # the drive never clears BSY
        self.identify_starts = 0
        self.identify_faults = []
        self.identify_silent = 0
        self._busy_left = 0
        self._final = {}
        self._fw_last_status = None
        self.issued = 0           # commands the engine model has issued
        self.comresets = 0        # restarts the host asked for (sata_phy_control.restart)
        self.set_link(link_up)
        self.set("sata_phy_link_ups", 1)
        if with_bench:
            self.set("sata_errors_ready_timeout", 31 * self.sys_clk)
            self.comm.read_hooks[self.addr("sata_errors_dev_ready")] = self._dev_ready
            self._hook("sata_errors_serror", lambda v: self.set(
                "sata_errors_serror", self.get("sata_errors_serror") & ~v))
        self._hook("sata_phy_control", self._phy_control)
        self._hook("sata_identify_start", self._identify_start)
        self._hook("sata_identify_source_ready", self._identify_ready)
        self.comm.read_hooks[self.addr("sata_identify_source_valid")] = lambda: int(bool(self._identify_queue))
        self.comm.read_hooks[self.addr("sata_identify_source_data")] = \
            lambda: self._identify_queue[0] if self._identify_queue else 0
        self._hook("sata_buffer_control", self._buffer_control)
        self.set("sata_buffer_status", 1 << self.fields["sata_buffer_status"]["done"][0])
        self._hook("timer0_uptime_latch", lambda v: self.set("timer0_uptime_cycles", self.uptime))
        if with_bench:
            self._hook("sata_bench_control", self._control)
            self._hook("sata_bench_snapshot", self._snapshot)
            self._hook("sata_bench_hist_select", self._hist_select)
            self._hook("sata_bench_stat_select", self._stat_select)
            self.stats = {}       # (source, field) -> value, as the engine's statistics memory
            self.comm.read_hooks[self.addr("sata_bench_status")] = self._status
            self.hist = [0] * bc.HIST_BUCKETS
            self._status_word = 0
        if with_queued:
            self.qbench = QueuedEngineFake(self, queued_model or QueuedModel())

    # helpers ---------------------------------------------------------------------------------
    def addr(self, name):
        return self.regs[name][0]

    def _hook(self, name, fn):
        self.comm.write_hooks[self.addr(name)] = fn

    def get(self, name):
        addr, size, _ = self.regs[name]
        value = 0
        for i in range(size):
            value = value << 32 | self.comm.mem.get(addr + 4 * i, 0)
        return value

    def field(self, reg, name, value):
        off, size = self.fields[reg][name]
        return value >> off & ((1 << size) - 1)

    def pack(self, reg, **values):
        return sum(v << self.fields[reg][k][0] for k, v in values.items())

    def written(self, prefix):
        """Addresses written of the registers whose name starts with prefix."""
        addrs = {a + 4 * i for n, (a, s, _) in self.regs.items() if n.startswith(prefix) for i in range(s)}
        return [(a, d) for a, d in self.comm.writes if a in addrs]

    def set_link(self, up, gen=2):
        state = PHY_STATE["HP8_HR_Ready"] if up else PHY_STATE["HP2_HR_AwaitCOMINIT"]
        self.set("sata_phy_status", self.pack("sata_phy_status", ready=int(up), state=state,
                                              gen=gen - 1, tx_ready=1, rx_ready=int(up)))
        if "sata_errors_dev_ready" in self.regs:
            self.set("sata_errors_dev_ready", int(up))
            self.set("sata_errors_dev_signature", 0x00000101 if up else 0)
            self.set("sata_errors_dev_tf_status", 0x50 if up else 0)

    def _dev_ready(self):
        """The drive's BSY: busy_polls reads answer busy (the busy time growing by a second of
        target time each), or every read when never_ready."""
        if self.never_ready or self.busy_polls:
            self.busy_polls = max(self.busy_polls - 1, 0)
            busy = self.get("sata_errors_dev_busy_time") + self.sys_clk
            self.set("sata_errors_dev_busy_time", busy)
            self.set("sata_errors_dev_never_ready",
                     int(busy >= self.get("sata_errors_ready_timeout")))
            return 0
        return self.get("sata_errors_dev_ready")

    def _phy_control(self, value):
        """The restart bit is a COMRESET: the link goes down and up again (link_ups counts it),
        and the drive's readiness starts over (busy_polls and never_ready go on as they were)."""
        restart = 1 << self.fields["sata_phy_control"]["restart"][0]
        self.set("sata_phy_control", value & ~restart)
        if value & restart:
            self.comresets += 1
            self.set("sata_phy_link_ups", self.get("sata_phy_link_ups") + 1)
            if "sata_errors_dev_busy_time" in self.regs:
                self.set("sata_errors_dev_busy_time", 0)
                self.set("sata_errors_dev_never_ready", 0)

    def drop_link(self):
        self.set_link(False)
        self.set("sata_phy_link_downs", self.get("sata_phy_link_downs") + 1)

    # IDENTIFY ----------------------------------------------------------------------------------
    def _identify_start(self, value):
        w = list(self.identify_data)
        self.identify_starts += 1
        # identify_faults: what goes wrong with each IDENTIFY in turn ("crc": its Data FIS had a
        # bad CRC and the data is damaged; "checksum": damaged, and the link saw nothing). Data
        # sent while faults are set carries word 255's signature and checksum.
        fault = self.identify_faults.pop(0) if self.identify_faults else None
        if fault == "silent":
            self.identify_silent += 1
        self.set("sata_identify_done", int(fault != "silent"))
        if fault == "abort":      # the drive aborts IDENTIFY: one dword, then the failure counts
            self._device_error(0x51, 0x04, 0)
            self._identify_queue = [0]
            return
        if fault in ("protocol", "escape"):   # the core ended it with this reason, no data
            self.set("sata_errors_cmd_failures", self.get("sata_errors_cmd_failures") + 1)
            self.set("sata_errors_cmd_reason", {"protocol": 5, "escape": 3}[fault])
            self.set("sata_errors_serror", self.get("sata_errors_serror") | 1 << 10 | 1 << 24)
            self._identify_queue = []
            return
        if fault or self.identify_faults:
            w[255] = 0xA5
            w[255] |= (-sum((x & 0xFF) + (x >> 8) for x in w) & 0xFF) << 8
        if fault:
            w[40] ^= 0x0001
        self._identify_queue = [w[2 * i] | w[2 * i + 1] << 16 for i in range(128)]
        if fault == "silent":   # the command was lost: no data, no status
            self._identify_queue = []
        if fault == "crc":
            name = "sata_errors_fis_crc_errors"
            self.set(name, self.get(name) + 1)

    def _device_error(self, status, error, lba, reason=1):
        g = lambda n: self.get("sata_errors_" + n)
        self.set("sata_errors_dev_errors", g("dev_errors") + 1)
        self.set("sata_errors_dev_status", status)
        self.set("sata_errors_dev_error", error)
        self.set("sata_errors_dev_lba", lba)
        self.set("sata_errors_cmd_failures", g("cmd_failures") + 1)
        self.set("sata_errors_cmd_reason", reason)

    def _identify_ready(self, value):
        if self._identify_queue:
            self._identify_queue.pop(0)

    # sector buffer -----------------------------------------------------------------------------
    def _buffer_control(self, value):
        lba, count = self.get("sata_buffer_lba"), self.get("sata_buffer_count")
        write = self.field("sata_buffer_control", "write", value)
        if self.field("sata_buffer_control", "nodata", value):
            self._nodata(self.get("sata_buffer_command"), self.get("sata_buffer_features"), count)
            return
        self.set("sata_buffer_status", 1 << self.fields["sata_buffer_status"]["done"][0])
        for s in range(count):
            base = BUFFER_BASE + s * 512
            if write:
                self.disk[lba + s] = [self.comm.mem.get(base + 4 * i, 0) for i in range(128)]
            else:
                for i, d in enumerate(self.disk.get(lba + s, [0] * 128)):
                    self.comm.mem[base + 4 * i] = d
        self.uptime += self.model.buffer_cycles

    def _nodata(self, command, features, count):
        """A non-data command: SET FEATURES changes IDENTIFY's words as a drive would."""
        self.nodata_log.append((command, features, count))
        done = 1 << self.fields["sata_buffer_status"]["done"][0]
        if command in self.nodata_fail:
            self._device_error(0x51, 0x04, 0)
            self.set("sata_buffer_status", done | 1 << self.fields["sata_buffer_status"]["failed"][0])
            return
        w = self.identify_data
        if command == 0xEF and features in (0x02, 0x82):
            w[85] = w[85] & ~(1 << 5) | int(features == 0x02) << 5
        if command == 0xEF and features in (0x10, 0x90) and count == 2:
            w[79] = w[79] & ~(1 << 2) | int(features == 0x10) << 2
        self.set("sata_buffer_status", done)

    # benchmark engine --------------------------------------------------------------------------
    def config(self):
        word = self.get("sata_bench_config")
        return {name: self.field("sata_bench_config", name, word) for name in self.fields["sata_bench_config"]}

    def _set_state(self, state, reason, phase=0):
        self._status_word = self.pack("sata_bench_status", state=state, reason=reason, phase=phase)

    def _clear(self):
        for name in ("cycles", "bytes", "completed", "errors", "mismatch_dwords", "mismatch_sectors",
                     "first_bad_lba", "flush_cycles", "snap_cycles", "snap_bytes", "snap_completed", "snap_errors",
                     "snap_mismatches"):
            self.set(f"sata_bench_{name}", 0)
        self.stats = {}
        self.hist = [0] * bc.HIST_BUCKETS
        self._fw_last_status = None

    def _refused(self, cfg, sectors, commands, base, rng):
        span = sectors if cfg["fw_loop"] else rng
        return (not 1 <= sectors <= bc.MAX_SECTORS or cfg["op"] == 3 or
                (cfg["fw_loop"] and cfg["op"] == bc.OP_WRITE_VERIFY) or
                (not cfg["fw_loop"] and (commands == 0 or rng < sectors)) or
                base + span > self.get("sata_bench_capacity") or
                (cfg["lba28"] and (sectors > bc.MAX_SECTORS28 or base + span > bc.LBA28_LIMIT)))

    def _start(self):
        cfg = self.config()
        g = lambda n, prefix="sata_bench_": self.get(prefix + n)
        sectors, commands, base, rng, seed = g("sectors"), g("commands"), g("lba_base"), g("lba_range"), g("seed")
        self.runs.append(dict(cfg, sectors=sectors, commands=commands, lba_base=base, lba_range=rng,
                              seed=seed, capacity=g("capacity"), timeout=g("timeout")))
        if self._refused(cfg, sectors, commands, base, rng):
            self._set_state(bc.STATE_ERROR, bc.REASON_REFUSED)
            return
        m = self.model
        if cfg["fw_loop"]:
            lbas, ops = [base], [cfg["op"]]
        else:
            self._clear()
            gen = bc.random_lbas(seed, base, rng, sectors, commands) if cfg["random"] else \
                bc.sequential_lbas(base, rng, sectors, commands)
            lbas = list(gen) * (2 if cfg["op"] == bc.OP_WRITE_VERIFY else 1)
            ops = [cfg["op"]] * commands if cfg["op"] != bc.OP_WRITE_VERIFY else \
                [bc.OP_WRITE] * commands + [bc.OP_READ] * commands
        checking = cfg["verify"] or cfg["op"] == bc.OP_WRITE_VERIFY
        reason = bc.REASON_OK
        for i, (lba, op) in enumerate(zip(lbas, ops)):
            if cfg["fw_loop"]:
                between = None if self._fw_last_status is None else m.fw_gap
            else:
                between = m.hw_gap if i else None
            self._command(lba, sectors, op == bc.OP_READ and checking, between, cfg["hist_source"])
            self._fw_last_status = True
            self.set("sata_bench_last_lba", lba)
            self.issued += 1
            if m.fail_command is not None and self.issued > m.fail_command:
                m.fail_command = None
                self.set("sata_bench_errors", g("errors") + 1)
                status, error, offset = m.fail_registers
                if status & 1:
                    self._device_error(status, error, lba + offset)
                for name, n in zip(("fis_crc_errors", "fis_rejected", "cmd_retries"), m.fail_link):
                    self.set("sata_errors_" + name, g(name, "sata_errors_") + n)
                reason = bc.REASON_DEVICE_ERROR
                break
        if reason == bc.REASON_OK and cfg.get("flush") and cfg["op"] != bc.OP_READ:
            self.set("sata_bench_cycles", g("cycles") + m.flush_cycles)
            self.set("sata_bench_flush_cycles", g("flush_cycles") + m.flush_cycles)
        if reason == bc.REASON_OK and g("mismatch_dwords"):
            reason = bc.REASON_MISMATCH
        if m.drop_link:
            m.drop_link = False
            self.drop_link()
            reason = bc.REASON_LINK_LOST
        self._final = (bc.STATE_ERROR if reason else bc.STATE_DONE, reason)
        self._busy_left = 10 ** 9 if m.hang else m.busy_reads
        self._snap_target = {n: g(n) for n in ("cycles", "bytes", "completed", "errors", "mismatch_dwords")}
        self._snap_from = {n: g(f"snap_{n}") for n in ("cycles", "bytes", "completed", "errors")}
        self._snap_from["mismatch_dwords"] = g("snap_mismatches")
        self._snaps = 0
        self._set_state(bc.STATE_BUSY, bc.REASON_OK)
        if not self._busy_left:
            self._set_state(*self._final)

    def _command(self, lba, sectors, check, between, hist_source):
        """One command; `between` = cycles from the previous status to this issue (None: first)."""
        m, g = self.model, lambda n: self.get(f"sata_bench_{n}")
        lat = m.latency(sectors)
        gap = None if between is None else between + m.first_data
        self._add("lat", lat)
        self._add("first_data", m.first_data)
        if gap is not None:
            self._add("gap", gap)
        sample = {bc.HIST_LATENCY: lat, bc.HIST_FIRST_DATA: m.first_data}.get(hist_source, gap)
        if sample is not None:
            self.hist[bc.hist_bucket(sample)] += 1
        self.set("sata_bench_cycles", g("cycles") + (between or 0) + lat)
        self.set("sata_bench_bytes", g("bytes") + sectors * 512)
        self.set("sata_bench_completed", g("completed") + 1)
        if check:
            bad = sorted(b for b in m.bad_lbas if lba <= b < lba + sectors)
            if bad and not g("mismatch_sectors"):
                self.set("sata_bench_first_bad_lba", bad[0])
            self.set("sata_bench_mismatch_sectors", g("mismatch_sectors") + len(bad))
            self.set("sata_bench_mismatch_dwords", g("mismatch_dwords") + 3 * len(bad))

    def _add(self, stat, value):
        g = lambda n: self.stats.get((stat, n), 0)
        count = g("count")
        self.stats[stat, "min"] = value if count == 0 else min(g("min"), value)
        self.stats[stat, "max"] = max(g("max"), value)
        self.stats[stat, "sum"] = g("sum") + value
        self.stats[stat, "count"] = count + 1

    def _stat_select(self, value):
        n = len(bc.STAT_FIELDS)
        if value // n < len(bc.STAT_SOURCES):
            key = (bc.STAT_SOURCES[value // n], bc.STAT_FIELDS[value % n])
            self.set("sata_bench_stat_data", self.stats.get(key, 0))
        else:
            self.set("sata_bench_stat_data", 0)

    def _snapshot(self, value):
        """snap_* move from their value at start to the final counters over the busy reads."""
        if not self._final:
            return
        done, total = self._snap_step()
        for name, reg in (("cycles", "snap_cycles"), ("bytes", "snap_bytes"), ("completed", "snap_completed"),
                          ("errors", "snap_errors"), ("mismatch_dwords", "snap_mismatches")):
            a, b = self._snap_from[name], self._snap_target[name]
            self.set(f"sata_bench_{reg}", a + (b - a) * done // total)

    def _hist_select(self, value):
        self.set("sata_bench_hist_data", self.hist[value % bc.HIST_BUCKETS])
