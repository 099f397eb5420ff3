"""Identity and capability registers: what this gateware was built from and with.

Host tools read these to check that the csr.csv they hold belongs to the running gateware and to
label every measurement with the build it came from.
"""

from migen import *

from litex.gen import LiteXModule
from litex.soc.interconnect.csr import CSRStatus, CSRField

IDENTITY_MAGIC = 0xEC5A7A00  # "ECSATA" v0: bump the low byte when the register layout changes

BOARDS = {"sim": 1, "ecpix5": 2, "versa_ecp5": 3}

FEATURES = [
    # (name, bit, description)
    ("uartbone",  0, "UART Wishbone bridge for litex_server."),
    ("etherbone", 1, "Etherbone (UDP) Wishbone bridge for litex_server."),
    ("sata",      2, "SATA PHY and LiteSATA core."),
    ("bench",     3, "Hardware benchmark engine."),
    ("simulated", 4, "Simulated SoC (Verilator) with the virtual drive."),
]


class Identity(LiteXModule):
    """Read-only identity block: magic, git revision, build time, board, sys clock, features."""
    def __init__(self, board, git_rev, git_dirty, build_time, sys_clk_freq, features):
        unknown = set(features) - {name for name, _, _ in FEATURES}
        if unknown:
            raise ValueError(f"unknown feature flags: {sorted(unknown)}")
        self.magic      = CSRStatus(32, reset=IDENTITY_MAGIC, description="Identity block magic.")
        self.git_rev    = CSRStatus(32, reset=git_rev, description="First 8 hex digits of the git revision.")
        self.build_time = CSRStatus(32, reset=build_time, description="Build time, Unix seconds (UTC).")
        self.sys_clk    = CSRStatus(32, reset=int(sys_clk_freq), description="sys clock frequency in Hz.")
        self.board      = CSRStatus(8,  reset=BOARDS[board], description="Board: " + ", ".join(
            f"{v}={k}" for k, v in BOARDS.items()))
        flags = 0
        for name, bit, _ in FEATURES:
            if name in features:
                flags |= 1 << bit
        flags |= (1 << 31) if git_dirty else 0
        self.features = CSRStatus(32, reset=flags, fields=[
            CSRField(name, size=1, offset=bit, description=desc, reset=int(name in features))
            for name, bit, desc in FEATURES] + [
            CSRField("git_dirty", size=1, offset=31, reset=int(git_dirty),
                     description="Built from a work tree with uncommitted changes.")])
