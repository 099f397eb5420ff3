# SPDX-License-Identifier: BSD-2-Clause
"""Test ordering for parallel runs (pytest -n N --dist loadgroup, as `make test` runs them).

The simulated-SoC tests (marker `system`) share the Verilator build folder and run one after the
other in one worker; the Migen and host tests spread over the others. They go first, so that the
long serial group starts at once instead of last.

At the end of a parallel run, "time per worker" says how long each worker ran tests and when it
took its last one: the worker that finished last bounds the run, and scaling down tests the other
worker ran does not shorten it.
"""

import time

import pytest

_workers = {}                                # xdist worker id -> what it ran
_start = time.monotonic()


def pytest_sessionstart(session):
    global _start
    _start = time.monotonic()


def pytest_runtest_logreport(report):
    node = getattr(report, "node", None)      # set by pytest-xdist on the controlling process
    if node is None:
        return
    w = _workers.setdefault(node.gateway.id, dict(tests=0, system=0, secs=0.0, done=0.0))
    w["secs"] += report.duration
    if report.when == "call":
        w["tests"] += 1
        w["system"] += "system" in report.keywords
    w["done"] = time.monotonic() - _start


def pytest_terminal_summary(terminalreporter):
    if not _workers:
        return
    terminalreporter.section("time per worker")
    for wid, w in sorted(_workers.items()):
        terminalreporter.write_line(
            f"{wid}: {w['tests']} tests ({w['system']} on the simulated SoC), {w['secs']:.0f} s "
            f"in tests, its last one done {w['done']:.0f} s after the start")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.get_closest_marker("system"):
            item.add_marker(pytest.mark.xdist_group("simulated-soc"))
    items.sort(key=lambda item: item.get_closest_marker("system") is None)

