"""A fake SoC behind a real litex_server RemoteServer: registers from a csr.csv, values in a dict.

Host-tool tests talk to it exactly as to the simulated or real SoC (RemoteClient over TCP).
Reads of addresses with a hook call the hook, so tests can model registers that change.
"""

import csv
import os
import socket
import threading

import litex.tools.litex_server as litex_server
from litex.tools.litex_server import RemoteServer

from gateware.identity import IDENTITY_MAGIC


class FakeComm:
    def __init__(self):
        self.mem = {}
        self.read_hooks = {}
        self.write_hooks = {}
        self.silent = False  # when True, reads never answer (a dead bridge)

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
        "identity_git_rev":    (base + 0x04, 1, "ro"),
        "identity_build_time": (base + 0x08, 1, "ro"),
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
    def __init__(self, tmpdir, registers=None, git_rev=0x1234abcd, build_time=1700000000,
                 board=1, features=0b10001, sys_clk=100_000_000):
        self.csr_csv = os.path.join(tmpdir, "csr.csv")
        self.regs = write_csr_csv(self.csr_csv, registers or {},
                                  {"ecpsata_git_rev": git_rev, "ecpsata_build_time": build_time})
        self.comm = FakeComm()
        for name, value in [("identity_magic", IDENTITY_MAGIC), ("identity_git_rev", git_rev),
                            ("identity_build_time", build_time), ("identity_sys_clk", sys_clk),
                            ("identity_board", board), ("identity_features", features)]:
            self.set(name, value)
        for i, c in enumerate(b"ecpsata fake\0"):
            self.comm.mem[0xF0000800 + 4 * i] = c
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        litex_server.print = lambda *args, **kwargs: None  # its connection chatter is not our output
        self.server = RemoteServer(self.comm, "127.0.0.1", self.port)
        self.server.open()
        self.server.start(1)

    def set(self, name, value):
        addr, size, _ = self.regs[name]
        for i in range(size):  # big-endian words, as LiteX CSRs of 32-bit data width
            self.comm.mem[addr + 4 * i] = (value >> (32 * (size - 1 - i))) & 0xFFFFFFFF

    def close(self):
        self.server.socket.shutdown(socket.SHUT_RDWR)
        self.server.socket.close()
