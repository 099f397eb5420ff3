# SPDX-License-Identifier: BSD-2-Clause
"""The PHY and our SATA core (link, transport, command layers) against the virtual drive, in
Migen, with the core behind a reset as in the SoC (ecpsata/soc/integration.py add_ecpsata)."""

from migen import *

from tests.support.phy_harness import now_ns
from tests.support.phy_link_harness import PHYDUT, SYS_CLK_FREQ, run_link


def core_dut(**phy_kwargs):
    from ecpsata.core.core import ECPSATACore
    dut = PHYDUT(**phy_kwargs)
    dut.core = ResetInserter()(ECPSATACore(dut.phy, SYS_CLK_FREQ, settle_time=50e-6))
    return dut


def wait_ready(dut, timeout_us=60, settle=300):
    """Waits for the link, then ``settle`` cycles (the drive's signature FIS after a reset)."""
    ctrl = dut.phy.ctrl
    t0 = now_ns()
    while not (yield ctrl.ready):
        assert now_ns() - t0 < timeout_us*1e3, "no link"
        yield
    for _ in range(settle):
        yield


def command(dut, cmd, data_in=None, timeout_us=60):
    """sys generator: one command on the core's user side (``cmd``: dict of command_tx fields);
    returns {"data": read dwords, "failed": flag, "t_ns": issue to end}. Raises AssertionError
    when the command does not end within ``timeout_us``."""
    sink, source = dut.core.sink, dut.core.source
    res = {"data": []}
    for k, v in cmd.items():
        yield getattr(sink, k).eq(v)
    t0 = now_ns()
    words = data_in or [0]
    yield source.ready.eq(1)
    def status_beat():
        # A write that fails ends before all of its packet is taken; the rest is then drained
        # from the port, so the packet is still given whole, and the end beat noted on the way.
        if (yield source.valid) and (yield source.end) and "failed" not in res:
            res["failed"] = yield source.failed
            res["t_ns"] = now_ns() - t0
    for i, w in enumerate(words):
        yield sink.valid.eq(1)
        yield sink.last.eq(i == len(words) - 1)
        yield sink.data.eq(w)
        yield
        yield from status_beat()
        while not (yield sink.ready):
            assert now_ns() - t0 < timeout_us*1e3, "command not taken"
            yield
            yield from status_beat()
    yield sink.valid.eq(0)
    for k in cmd:
        yield getattr(sink, k).eq(0)
    if "failed" in res:
        yield
        return res
    while True:
        if (yield source.valid):
            if (yield source.end):
                res["failed"] = yield source.failed
                # IDENTIFY's last data dword carries the end (the command layer's PIO data-in
                # ends on it); an IDENTIFY that failed before its data ends on a beat of its own
                if (yield source.identify) and len(res["data"]) == 127:
                    res["data"].append((yield source.data))
                break
            res["data"].append((yield source.data))
        assert now_ns() - t0 < timeout_us*1e3, f"command did not end in {timeout_us} us"
        yield
    res["t_ns"] = now_ns() - t0
    yield
    return res


def reset_core(dut, cycles=16):
    yield dut.core.reset.eq(1)
    for _ in range(cycles):
        yield
    yield dut.core.reset.eq(0)
    yield


def run(dut, drive, proc, line_latency=(0, 0)):
    return run_link(dut, drive, proc, line_latency=line_latency)


def engine_dut(**phy_kwargs):
    """As in the SoC: PHY, core, crossbar, registered port and the benchmark engine."""
    from ecpsata.frontend.crossbar import ECPSATACrossbar
    from ecpsata.frontend.port import BufferedUserPort
    from ecpsata.engines.engine import ECPSATABenchEngine
    dut = core_dut(**phy_kwargs)
    dut.xbar = ECPSATACrossbar(dut.core)
    dut.bport = BufferedUserPort(dut.xbar.get_port())
    dut.eng = ECPSATABenchEngine(dut.bport, 100e6, write_beat=dut.bport.write_beat)
    dut.comb += dut.eng.link_up.eq(dut.phy.ready)
    return dut


def engine_run(dut, op, lba, sectors, capacity=4096, timeout_us=500):
    """sys generator: one engine run of one command; returns (reason, errors, bytes)."""
    from ecpsata.engines.common import STATE_BUSY
    from tests.engines.test_engine import configure, pulse
    e = dut.eng
    yield from configure(e, op=op, lba_base=lba, lba_range=sectors, sectors=sectors, commands=1,
                         capacity=capacity, timeout=10**6)
    yield from pulse(e.control, "start")
    for _ in range(5):
        yield
    t0 = now_ns()
    while (yield e.status.fields.state) == STATE_BUSY:
        assert now_ns() - t0 < timeout_us*1e3, "engine run did not end"
        yield
    return ((yield e.status.fields.reason), (yield e.errors.status), (yield e.bytes.status))
