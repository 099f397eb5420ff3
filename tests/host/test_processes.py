# SPDX-License-Identifier: BSD-2-Clause
"""The check that no simulation or litex_server outlives its test counts only the processes its
own pytest worker started: a server another worker's test runs at that moment is not a leak."""

import os
import subprocess
import sys
import time

from tests.support.processes import OWNER, REPO, our_processes


def _lookalike(owner):
    """A process whose command line reads as a litex_server of this repository."""
    env = dict(os.environ, **{OWNER: str(owner)})
    argv = [sys.executable, "-c", "import time; time.sleep(60)", "-m", "ecpsata.host.server",
            "--bind-ip", "127.0.0.1", REPO]
    return subprocess.Popen(argv, env=env)


def test_a_server_another_worker_started_is_not_ours():
    other = _lookalike(os.getpid() + 1)
    mine = _lookalike(os.getpid())
    try:
        for p in (other, mine):                # until both have exec'd python
            for _ in range(1000):
                with open(f"/proc/{p.pid}/cmdline", "rb") as f:
                    if b"ecpsata.host.server" in f.read():    # the two look the same
                        break
                time.sleep(0.01)
        listed = [c for c in our_processes() if "time.sleep(60)" in c]
        assert len(listed) == 1, listed                      # only the tag tells them apart
    finally:
        for p in (other, mine):
            p.kill()
            p.wait()
    assert [c for c in our_processes() if "time.sleep(60)" in c] == []


def test_workers_tag_what_they_start():
    assert os.environ[OWNER] == str(os.getpid())
