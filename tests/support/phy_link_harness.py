# SPDX-License-Identifier: BSD-2-Clause
"""ECPSATAPHY + SimSerDes against the virtual drive (ctypes), in Migen simulation."""

from migen import *
from litex.gen import LiteXModule

from ecpsata.phy.serdes import GEN1, GEN2
from ecpsata.phy.sim_serdes import SimSerDes, sim_serdes_pads
from ecpsata.phy.phy import ECPSATAPHY
from ecpsata.phy.ctrl import SHORT_TIMINGS, STATE

from tests.support.phy_harness import run_word_sim, now_ns

SYS_CLK_FREQ = 100e6

# Short timings so that Migen runs a link-up in seconds.
FAST_CTRL = SHORT_TIMINGS


class PHYDUT(LiteXModule):
    def __init__(self, with_csr=False, unpluggable=False, sys_clk_freq=SYS_CLK_FREQ, **kwargs):
        # unpluggable: accepted for readability of tests; any DUT can be unplugged.
        self.unplugged = False  # set by a test: the drive's line goes quiet (rx 0, rx_los 1)
        ctrl = dict(FAST_CTRL)
        ctrl.update(kwargs)
        self.pads   = pads = sim_serdes_pads()
        self.serdes = serdes = SimSerDes(pads)
        self.phy    = ECPSATAPHY(serdes, sys_clk_freq, with_csr=with_csr, **ctrl)


def drive_process(dut, drive, log=None, line_latency=(0, 0)):
    """The virtual drive, stepped once per word clock (derived sata_tx edge). ``line_latency``:
    (to the pins, from the pins) in word clocks, the data path latency of a SerDes such as the
    ECP5's DCU (ecpsata/phy/ecp5/dcua_model.py) on the words and on the line's idle state."""
    from collections import deque
    from ecpsata.sim.vdrive import VirtualDrive
    pads = dut.pads
    to_pins, from_pins = None, deque([(0, 1)]*line_latency[1])  # (rx, rx_los): a quiet line
    yield pads.rx_los.eq(1)
    while True:
        word = ((yield pads.tx), (yield pads.gen))
        if to_pins is None:
            to_pins = deque([word]*line_latency[0])
        to_pins.append(word)
        tx, gen = to_pins.popleft()
        rx, los = drive.step(tx, VirtualDrive.gen_from_signal(gen))
        if dut.unplugged:
            rx, los = 0, 1
        if log is not None:         # both words as they are on the pins
            log.append((now_ns(), tx, rx, los))
        from_pins.append((rx, los))
        rx, los = from_pins.popleft()
        yield pads.rx.eq(rx)
        yield pads.rx_los.eq(los)
        yield


def run_link(dut, drive, sys_process, max_words=None, log=None, line_latency=(0, 0)):
    """Runs the drive (passive) and ``sys_process`` (active) until the latter returns. ``log``:
    a list that gets (time ns, host TX word, drive word, rx_los) per word clock, as on the pins
    (``line_latency`` from and to the host's SerDes buses)."""
    def drv():
        yield "passive"
        yield from drive_process(dut, drive, log, line_latency)
    return run_word_sim(dut, {"sys": sys_process, "sata_tx": drv()}, dut.serdes.word_ce)


def activity_runs(log, active):
    """[(start ns, end ns), ...]: runs of consecutive log entries where ``active(entry)`` holds
    (the end is the time of the first inactive entry; None if the run lasts to the end)."""
    runs, start = [], None
    for entry in log:
        if active(entry):
            if start is None:
                start = entry[0]
        elif start is not None:
            runs.append((start, entry[0]))
            start = None
    if start is not None:
        runs.append((start, None))
    return runs


def wait_state(ctrl, state, timeout_us, info=None):
    """sys generator: waits for ``state`` (name), returns the time in ns, fails on timeout."""
    code = STATE[state]
    t0 = now_ns()
    while (yield ctrl.state) != code:
        if now_ns() - t0 > timeout_us*1e3:
            raise AssertionError(f"{state} not reached in {timeout_us} us, state "
                                 f"{(yield ctrl.state)} info {info() if info else ''}")
        yield
    return now_ns()
