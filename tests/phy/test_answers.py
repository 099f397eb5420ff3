# SPDX-License-Identifier: BSD-2-Clause
"""The transmit datapath's answers in the word clock (ecpsata/phy/datapath.py): R_RDY to the
drive's X_RDY, SYNC at the end of a handshake, X_RDY to the idle drive when a frame waits, R_OK
at a good frame's EOF (``early_eof``, the frame check's flag set by the test); each
only where the link layer allows it, each kept on the line until the link layer's own answer
comes. The line is looped back into the receive datapath, which gives the dwords sent in sys;
the drive's last primitive and the link layer's levels are set by the test. As the link layer
does, the test offers a dword in every cycle (the last one again between its writes: dropped as a
repeat, unless the levels beside it changed)."""

from migen import *

from ecpsata.phy.common import primitives

from tests.support.phy_harness import run_word_sim
from tests.phy.test_datapath import LoopDUT, line_process, link_mode

PRIM = {v: k for k, v in primitives.items()}
# the drive's last primitive and the frame check's flag (datapath inputs)
# (and the frame's second dword against the queued layer's masks, compared in the receive clock)
DRIVE = ("drive_x_rdy", "drive_done", "drive_idle", "frame_good", "frame_good_status",
         "frame_good_setup", "frame_good_sdb", "frame_setup_ok", "frame_sdb_ok")
LEVELS = ("answer_x_rdy", "want_send", "answer_eof", "answer_status",  # the link layer's levels
          "answer_setup")


def run(script, early_eof=False):
    """``script``: steps, each (dwords the link layer writes, {flag: value}, sys cycles to run
    after); a level set in a step goes with the step's first dword (or, with none, the last dword
    offered again). Returns the primitive names on the line, one list per step (repeats
    collapsed). ``early_eof``: the transmit datapath's early R_OK."""
    dut = LoopDUT(early_eof=early_eof)
    steps = []

    def stream():
        tx = dut.tx
        yield from link_mode(dut, 100)
        for writes, flags, cycles in script:
            steps.append([])
            for name, value in flags.items():
                assert name in DRIVE + LEVELS, name
                yield getattr(dut.tx if name in DRIVE else tx.sink, name).eq(value)
            for name in writes:
                yield tx.sink.valid.eq(1)
                yield tx.sink.data.eq(primitives[name] if name in primitives else 0x12345678)
                yield tx.sink.charisk.eq(1 if name in primitives else 0)
                yield
                while not (yield tx.sink.ready):
                    yield
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
        ([], {"drive_x_rdy": 0}, 60),                     # the drive's SOF: R_RDY stays
        (["R_RDY", "R_IP"], {"answer_x_rdy": 0}, 60),     # the link layer's own answers
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


def test_a_level_never_overtakes_an_older_dword():
    """The link layer leaves L_IDLE for HL_SendChkRdy: SYNC (no frame yet), then X_RDY in the
    cycle a frame comes, its level want_send set in that same cycle. The word clock's X_RDY may
    go out on the level only after the SYNC that was written before it: never X_RDY, SYNC,
    X_RDY (the drive answers that SYNC with SYNC, which ends our frame)."""
    steps = run([
        (["R_OK"], {}, 60),                               # our R_OK, the drive not yet idle
        ([], {"drive_idle": 1}, 60),                      # the drive's SYNC: SYNC (word clock)
        (["SYNC", "X_RDY"], {"want_send": 1}, 60),        # the link layer's SYNC, then X_RDY
        ([], {"want_send": 0}, 60),
    ])
    assert steps[1][-1] == "SYNC"
    line = []
    for p in (p for step in steps[2:] for p in step):
        if not line or line[-1] != p:
            line.append(p)
    assert "X_RDY" in line
    assert line[line.index("X_RDY"):] == ["X_RDY"], line


def test_r_ok_goes_out_at_a_good_eof_only_when_the_link_layer_says_so():
    steps = run([
        (["R_RDY", "R_IP"], {}, 60),                      # receiving
        ([], {"frame_good": 1}, 60),                      # a good EOF, the link layer silent
        ([], {"frame_good": 0}, 60),                      # the next frame's SOF
        ([], {"answer_eof": 1}, 60),                      # the transport accepted it
        ([], {"frame_good": 1}, 60),                      # its good EOF: R_OK
        (["R_OK"], {"answer_eof": 0}, 60),                # the link layer's own: R_OK stays
    ], early_eof=True)
    assert steps[0][-1] == "R_IP"
    assert steps[1] == steps[2] == steps[3] == ["R_IP"]
    assert steps[4][-1] == "R_OK"
    assert steps[5] == ["R_OK"]


def test_a_good_eof_flag_older_than_the_frame_gives_no_r_ok():
    """The flag still set from the last frame when the link layer's R_IP and answer_eof come for
    the next (the SOF that clears it not yet through its synchroniser): only a flag set after it
    was seen clear, since the last frame's answer, counts."""
    steps = run([
        (["R_RDY", "R_IP"], {}, 60),
        ([], {"frame_good": 1}, 60),                      # the last frame's flag
        (["R_OK"], {}, 60),                               # its answer, the link layer's
        (["SYNC"], {}, 60),
        (["R_RDY", "R_IP"], {"answer_eof": 1}, 100),      # the next frame, its flag stale
        ([], {"frame_good": 0}, 60),                      # its SOF
        ([], {"frame_good": 1}, 60),                      # its good EOF: R_OK
    ], early_eof=True)
    assert steps[4][-1] == "R_IP" and "R_OK" not in steps[4]
    assert steps[5] == ["R_IP"]
    assert steps[6][-1] == "R_OK"


def test_a_status_gets_r_ok_when_its_level_comes_after_its_eof():
    """A Register D2H's EOF sets both flags before the link layer's level for it comes (a short
    frame ends before its first dword has been through sys): R_OK when the level comes, on the
    flag for a Register D2H's length only."""
    steps = run([
        (["R_RDY", "R_IP"], {}, 60),
        ([], {"frame_good": 1, "frame_good_status": 1}, 60),   # its good EOF, no level yet
        ([], {"answer_status": 1}, 60),                   # the transport reads a Register D2H
        (["R_OK"], {"answer_status": 0}, 60),             # the link layer's own: R_OK stays
    ], early_eof=True)
    assert steps[1] == ["R_IP"]
    assert steps[2][-1] == "R_OK"
    assert steps[3] == ["R_OK"]


def test_a_status_level_needs_the_status_length():
    """``answer_status`` with a good frame of another length (the flag for any good frame only):
    no R_OK, the link layer's answer counts (the transport refuses a Register D2H of the wrong
    length)."""
    steps = run([
        (["R_RDY", "R_IP"], {"answer_status": 1}, 60),
        ([], {"frame_good": 1}, 100),                     # good, but not a Register D2H's length
        (["R_ERR"], {"answer_status": 0}, 60),
    ], early_eof=True)
    assert steps[1] == ["R_IP"]
    assert steps[2][-1] == "R_ERR" and "R_OK" not in steps[2]


def test_a_dma_setup_gets_r_ok_on_its_level_for_a_tag_of_the_mask_only():
    """``answer_setup`` (the transport holds the queued layer's masks for this frame): R_OK on
    the flag for a good DMA Setup whose tag is in the setup mask (``frame_setup_ok``); not
    for another tag, nor on the status flag or the flag for any good frame; and the status level
    does not answer on the DMA Setup's flag."""
    steps = run([
        (["R_RDY", "R_IP"], {"answer_setup": 1, "frame_setup_ok": 1}, 60),
        ([], {"frame_good": 1, "frame_good_status": 1}, 100),   # a good Register D2H
        (["R_ERR"], {"answer_setup": 0}, 60),
        (["SYNC"], {"frame_good": 0, "frame_good_status": 0}, 60),
        (["R_RDY", "R_IP"], {"answer_status": 1}, 60),
        ([], {"frame_good": 1, "frame_good_setup": 1}, 100),    # a good DMA Setup
        (["R_ERR"], {"answer_status": 0}, 60),
        (["SYNC"], {"frame_good": 0, "frame_good_setup": 0}, 60),
        (["R_RDY", "R_IP"], {"answer_setup": 1, "frame_setup_ok": 0}, 60),
        ([], {"frame_good": 1, "frame_good_setup": 1}, 100),    # of a tag not in the mask
        (["R_ERR"], {"answer_setup": 0}, 60),
        (["SYNC"], {"frame_good": 0, "frame_good_setup": 0}, 60),
        (["R_RDY", "R_IP"], {"answer_setup": 1, "frame_setup_ok": 1}, 60),
        ([], {"frame_good": 1, "frame_good_setup": 1}, 60),     # R_OK
        (["R_OK"], {"answer_setup": 0}, 60),
    ], early_eof=True)
    assert steps[1] == ["R_IP"] and steps[2][-1] == "R_ERR"
    assert steps[5] == ["R_IP"] and steps[6][-1] == "R_ERR"
    assert steps[9] == ["R_IP"] and steps[10][-1] == "R_ERR"
    assert steps[13][-1] == "R_OK"
    assert steps[14] == ["R_OK"]


def test_a_set_device_bits_gets_r_ok_on_its_level_when_its_sactive_is_in_the_mask_only():
    """``answer_setup`` and the flag for a good Set Device Bits: R_OK when its SActive holds only
    tags of the SDB mask (``frame_sdb_ok``); with a tag outside it, the link layer's answer
    counts."""
    steps = run([
        (["R_RDY", "R_IP"], {"answer_setup": 1, "frame_sdb_ok": 0}, 60),
        ([], {"frame_good": 1, "frame_good_sdb": 1}, 100),      # a tag outside the mask
        (["R_ERR"], {"answer_setup": 0}, 60),
        (["SYNC"], {"frame_good": 0, "frame_good_sdb": 0}, 60),
        (["R_RDY", "R_IP"], {"answer_setup": 1, "frame_sdb_ok": 1}, 60),
        ([], {"frame_good": 1, "frame_good_sdb": 1}, 60),       # R_OK
        (["R_OK"], {"answer_setup": 0}, 60),
    ], early_eof=True)
    assert steps[1] == ["R_IP"] and steps[2][-1] == "R_ERR"
    assert steps[5][-1] == "R_OK"
    assert steps[6] == ["R_OK"]


def test_the_link_layer_s_r_ok_never_follows_the_sync_that_answered_ours():
    """Our R_OK goes out, the drive answers it with SYNC and we with SYNC before the link layer's
    own R_OK came through the FIFO: that R_OK is taken and not sent (R_OK, SYNC, R_OK would be a
    new answer to a frame the drive has closed)."""
    steps = run([
        (["R_RDY", "R_IP"], {"answer_eof": 1}, 60),
        ([], {"frame_good": 1}, 60),                      # R_OK
        ([], {"drive_idle": 1}, 60),                      # the drive's SYNC: SYNC
        (["R_OK"], {"answer_eof": 0}, 60),                # the link layer's R_OK, late
        (["SYNC"], {}, 60),
    ], early_eof=True)
    assert steps[1][-1] == "R_OK"
    assert steps[2][-1] == "SYNC"
    assert steps[3] == steps[4] == ["SYNC"]
