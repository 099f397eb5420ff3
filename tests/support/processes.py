# SPDX-License-Identifier: BSD-2-Clause
"""The simulations and litex_servers a test process started, to check that none outlives its test.

Tests run in several pytest workers at once (`make test`): while one worker's test has stopped its
simulated board, another worker's test may be running a litex_server of its own from the same
repository. Each worker tags its environment with its process id (OWNER, set when this module is
imported: every worker collects the test modules that import it before it runs a test); every
process it starts, and theirs, inherits the tag, and `our_processes` counts only the processes
with this worker's tag.
"""

import os

from ecpsata.paths import ROOT as REPO

OWNER = "ECPSATA_TEST_OWNER"
os.environ[OWNER] = str(os.getpid())

VSIM = os.path.join(REPO, "build", "sim", "gateware", "obj_dir", "Vsim")


def _read(pid, name):
    try:
        with open(f"/proc/{pid}/{name}", "rb") as f:
            return f.read().split(b"\0")
    except OSError:                      # gone meanwhile, or not ours to read
        return None


def our_processes():
    """Command lines of the simulations and litex_servers from this repository that this test
    process started (directly or through make and the simulated board's tools)."""
    tag = f"{OWNER}={os.getpid()}".encode()
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        argv = _read(pid, "cmdline")
        if not argv:
            continue
        cmd = b" ".join(argv).decode(errors="replace")
        if not ((VSIM in cmd) or (("litex_server" in cmd or "ecpsata.host.server" in cmd)
                                  and REPO in cmd)):
            continue
        env = _read(pid, "environ")
        if env is not None and tag in env:
            found.append(cmd)
    return found
