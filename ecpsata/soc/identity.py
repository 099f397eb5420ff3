# SPDX-License-Identifier: BSD-2-Clause
"""Identity and capability registers: what this gateware was built from and with.

Host tools read these to check that the csr.csv they hold belongs to the running gateware and to
label every measurement with the build it came from.

What changes from one build to the next (git revision, dirty flag, build time) is not in these
registers: as CSR reset values they would be constants in the CSR read logic, so every build would
synthesise and place a different netlist (a placement lottery for timing). They live in the build
stamp instead, four words at the end of the firmware ROM (block RAM contents, which do not change
the placed logic); the ``stamp`` register gives its bus address.
"""

from migen import *

from litex.gen import LiteXModule
from litex.soc.interconnect.csr import CSRStatus, CSRField

IDENTITY_MAGIC = 0xEC5A7A01  # "ECSATA" v1: bump the low byte when the register layout changes

# The build stamp in ROM: magic, git revision, flags (bit 0: built from a dirty work tree), build
# time (Unix seconds; the commit's time unless SOURCE_DATE_EPOCH says otherwise).
STAMP_MAGIC = 0xEC5A57A0
STAMP_WORDS = 4
STAMP_DIRTY = 1 << 0


def stamp_words(git_rev, git_dirty, build_time):
    return [STAMP_MAGIC, git_rev & 0xffffffff, STAMP_DIRTY if git_dirty else 0, build_time & 0xffffffff]

FEATURES = [
    # (name, bit, description)
    ("uartbone",  0, "UART Wishbone bridge for litex_server."),
    ("etherbone", 1, "Etherbone (UDP) Wishbone bridge for litex_server."),
    ("sata",      2, "SATA PHY and LiteSATA core."),
    ("bench",     3, "Hardware benchmark engine."),
    ("simulated", 4, "Simulated SoC (Verilator) with the virtual drive."),
    ("ncq",       5, "Queued benchmark engine (READ/WRITE FPDMA QUEUED)."),
    ("analyzer",  6, "LiteScope analyzer on the SATA PHY and link (analyzer.csv beside csr.csv)."),
]


class Identity(LiteXModule):
    """Read-only identity block: magic, address of the build stamp, board, sys clock, features."""
    def __init__(self, board, stamp_addr, sys_clk_freq, features):
        unknown = set(features) - {name for name, _, _ in FEATURES}
        if unknown:
            raise ValueError(f"unknown feature flags: {sorted(unknown)}")
        self.magic      = CSRStatus(32, reset=IDENTITY_MAGIC, description="Identity block magic.")
        self.stamp      = CSRStatus(32, reset=stamp_addr, description="Bus address of the build stamp "
            "(4 words in ROM: magic, git revision, flags with bit 0 = dirty, build time in Unix seconds).")
        self.sys_clk    = CSRStatus(32, reset=int(sys_clk_freq), description="sys clock frequency in Hz.")
        from ecpsata.soc.boards import boards
        self.board      = CSRStatus(8,  reset=board.code, description="Board: " + ", ".join(
            f"{b.code}={b.name}" for b in boards().values()))
        flags = 0
        for name, bit, _ in FEATURES:
            if name in features:
                flags |= 1 << bit
        self.features = CSRStatus(32, reset=flags, fields=[
            CSRField(name, size=1, offset=bit, description=desc, reset=int(name in features))
            for name, bit, desc in FEATURES])
