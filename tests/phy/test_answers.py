# SPDX-License-Identifier: BSD-2-Clause
"""The transmit datapath's answers in the word clock (ecpsata/phy/datapath.py): R_RDY to the
drive's X_RDY, SYNC at the end of a handshake, X_RDY to the idle drive when a frame waits; each
only where the link layer allows it, each kept on the line until the link layer's own answer
comes. The line is looped back into the receive datapath, which gives the dwords sent in sys;
the drive's last primitive and the link layer's levels are set by the test."""

from migen import *

from ecpsata.phy.common import primitives
from ecpsata.phy.datapath import TX_MODE_LINK

from tests.support.phy_harness import run_word_sim
from tests.phy.test_datapath import LoopDUT, bring_up, line_process

PRIM = {v: k for k, v in primitives.items()}
FLAGS = ("drive_x_rdy", "drive_done", "drive_idle", "answer_x_rdy", "want_send")


def run(script):
    """``script``: steps, each (dwords the link layer writes, {flag: value}, sys cycles to run
    after). Returns the primitive names on the line, one list per step (repeats collapsed)."""
    dut = LoopDUT()
    steps = []

    def stream():
        tx = dut.tx
        yield from bring_up(dut)
        yield tx.mode.eq(TX_MODE_LINK)
        yield dut.rx.drop_align.eq(1)
        for _ in range(100):
            yield
        for writes, flags, cycles in script:
            steps.append([])
            for name, value in flags.items():
                yield getattr(dut.tx, name).eq(value)
            for name in writes:
                yield tx.sink.valid.eq(1)
                yield tx.sink.data.eq(primitives[name] if name in primitives else 0x12345678)
                yield tx.sink.charisk.eq(1 if name in primitives else 0)
                yield
                while not (yield tx.sink.ready):
                    yield
            yield tx.sink.valid.eq(0)
            for _ in range(cycles):
                yield

    def collect():
        yield "passive"
        while True:
            if steps and (yield dut.rx.source.valid):
                d, k = (yield dut.rx.source.data), (yield dut.rx.source.charisk)
                name = PRIM.get(d, "?") if k == 1 else "D"
                if not steps[-1] or steps[-1][-1] != name:
                    steps[-1].append(name)
            yield

    def line():
        yield "passive"
        yield from line_process(dut, 0, 0)

    run_word_sim(dut, {"sys": [stream(), collect()], "sata_tx": line()}, dut.word_ce)
    return steps


def test_r_rdy_goes_out_on_the_drive_s_x_rdy_only_when_the_link_layer_allows_it():
    steps = run([
        (["SYNC"], {"drive_x_rdy": 1}, 60),               # the link layer busy: no answer
        ([], {"answer_x_rdy": 1}, 60),                    # it allows it: R_RDY
        ([], {"drive_x_rdy": 0, "answer_x_rdy": 0}, 60),  # the drive's SOF: R_RDY stays
        (["R_RDY", "R_IP"], {}, 60),                      # the link layer's own answers
    ])
    assert steps[0] == ["SYNC"]
    assert steps[1][-1] == "R_RDY" and "R_RDY" in steps[1]
    assert steps[2] == ["R_RDY"]
    assert steps[3][-1] == "R_IP"


def test_sync_goes_out_when_the_drive_answers_our_frame():
    steps = run([
        (["X_RDY", "SOF", "D", "D", "EOF", "WTRM"], {}, 60),
        ([], {"drive_done": 1}, 60),                      # R_OK: SYNC before the link layer's
        (["SYNC"], {}, 60),
    ])
    assert steps[0][-1] == "WTRM"
    assert steps[1] and steps[1][-1] == "SYNC" and "WTRM" not in steps[1][1:]
    assert steps[2] == ["SYNC"]


def test_x_rdy_goes_out_to_the_idle_drive_only_when_a_frame_waits_and_yields_to_its_x_rdy():
    steps = run([
        (["R_OK"], {"drive_idle": 1}, 60),                # after our R_OK: SYNC
        ([], {}, 60),
        ([], {"want_send": 1}, 60),                       # a frame waits: X_RDY
        ([], {"drive_idle": 0, "drive_x_rdy": 1, "answer_x_rdy": 1}, 60),  # the drive's X_RDY
    ])
    assert steps[0][-1] == "SYNC" and "X_RDY" not in steps[0]
    assert steps[1] == ["SYNC"]
    assert steps[2][-1] == "X_RDY"
    assert steps[3][-1] == "R_RDY"


def test_nothing_is_answered_without_the_drive_s_primitive():
    steps = run([
        (["SYNC"], {"answer_x_rdy": 1, "want_send": 1}, 100),
        (["X_RDY", "SOF", "D", "EOF", "WTRM"], {}, 100),
        (["R_OK"], {}, 100),
    ])
    assert steps[0] == ["SYNC"]
    assert steps[1][-1] == "WTRM"
    assert steps[2][-1] == "R_OK" and "SYNC" not in steps[2]
