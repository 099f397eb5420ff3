# SPDX-License-Identifier: BSD-2-Clause
"""LiteX's BIOS on our PHY (examples/litex_add_sata_sim.py) in the simulated SoC: a stock LiteX
SoC, LiteSATA's core built by LiteX's ``add_sata(phy=...)`` on our ECPSATAPHY, or our core through
``add_ecpsata(..., with_dma=True)``, and no code of ours on the CPU. The BIOS's ``sata_init`` finds the virtual drive, ``sata_read`` shows its
sector, ``sata_write`` changes the drive's image. The example is built here (about a minute and a
half each), so that it cannot rot."""

import importlib.util
import os
import re
import socket
import time

import pytest

from ecpsata.paths import ROOT
from ecpsata.platforms import sim as simplatform
from tests.system.test_sim_system import free_port

pytestmark = pytest.mark.system

ANSI = re.compile(rb"\x1b\[[0-9;]*m")
SECTOR = 512


def example():
    path = os.path.join(ROOT, "examples", "litex_add_sata_sim.py")
    spec = importlib.util.spec_from_file_location("example_litex_add_sata_sim", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Console:
    """The BIOS's console on a loopback TCP port of the simulation."""
    def __init__(self, port, timeout=60):
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.sock = socket.create_connection(("127.0.0.1", port), timeout=1)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise AssertionError(f"the simulation's console (port {port}) never opened")
                time.sleep(0.5)
        self.text = b""

    def until(self, what, timeout):
        """The text up to `what` (ANSI colours removed); fails naming what was seen."""
        deadline = time.monotonic() + timeout
        while what.encode() not in ANSI.sub(b"", self.text):
            if time.monotonic() > deadline:
                raise AssertionError(f"no {what!r} within {timeout} s; the console said:\n"
                                     + ANSI.sub(b"", self.text).decode(errors="replace")[-2000:])
            try:
                self.text += self.sock.recv(4096)
            except socket.timeout:
                pass
        text = ANSI.sub(b"", self.text).decode(errors="replace")
        self.text = b""
        return text

    def command(self, line, timeout):
        self.sock.sendall(line.encode() + b"\n")
        return self.until("litex>", timeout)


# Each BIOS run takes minutes on a loaded two-core machine (most of it the BIOS's own waits: 200 ms
# per sata_init; the example leaves out the serial boot's 250 ms). make test runs the one with
# LiteSATA's core on our PHY (nothing else runs that core); `make test-long` also the one with our
# core, whose add_ecpsata the simulated boards' SoCs use in every system test.
@pytest.mark.parametrize("core", ["litesata", pytest.param("ecpsata", marks=pytest.mark.long)])
def test_litex_bios_reads_and_writes_the_drive_through_our_phy(tmp_path, core):
    """core litesata: LiteX's add_sata on our PHY; ecpsata: our core (add_ecpsata) with
    LiteSATA's frontends under LiteX's names."""
    ex = example()
    gateware = ex.build(str(tmp_path / "build"), core=core)
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    image = run_dir / "disk.img"
    with open(image, "wb") as f:           # the vdrive's image: a pattern in LBA 0
        f.truncate(1 << 30)
        f.write(bytes(range(256)) * 2)
    port = free_port()
    sim = ex.run(gateware, simplatform.default_vdrive(str(run_dir)), console="tcp",
                 console_port=port)
    try:
        console = Console(port)
        boot = console.until("litex>", 300)
        assert "Booting from SATA..." in boot               # the BIOS's own sataboot ran
        init = console.command("sata_init", 300)
        assert "Model:    ecpsata virtual drive" in init and "Capacity: 1GB" in init, init
        assert "Successful." in init, init
        dump = console.command("sata_read 0", 120)
        rows = re.findall(r"0x[0-9a-f]{8}  ((?:[0-9a-f]{2} ){16})", dump)   # lines end in \n\r
        assert len(rows) == SECTOR // 16, dump
        got = bytes(int(x, 16) for row in rows for x in row.split())
        assert got == bytes(range(256)) * 2
        console.command("sata_write 5 ecpsata_was_here", 120)
        dump = console.command("sata_read 5", 120)
        assert re.search(r"0x[0-9a-f]{8}  65 63 70 73 61 74 61 5f 77 61 73 5f 68 65 72 65  "
                         r"ecpsata_was_here", dump), dump
    finally:
        sim.kill()
        sim.wait()
    with open(image, "rb") as f:
        f.seek(5 * SECTOR)
        assert f.read(16) == b"ecpsata_was_here"
