# SPDX-License-Identifier: BSD-2-Clause
"""Access to a running ecpsata SoC through litex_server, registers looked up by name in csr.csv."""

import csv
import json
import os
import socket

from litex import RemoteClient
from litex.tools.remote.etherbone import EtherbonePacket, EtherboneReads, EtherboneRecord

from ecpsata.soc.boards import boards as board_list
from ecpsata.soc.identity import IDENTITY_MAGIC, FEATURES, STAMP_MAGIC, STAMP_DIRTY


class TargetError(Exception):
    """A readable failure talking to the target (no server, wrong csr.csv, timeout)."""


class _StrictClient(RemoteClient):
    """RemoteClient whose reads fail loudly: the stock client returns 0 when a reply times out."""
    def receive_packet(self, sock, addr_size):
        try:
            r = super().receive_packet(sock, addr_size)
        except (socket.timeout, TimeoutError):
            r = 0
        if r == 0:
            raise TargetError(f"no answer from the target through litex_server at {self.host}:{self.port} "
                              f"within {sock.gettimeout():.0f} s (is the bridge connected and the SoC running?)")
        return r


# Read requests sent before the first answer is awaited: enough for a 16-sector buffer (9 requests
# of 255 words), few enough that the requests and the answers fit the sockets' buffers together
# (neither side blocks sending while the other does).
REQUESTS_IN_FLIGHT = 16
REQUEST_WORDS = 255   # a record's read count is one byte


def read_constants(csr_csv):
    consts = {}
    with open(csr_csv) as f:
        for row in csv.reader(f):
            if len(row) >= 3 and row[0] == "constant":
                consts[row[1]] = row[2]
    return consts


CSR_CSV_ROWS = ("csr_base", "csr_register", "constant", "memory_region")


def csr_csv_problem(csr_csv):
    """Why csr_csv is not a LiteX csr.csv (a short phrase), or None: checked before LiteX's parser,
    which raises whatever a wrong file provokes."""
    if os.path.isdir(csr_csv):
        return "a folder"
    try:
        with open(csr_csv, newline="") as f:
            rows = [r for r in csv.reader(f) if not (r and r[0].startswith("#"))]
    except UnicodeDecodeError:
        return "not text"
    except OSError as e:
        return e.strerror or type(e).__name__
    except csv.Error:
        return "not CSV"
    if any(len(r) != 5 or r[0] not in CSR_CSV_ROWS for r in rows):
        return f"lines other than {', '.join(CSR_CSV_ROWS)} with 5 fields"
    if not any(r[0] == "csr_register" for r in rows):
        return "no registers"
    if not any(r[:2] == ["constant", "config_csr_data_width"] for r in rows):
        return "no config_csr_data_width"
    return None


class Target:
    """A connected SoC. Use as a context manager."""
    def __init__(self, host="127.0.0.1", port=1234, csr_csv="build/sim/csr.csv", timeout=5.0):
        if not os.path.exists(csr_csv):
            raise TargetError(f"{csr_csv} not found: build the gateware first (make build BOARD=...) "
                              f"or give --csr-csv")
        self.csr_csv = csr_csv
        self.host, self.port, self.timeout = host, port, timeout
        problem = csr_csv_problem(csr_csv)
        if problem:
            raise TargetError(f"{csr_csv} is not a csr.csv of a LiteX build ({problem}): give the "
                              f"csr.csv of the running build with --csr-csv")
        self.constants = read_constants(csr_csv)
        self.bus = _StrictClient(host=host, port=port, csr_csv=csr_csv)
        fields = os.path.join(os.path.dirname(csr_csv), "csr_fields.json")
        try:
            self.fields = json.load(open(fields)) if os.path.exists(fields) else {}
        except (OSError, ValueError):
            raise TargetError(f"{fields} is not valid JSON: rebuild the gateware") from None

    def __enter__(self):
        try:
            self.bus.open()
        except (ConnectionRefusedError, socket.gaierror, socket.timeout, OSError) as e:
            raise TargetError(f"cannot reach litex_server at {self.host}:{self.port}: {e.strerror or e} "
                              f"(start it with litex_server, or use make bench)") from None
        self.bus.socket.settimeout(self.timeout)
        # Every read follows a write: without this each waits for the peer's delayed ACK (~40 ms).
        self.bus.socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.check_identity()
        return self

    def __exit__(self, *exc):
        self.bus.close()

    def reg(self, name):
        try:
            return getattr(self.bus.regs, name)
        except AttributeError:
            raise TargetError(f"register {name} is not in {self.csr_csv}: this gateware was built "
                              f"without that feature") from None

    def field(self, reg, name):
        """(offset, size) of a register field, from csr_fields.json written by the build."""
        try:
            off, size = self.fields[reg][name]
        except KeyError:
            raise TargetError(f"no field {name} of {reg} in csr_fields.json beside {self.csr_csv}: "
                              f"rebuild the gateware") from None
        return off, size

    def sys_clk_hz(self):
        return self.reg("identity_sys_clk").read()

    def mem_region(self, name):
        try:
            m = getattr(self.bus.mems, name)
        except AttributeError:
            raise TargetError(f"no memory region {name} in {self.csr_csv}") from None
        return m.base, m.size

    def has(self, name):
        return hasattr(self.bus.regs, name)

    def check_identity(self):
        """Refuse to go on when csr.csv does not belong to the running gateware."""
        magic = self.reg("identity_magic").read()
        if magic != IDENTITY_MAGIC:
            raise TargetError(f"identity magic 0x{magic:08x} != 0x{IDENTITY_MAGIC:08x}: {self.csr_csv} "
                              f"does not describe the gateware on the target")
        want = int(self.constants.get("ecpsata_git_rev", "-1"))
        want_time = int(self.constants.get("ecpsata_build_time", "-1"))
        have, _, have_time = self.stamp()
        if (want, want_time) != (have, have_time):
            raise TargetError(f"{self.csr_csv} is from build {want:08x}@{want_time}, the target runs "
                              f"{have:08x}@{have_time}: give the csr.csv of the running build")

    def stamp(self):
        """(git revision, dirty, build time) from the build stamp in the target's ROM."""
        addr = self.reg("identity_stamp").read()
        magic, rev, flags, when = (self.bus.read(addr + 4 * i) for i in range(4))
        if magic != STAMP_MAGIC:
            raise TargetError(f"no build stamp at 0x{addr:08x} (read 0x{magic:08x}, want "
                              f"0x{STAMP_MAGIC:08x}): the ROM does not hold this build's firmware")
        return rev, bool(flags & STAMP_DIRTY), when

    def identity(self):
        boards = {b.code: b.name for b in board_list().values()}
        flags = self.reg("identity_features").read()
        rev, dirty, when = self.stamp()
        return {
            "git_rev":     f"{rev:08x}",
            "git_dirty":   dirty,
            "build_time":  when,
            "board":       boards.get(self.reg("identity_board").read(), "unknown"),
            "sys_clk_hz":  self.reg("identity_sys_clk").read(),
            "features":    [name for name, bit, _ in FEATURES if flags >> bit & 1],
            "ident":       self.ident_string(),
        }

    def read_bursts(self, bursts):
        """The words of every (addr, length) of `bursts`, in order. The requests go to litex_server
        REQUESTS_IN_FLIGHT at a time before their answers are read: ecpsata.host.server takes the
        waiting ones together and overlaps their round trips to the SoC (stock litex_server
        answers them one by one, as if they came one after the other)."""
        bus, size = self.bus, self.bus.csr_bus_address_width // 8
        out = []
        for first in range(0, len(bursts), REQUESTS_IN_FLIGHT):
            group = bursts[first:first + REQUESTS_IN_FLIGHT]
            wire = b""
            for addr, length in group:
                if not 0 < length <= REQUEST_WORDS:
                    raise ValueError(f"a read request holds 1 to {REQUEST_WORDS} words, not {length}")
                record = EtherboneRecord(size)
                record.reads = EtherboneReads(addr_size=size, addrs=[bus.base_address + addr + 4 * j
                                                                     for j in range(length)])
                record.rcount = length
                packet = EtherbonePacket(bus.csr_bus_address_width)
                packet.records = [record]
                packet.encode()
                wire += packet.bytes
            bus.socket.sendall(wire)
            for addr, length in group:
                packet = EtherbonePacket(bus.csr_bus_address_width, bus.receive_packet(bus.socket, size))
                packet.decode()
                words = packet.records.pop().writes.get_datas()
                if len(words) != length:
                    raise TargetError(f"litex_server answered a read of {length} words at "
                                      f"0x{addr:08x} with {len(words)}")
                out.append(words)
        return out

    def ident_string(self):
        base = self.bus.bases.identifier_mem
        chars = []
        for i in range(256):
            c = self.bus.read(base + 4 * i) & 0xff
            if c == 0:
                break
            chars.append(chr(c))
        return "".join(chars)
