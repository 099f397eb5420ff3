# SPDX-License-Identifier: BSD-2-Clause
"""The whole simulated SoC: firmware console and the bench CLI through litex_server.

Needs the Verilator build (make build/sim/.built, done by `make test` before pytest; built here if
missing, which takes a few minutes).
"""

import os
import re
import socket
import subprocess
import time

import pytest

from ecpsata.host.simboard import SimBoard, SimBoardError
from ecpsata.host.target import read_constants
from ecpsata.soc.identity import IDENTITY_MAGIC

# The simulated SoC in Verilator (build/sim, build/ecpix5_sim): `pytest -m "not system"` leaves these out.
pytestmark = pytest.mark.system

from ecpsata.paths import ROOT as REPO
from tests.support.processes import VSIM, our_processes  # noqa: F401 (imported by other tests)


@pytest.fixture(scope="module")
def sim_built():
    subprocess.run(["make", "-s", "--no-print-directory", "build/sim/.built"], cwd=REPO, check=True)
    assert os.path.exists(VSIM)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_console_answers_ident(sim_built):
    with SimBoard(server_port=free_port()) as board:
        board.wait_prompt()
        text = board.console("ident", "features", timeout=30)
        board.console_wait("ecpsata>", timeout=10)
        text = "".join(board.console_text)
    assert f"magic      0x{IDENTITY_MAGIC:08x}" in text
    # The build stamp in ROM, as the firmware reads it, is the one the build wrote in csr.csv.
    consts = read_constants(os.path.join(REPO, "build", "sim", "csr.csv"))
    dirty = " (dirty)" if int(consts["ecpsata_git_dirty"]) else ""
    assert f"git        {int(consts['ecpsata_git_rev']):08x}{dirty}\n" in text
    assert f"built      {int(consts['ecpsata_build_time'])} (unix)" in text
    assert "board      sim" in text
    assert "sys_clk    75000000 Hz" in text
    # every feature of the identity block by its name (the names come from the one list)
    assert re.search(r"features\s+uartbone sata bench simulated ncq\r?\n", text), text
    assert our_processes() == []


def test_unknown_command_is_reported(sim_built):
    with SimBoard(server_port=free_port()) as board:
        board.wait_prompt()
        text = board.console("frobnicate 1 2", "ecpsata>", timeout=30)
    assert "unknown command 'frobnicate' (try 'help')" in text


def test_console_memory_read(sim_built):
    with SimBoard(server_port=free_port()) as board:
        board.wait_prompt()
        csr = read_csr_base("ctrl")
        text = board.console(f"mr {csr + 4:#x}", "ecpsata>", timeout=30)   # ctrl_scratch
        assert f"{csr + 4:08x}: 12345678" in text
        text = board.console("mr 0x3", "ecpsata>", timeout=30)
        assert "mr: ADDR must be a 32-bit address aligned to 4, WORDS 1..256" in text
        text = board.console("mr", "ecpsata>", timeout=30)
        assert "usage: mr ADDR [WORDS]" in text


def read_csr_base(name, kind="csr_base"):
    with open(os.path.join(REPO, "build", "sim", "csr.csv")) as f:
        for line in f:
            fields = line.split(",")
            if len(fields) >= 3 and fields[0] == kind and fields[1] == name:
                return int(fields[2], 0)
    raise AssertionError(f"no {kind} {name} in csr.csv")


def test_console_refuses_a_long_line_and_keeps_the_next(sim_built):
    # One write: the simulator hands the SoC a character per clock, far faster than a terminal.
    with SimBoard(server_port=free_port()) as board:
        board.wait_prompt()
        text = board.console_send(b"x" * 300 + b"\rident\r", "features", timeout=60)
        text = board.console_wait("ecpsata>", timeout=10)
    assert "line too long (max 127 characters), ignored" in text
    assert "unknown command" not in text            # no truncated part of the long line was run
    assert "board      sim" in text


def test_console_burst_of_lines_runs_every_line(sim_built):
    # Six lines of 48 characters (spaces between arguments are allowed) in one write: more than
    # twice the 128-byte ring of LiteX's interrupt-driven UART driver, which dropped the rest.
    sram = read_csr_base("sram", kind="memory_region")
    addrs = [sram + 4 * i for i in range(6)]
    lines = [f"mr {a:#x}".ljust(46) + " 1" for a in addrs]
    data = "".join(line + "\r" for line in lines).encode()
    assert len(data) > 256
    with SimBoard(server_port=free_port()) as board:
        board.wait_prompt()
        text = board.console_send(data, f"{addrs[-1]:08x}: ", timeout=60)
    assert [a for a in addrs if f"{a:08x}: " not in text] == []
    assert "unknown command" not in text and "usage" not in text


def test_console_argument_errors_name_the_argument(sim_built):
    with SimBoard(server_port=free_port()) as board:
        board.wait_prompt()
        text = board.console("write -1 1 5", "ecpsata>", timeout=30)
        assert "write: LBA '-1' is not a number" in text
        text = board.console("write 0 1", "ecpsata>", timeout=30)
        assert "usage: write LBA COUNT PATTERN" in text
        text = board.console("write 0 1 0x100000000", "ecpsata>", timeout=30)
        assert "write: PATTERN must be a 32-bit word" in text
        text = board.console("read 0 one", "ecpsata>", timeout=30)
        assert "read: COUNT 'one' is not a number" in text
        text = board.console("read 0 1 2", "ecpsata>", timeout=30)
        assert "usage: read LBA COUNT" in text
        text = board.console("mr 0xg0", "ecpsata>", timeout=30)
        assert "mr: ADDR '0xg0' is not a number" in text
        text = board.console("ident now", "ecpsata>", timeout=30)
        assert "ident takes no arguments" in text and "magic" not in text
        text = board.console("mr 0 1 2 3 4 5 6 7", "ecpsata>", timeout=30)
        assert "too many arguments (max 7), ignored" in text and "usage" not in text


def test_console_does_not_echo_non_ascii_bytes(sim_built):
    with SimBoard(server_port=free_port()) as board:
        board.wait_prompt()
        text = board.console_send(b"ident\xe9\x01\r", "ecpsata>", timeout=30)
    assert "\ufffd" not in text                     # 0xe9 echoed raw decodes as U+FFFD
    assert "ident??" in text
    assert "line has bytes that are not printable ASCII (echoed as '?'), ignored" in text
    assert "magic" not in text


def test_make_bench_info_reads_identity_and_cleans_up(sim_built):
    port = free_port()
    p = subprocess.run(["make", "-s", "--no-print-directory", "bench", "ARGS=info", f"SERVER_PORT={port}"],
                       cwd=REPO, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "board      sim" in p.stdout
    assert "features   uartbone sata bench simulated" in p.stdout
    assert re.search(r"sys_clk\s+75\.000 MHz", p.stdout)
    assert our_processes() == []


def test_busy_port_is_a_clear_error(sim_built):
    with socket.socket() as blocker:
        blocker.bind(("127.0.0.1", 0))
        blocker.listen(1)
        port = blocker.getsockname()[1]
        t0 = time.monotonic()
        p = subprocess.run(["make", "-s", "--no-print-directory", "bench", f"SERVER_PORT={port}"],
                           cwd=REPO, capture_output=True, text=True, timeout=120)
    assert p.returncode != 0
    assert f"busy: litex_server port {port}" in p.stderr
    assert time.monotonic() - t0 < 60
    assert our_processes() == []
