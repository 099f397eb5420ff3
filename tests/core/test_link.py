# SPDX-License-Identifier: BSD-2-Clause
"""ecpsata/core/link.py alone, against primitive and frame sequences built here (SATA 3.x §9.4
primitives, SATA 3.x §9.6 link layer states): what a drive may send that the virtual drive did
not, and what the link must answer. The PHY is a pair of stream endpoints: one dword a cycle each
way.

Every transition of the link's two state machines is listed in ``TRANSITIONS`` (source state,
destination, the condition as link.py writes it). Two tests keep that table true to the code (one
reads link.py's source, one walks the state machines Migen builds), one checks that each entry is
observed by some test, and each test marked ``@covers(...)`` fails unless its simulation shows
each transition it claims: the source state in one cycle, the destination in the next, the
drive's dword that caused it, what the link sends in its first cycle there and the pulses it gives
the transport layer."""

import ast
import functools
import pathlib
from collections import Counter, namedtuple

import pytest
from migen import *
from litex.soc.interconnect import stream
from litesata.common import phy_description

import ecpsata.core.link as link_module
from ecpsata.core.link import (ECPSATALink, ECPSATALinkRX, ECPSATALinkTX, PRIMITIVES,
                               FRAME_MAX_DWORDS, RX_BUFFER_DWORDS)
from ecpsata.sim.vdrive.host_model import crc32, scrambler

NAMES = {v: k for k, v in PRIMITIVES.items()}


class PHYStub:
    def __init__(self):
        self.sink   = stream.Endpoint(phy_description(32))    # link -> drive
        self.source = stream.Endpoint(phy_description(32))    # drive -> link


class DUT(Module):
    def __init__(self, answer_eof=False):
        self.phy = PHYStub()
        if answer_eof:              # a PHY that answers a good EOF itself (its frame check)
            self.phy.answer_eof = Signal()
            self.phy.answer_status = Signal()
            self.phy.answer_setup = Signal()
            self.phy.setup_mask = Signal(32)
            self.phy.sdb_mask = Signal(32)
        self.submodules.link = ECPSATALink(self.phy)
        self.busy = Signal()               # the PHY does not take the link's dword (an ALIGN pair)
        self.comb += self.phy.sink.ready.eq(~self.busy)


def frame_dwords(payload):
    """The frame's dwords on the line between SOF and EOF: payload and CRC, scrambled."""
    words = payload + [crc32(payload)]
    return [w ^ s for w, s in zip(words, scrambler(len(words)))]


class Drive:
    """Plays the drive's side: ``send`` puts one dword (a primitive by name, or data) on the line
    per cycle; ``sent`` records what the link sends, by primitive name (data as 'data')."""
    def __init__(self, dut):
        self.dut = dut
        self.sent = []

    def send(self, item):
        src = self.dut.phy.source
        yield src.valid.eq(1)
        if isinstance(item, str):
            yield src.data.eq(PRIMITIVES[item])
            yield src.charisk.eq(0b0001)
        else:
            yield src.data.eq(item)
            yield src.charisk.eq(0)
        yield

    @passive
    def record(self):
        sink = self.dut.phy.sink
        while True:
            yield
            if (yield sink.valid):
                k = yield sink.charisk
                d = yield sink.data
                self.sent.append(NAMES.get(d, "?") if k else "data")

    def last_sent(self):
        return self.sent[-1] if self.sent else None


def run(dut, drive, *gens):
    run_simulation(dut, [drive.record(), *gens])


def test_a_power_management_request_is_denied_with_pmnak_and_no_x_rdy_goes_into_it():
    """SATA 3.x §9.6.3: in L_IDLE, PMREQ_P or PMREQ_S from the drive -> L_PMDeny, PMNAK for as long
    as the drive asks, then back to idle. A frame waiting to go out does not send X_RDY into the
    request; it goes once the drive is back to SYNC."""
    dut = DUT()
    drive = Drive(dut)
    during = {}

    def body():
        for _ in range(10):
            yield from drive.send("SYNC")
        # A frame is waiting, then the drive asks for Partial (and later for Slumber).
        yield dut.link.sink.valid.eq(1)
        yield dut.link.sink.last.eq(1)
        yield dut.link.sink.data.eq(0x00000027)
        n0 = len(drive.sent)
        for req in ("PMREQ_P", "PMREQ_S"):
            for _ in range(20):
                yield from drive.send(req)
        during["sent"] = drive.sent[n0:]
        n1 = len(drive.sent)
        for _ in range(20):
            yield from drive.send("SYNC")
        during["after"] = drive.sent[n1:]

    run(dut, drive, body())
    sent = during["sent"]
    assert "X_RDY" not in sent, sent
    assert sent.count("PMNAK") >= 35, sent           # every dword but the first few
    assert sent[-1] == "PMNAK"
    after = during["after"]
    assert "PMNAK" not in after[4:], after
    assert "X_RDY" in after, after                   # the waiting frame goes once the drive idles


def receive_frame(dut, drive, payload, reader, hold_ignored=True):
    """The drive sends X_RDY, then (on R_RDY) SOF, the frame, EOF and WTRM, ignoring HOLD; returns
    the primitive the link answers after EOF once it stops sending R_IP."""
    for _ in range(4):
        yield from drive.send("SYNC")
    for _ in range(200):
        yield from drive.send("X_RDY")
        if drive.last_sent() == "R_RDY":
            break
    assert drive.last_sent() == "R_RDY"
    yield from drive.send("SOF")
    for w in frame_dwords(payload):
        yield from drive.send(w)
    yield from drive.send("EOF")
    for _ in range(20000):
        yield from drive.send("WTRM")
        if drive.last_sent() in ("R_OK", "R_ERR"):
            return drive.last_sent()
    raise AssertionError(f"no R_OK / R_ERR after EOF, the link sends {drive.last_sent()}")


class Reader:
    """The transport's side: takes the link's dwords (``ready`` from ``start_cycle`` on), judges
    every frame good at its first dword, records every dword with its ``last`` / ``error``."""
    def __init__(self, dut, start_cycle=0):
        self.dut, self.start_cycle = dut, start_cycle
        self.dwords = []

    @passive
    def gen(self):
        src, link = self.dut.link.source, self.dut.link
        cycle, first, judge = 0, True, False
        while True:
            yield src.ready.eq(int(cycle >= self.start_cycle))
            yield link.verdict_valid.eq(int(judge))
            yield link.verdict_good.eq(1)
            yield
            cycle += 1
            judge = False
            if (yield src.valid) and (yield src.ready):
                judge = first
                self.dwords.append(((yield src.data), (yield src.last), (yield src.error)))
                first = bool((yield src.last))


def test_a_frame_that_overruns_the_buffer_is_refused_and_its_end_still_reaches_the_transport():
    """A drive that ignores our HOLD while the transport does not read: the dwords past the
    buffer's room are lost, so the frame must not be taken as good (R_ERR), and its last dword
    must still reach the transport, or L_RcvEOF would answer R_IP for ever."""
    dut = DUT()
    drive = Drive(dut)
    reader = Reader(dut, start_cycle=600)       # the transport reads nothing for 600 cycles
    payload = [0x46] + [0x1000 + i for i in range(RX_BUFFER_DWORDS + 100)]
    got = {}

    def body():
        got["answer"] = yield from receive_frame(dut, drive, payload, reader)
        for _ in range(2*RX_BUFFER_DWORDS):
            yield from drive.send("SYNC")

    run(dut, drive, reader.gen(), body())
    assert reader.dwords, "nothing reached the transport"
    lasts = [d for d in reader.dwords if d[1]]
    assert len(lasts) == 1, "the frame's last dword never reached the transport"
    assert lasts[0][2] == 1, "the frame that lost dwords is not marked bad"
    assert len(reader.dwords) < len(payload)
    assert got["answer"] == "R_ERR"


@pytest.mark.slow
def test_a_frame_longer_than_any_fis_is_refused():
    """SATA 3.x §10.3.10: a Data FIS carries at most 2,048 dwords; a frame longer than the header,
    2,048 dwords and the CRC is refused (R_ERR) and marked bad on its last dword. (One of exactly
    that length is taken: every read of the fault matrix and the suite moves 2,048-dword Data
    FISes; a frame here costs about a minute of simulation.)"""
    for extra, answer, error in ((1, "R_ERR", 1),):
        dut = DUT()
        drive = Drive(dut)
        reader = Reader(dut)
        payload = [0x46] + [i for i in range(FRAME_MAX_DWORDS - 2 + extra)]
        got = {}

        def body():
            got["answer"] = yield from receive_frame(dut, drive, payload, reader)

        run(dut, drive, reader.gen(), body())
        assert got["answer"] == answer, (extra, got)
        assert reader.dwords[-1][1:] == (1, error), (extra, reader.dwords[-1])


# The transitions of the link's state machines ----------------------------------------------------

Transition = namedtuple("Transition", "fsm source dest guard line sends pulses")

# Every NextState of link.py: the state machine (tx: ECPSATALinkTX, rx: ECPSATALinkRX), the source
# and destination states, the guard as link.py writes it (nested conditions joined by " / ", an
# Else as "not (...)"), then what a test sees when it happens: the drive's dword in the cycle of
# the transition (None: the condition is not on the line), what the link sends in its first cycle
# in the destination state (SATA 3.x §9.6), and the pulses the link gives the transport layer (one
# cycle after the transition: ECPSATALink registers them). A test may pass other values for the
# last three where its path differs (another primitive that meets the same guard).
TRANSITIONS = {
    # Transmit side (SATA 3.x §9.6.3).
    "tx.idle>chkrdy":     Transition("tx", "L_IDLE", "HL_SendChkRdy",
                                     "rx.idle / go", "SYNC", "X_RDY", ()),
    "tx.chkrdy>idle":     Transition("tx", "HL_SendChkRdy", "L_IDLE",
                                     "~rx.idle", "X_RDY", "R_RDY", ()),
    "tx.chkrdy>data":     Transition("tx", "HL_SendChkRdy", "L_SendData",
                                     "prim('R_RDY') / source.ready", "R_RDY", "data", ()),
    "tx.chkrdy>sof":      Transition("tx", "HL_SendChkRdy", "L_SendSOF",
                                     "prim('R_RDY') / not (source.ready)", "R_RDY", "SOF", ()),
    "tx.sof>data":        Transition("tx", "L_SendSOF", "L_SendData",
                                     "source.ready", None, "data", ()),
    "tx.data>drain":      Transition("tx", "L_SendData", "L_Drain",
                                     "aborted", "SYNC", "SYNC", ("tx_err",)),
    "tx.data>eof":        Transition("tx", "L_SendData", "L_SendEOF",
                                     "frame.valid & frame.last & frame.ready", None, "EOF", ()),
    "tx.data>rcvrhold":   Transition("tx", "L_SendData", "L_RcvrHold",
                                     "prim('HOLD')", "HOLD", "HOLDA", ()),
    "tx.rcvrhold>drain":  Transition("tx", "L_RcvrHold", "L_Drain",
                                     "aborted", "SYNC", "SYNC", ("tx_err",)),
    "tx.rcvrhold>data":   Transition("tx", "L_RcvrHold", "L_SendData",
                                     "prim.other_than('HOLD')", "R_IP", "data", ()),
    "tx.eof>wait":        Transition("tx", "L_SendEOF", "L_Wait",
                                     "source.ready", None, "WTRM", ()),
    "tx.wait>idle.ok":    Transition("tx", "L_Wait", "L_IDLE",
                                     "prim('R_OK')", "R_OK", "SYNC", ("tx_ok",)),
    "tx.wait>idle.err":   Transition("tx", "L_Wait", "L_IDLE",
                                     "prim('R_ERR') | aborted", "R_ERR", "SYNC", ("tx_err",)),
    "tx.drain>idle":      Transition("tx", "L_Drain", "L_IDLE",
                                     "frame.valid & frame.last", None, "SYNC", ()),
    # Receive side (SATA 3.x §9.6.4), and the power management requests it denies (L_PMDeny,
    # SATA 3.x §9.6).
    "rx.idle>chkrdy":     Transition("rx", "L_IDLE", "L_RcvChkRdy",
                                     "prim('X_RDY')", "X_RDY", "R_RDY", ()),
    "rx.idle>pmdeny":     Transition("rx", "L_IDLE", "L_PMDeny",
                                     "prim('PMREQ_P') | prim('PMREQ_S')", "PMREQ_P", "PMNAK",
                                     ("rx_pm_denied",)),
    "rx.pmdeny>idle":     Transition("rx", "L_PMDeny", "L_IDLE",
                                     "prim.other_than('PMREQ_P', 'PMREQ_S')", "SYNC", "SYNC", ()),
    "rx.chkrdy>data":     Transition("rx", "L_RcvChkRdy", "L_RcvData",
                                     "prim('SOF')", "SOF", "R_IP", ()),
    "rx.chkrdy>idle":     Transition("rx", "L_RcvChkRdy", "L_IDLE",
                                     "prim.other_than('X_RDY', 'SOF')", "SYNC", "SYNC", ()),
    "rx.data>eof":        Transition("rx", "L_RcvData", "L_RcvEOF",
                                     "prim('EOF')", "EOF", "R_IP", ()),
    "rx.data>eof.wtrm":   Transition("rx", "L_RcvData", "L_RcvEOF",
                                     "prim('WTRM')", "WTRM", "R_IP", ("rx_bad_seq",)),
    "rx.data>escape":     Transition("rx", "L_RcvData", "L_SyncEscape",
                                     "prim('SYNC')", "SYNC", "SYNC", ("rx_escape",)),
    "rx.eof>badend.short": Transition("rx", "L_RcvEOF", "L_BadEnd",
                                     "~owed", None, "R_ERR", ("rx_refused",)),
    "rx.eof>goodend":     Transition("rx", "L_RcvEOF", "L_GoodEnd",
                                     "verdict & crc_known / good", None, "R_OK", ()),
    "rx.eof>badend":      Transition("rx", "L_RcvEOF", "L_BadEnd",
                                     "verdict & crc_known / not (good)", None, "R_ERR",
                                     ("rx_refused",)),
    "rx.goodend>idle":    Transition("rx", "L_GoodEnd", "L_IDLE",
                                     "prim('SYNC')", "SYNC", "SYNC", ()),
    "rx.badend>idle":     Transition("rx", "L_BadEnd", "L_IDLE",
                                     "prim('SYNC')", "SYNC", "SYNC", ()),
    "rx.escape>idle":     Transition("rx", "L_SyncEscape", "L_IDLE",
                                     "(~owed | verdict) & ~last_pending", None, "SYNC", ()),
}

FSM_OF_CLASS = {"ECPSATALinkTX": "tx", "ECPSATALinkRX": "rx"}


def _if_chain(call):
    """The branches of ``If(c, ...).Elif(c, ...).Else(...)`` as (condition or None, body)."""
    branches = []
    node = call
    while isinstance(node, ast.Call):
        f = node.func
        if isinstance(f, ast.Name) and f.id == "If":
            return [(ast.unparse(node.args[0]), node.args[1:])] + branches
        if isinstance(f, ast.Attribute) and f.attr == "Elif":
            branches.insert(0, (ast.unparse(node.args[0]), node.args[1:]))
        elif isinstance(f, ast.Attribute) and f.attr == "Else":
            branches.insert(0, (None, node.args))
        else:
            return None
        node = f.value
    return None


def _next_states(node, guards):
    """(guards, destination) for each NextState in an expression of an ``fsm.act``."""
    if isinstance(node, ast.Call):
        if isinstance(node.func, ast.Name) and node.func.id == "NextState":
            yield guards, ast.literal_eval(node.args[0])
            return
        branches = _if_chain(node)
        if branches is not None:
            before = []
            for cond, body in branches:
                text = cond if cond is not None else "not (" + " or ".join(before) + ")"
                before.append(cond)
                for stmt in body:
                    yield from _next_states(stmt, guards + [text])
            return
    for child in ast.iter_child_nodes(node):
        yield from _next_states(child, guards)


def transitions_in_source():
    """Every NextState written in link.py, as (fsm, source, destination, guard)."""
    tree = ast.parse(pathlib.Path(link_module.__file__).read_text())
    found = []
    for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
        for call in ast.walk(cls):
            if (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                    and call.func.attr == "act"):
                state = ast.literal_eval(call.args[0])
                for stmt in call.args[1:]:
                    for guards, dest in _next_states(stmt, []):
                        found.append((FSM_OF_CLASS.get(cls.name, cls.name), state, dest,
                                      " / ".join(guards)))
    return found


def transitions_in_gateware():
    """Every NextState in the state machines as Migen holds them (helpers' statements included),
    as (fsm, source, destination), and each machine's states."""
    rx = ECPSATALinkRX()
    tx = ECPSATALinkTX(rx)
    found, states = [], {}

    def walk(name, state, node):
        if isinstance(node, NextState):
            found.append((name, state, node.state))
        elif isinstance(node, If):
            walk(name, state, node.t)
            walk(name, state, node.f)
        elif isinstance(node, Case):
            for body in node.cases.values():
                walk(name, state, body)
        elif isinstance(node, (list, tuple)):
            for x in node:
                walk(name, state, x)

    for name, fsm in (("tx", tx.fsm), ("rx", rx.fsm)):
        states[name] = set(fsm.actions)
        for state, body in fsm.actions.items():
            walk(name, state, body)
    return found, states


def test_the_table_lists_every_transition_written_in_link_py():
    code = Counter(transitions_in_source())
    table = Counter((t.fsm, t.source, t.dest, t.guard) for t in TRANSITIONS.values())
    assert not code - table, f"transitions of link.py the table lacks: {sorted(code - table)}"
    assert not table - code, f"transitions listed that link.py lacks: {sorted(table - code)}"


def test_the_table_lists_every_transition_of_the_state_machines_built():
    found, states = transitions_in_gateware()
    built = Counter(found)
    table = Counter((t.fsm, t.source, t.dest) for t in TRANSITIONS.values())
    assert built == table, (sorted(built - table), sorted(table - built))
    for name in ("tx", "rx"):
        listed = {s for t in TRANSITIONS.values() if t.fsm == name for s in (t.source, t.dest)}
        assert listed == states[name], (name, listed ^ states[name])


# Which test shows which transition: ``@covers`` records it, and fails the test unless
# ``expect`` saw each of them in its simulation.
COVERS = {}
_seen = None


def covers(*ids):
    unknown = set(ids) - set(TRANSITIONS)
    assert not unknown, f"no such transitions: {unknown}"

    def decorate(test):
        COVERS[test.__name__] = set(ids)

        @functools.wraps(test)
        def wrapper(*args, **kwargs):
            global _seen
            _seen = set()
            try:
                test(*args, **kwargs)
                unseen = set(ids) - _seen
            finally:
                _seen = None
            assert not unseen, f"{test.__name__} claims transitions it never checked: {unseen}"
        return wrapper
    return decorate


# The harness: every cycle recorded --------------------------------------------------------------

PULSES = ("tx_ok", "tx_err", "rx_escape", "rx_crc_error", "rx_refused", "rx_bad_seq",
          "rx_overrun", "rx_too_long", "rx_pm_denied")
Cycle = namedtuple("Cycle", "line tx rx out data pulses dmat")

# What the link sends in each state (SATA 3.x §9.6): the receive side's primitive when it is not
# idle, else the transmit side's. L_SendData sends HOLD when our data is late (L_SendHold) and
# nothing in the cycle the drive's SYNC aborts the frame (the PHY repeats its filler); L_RcvData
# answers the drive's HOLD with HOLDA and sends HOLD when the buffer behind is half full (the
# spec's L_RcvHold and L_Hold); L_RcvEOF sends R_OK / R_ERR already in the cycle it decides.
TX_SENDS = {"L_IDLE": {"SYNC"}, "HL_SendChkRdy": {"X_RDY", "SOF"}, "L_SendSOF": {"SOF"},
            "L_SendData": {"data", "HOLD", None}, "L_RcvrHold": {"HOLDA"}, "L_SendEOF": {"EOF"},
            "L_Wait": {"WTRM"}, "L_Drain": {"SYNC"}}
RX_SENDS = {"L_PMDeny": {"PMNAK"}, "L_RcvChkRdy": {"R_RDY"}, "L_RcvData": {"R_IP", "HOLD", "HOLDA"},
            "L_RcvEOF": {"R_IP", "R_OK", "R_ERR"}, "L_GoodEnd": {"R_OK"}, "L_BadEnd": {"R_ERR"},
            "L_SyncEscape": {"SYNC"}}


def _word(ep):
    if not (yield ep.valid):
        return None
    if (yield ep.charisk):
        return NAMES.get((yield ep.data), "?")
    return "data"


class TracedDrive(Drive):
    """``Drive``, with a record of every cycle in ``cycles``: the drive's dword, both state
    machines' states, what the link sends (and its data), the pulses it gives the transport and
    ``dmat``."""
    def __init__(self, dut):
        super().__init__(dut)
        self.cycles = []

    @passive
    def record(self):
        link, phy = self.dut.link, self.dut.phy
        tx, rx = link.tx.fsm, link.rx.fsm
        while True:
            yield
            pulses = set()
            for name in PULSES:
                if (yield getattr(link, name)):
                    pulses.add(name)
            c = Cycle((yield from _word(phy.source)), tx.decoding[(yield tx.state)],
                      rx.decoding[(yield rx.state)], (yield from _word(phy.sink)),
                      (yield phy.sink.data), frozenset(pulses), (yield link.dmat))
            self.cycles.append(c)
            if c.out is not None:
                self.sent.append(c.out)

    def until(self, item, out, limit=40):
        """Sends ``item`` until the link sends ``out`` (in the same cycle)."""
        for _ in range(limit):
            yield from self.send(item)
            if self.cycles[-1].out == out:
                return
        raise AssertionError(f"{limit} x {item}: the link sends {self.cycles[-1].out}, not {out}")

    def repeat(self, item, n):
        for _ in range(n):
            yield from self.send(item)


class Sender:
    """The transport's transmit side: offers ``frames`` on the link's sink back to back."""
    def __init__(self, dut, *frames):
        self.dut, self.frames = dut, frames

    @passive
    def gen(self):
        sink = self.dut.link.sink
        for frame in self.frames:
            for i, w in enumerate(frame):
                yield sink.valid.eq(1)
                yield sink.data.eq(w)
                yield sink.last.eq(int(i == len(frame) - 1))
                yield
                while not (yield sink.ready):
                    yield
        yield sink.valid.eq(0)


class Transport:
    """The transport's receive side: takes the link's dwords in the cycles ``reading(cycle)``
    says, judges each frame (``good``) at its first dword or its last (``at``), records every
    dword as (data, last, error) and each verdict's cycle."""
    def __init__(self, dut, good=True, at="first", reading=lambda cycle: True):
        self.dut, self.good, self.at, self.reading = dut, good, at, reading
        self.dwords, self.verdicts = [], []

    @passive
    def gen(self):
        src, link = self.dut.link.source, self.dut.link
        cycle, first, judge = 0, True, False
        while True:
            yield src.ready.eq(int(self.reading(cycle)))
            yield link.verdict_valid.eq(int(judge))
            yield link.verdict_good.eq(int(self.good))
            yield
            if judge:
                self.verdicts.append(cycle)
            cycle += 1
            judge = False
            if (yield src.valid) and (yield src.ready):
                last = (yield src.last)
                self.dwords.append(((yield src.data), last, (yield src.error)))
                judge = first if self.at == "first" else bool(last)
                first = bool(last)

    def frames(self):
        """The frames read: (payload, error on the last dword), and any dwords left without an
        end."""
        frames, cur = [], []
        for d, last, error in self.dwords:
            cur.append(d)
            if last:
                frames.append((cur, error))
                cur = []
        return frames, cur


def expect(cycles, tid, line=..., sends=..., pulses=..., after=0):
    """Asserts that the transition ``tid`` happened (its source state in one cycle, its
    destination in the next) with the drive's dword ``line`` in that cycle, that the link sends
    ``sends`` in the next and that the transport gets ``pulses`` then (the table's values unless
    given). Returns the cycle of the first such transition from cycle ``after`` on."""
    t = TRANSITIONS[tid]
    line = t.line if line is ... else line
    sends = t.sends if sends is ... else sends
    pulses = t.pulses if pulses is ... else pulses
    steps = [i for i in range(after, len(cycles) - 1)
             if getattr(cycles[i], t.fsm) == t.source and getattr(cycles[i + 1], t.fsm) == t.dest]
    assert steps, f"{tid}: {t.fsm} never went {t.source} -> {t.dest}"
    if line is not None:
        steps = [i for i in steps if cycles[i].line == line]
        assert steps, f"{tid}: {t.source} -> {t.dest} never on the drive's {line}"
    i = steps[0]
    after = cycles[i + 1]
    if sends == "SYNC" and _leaves_idle(cycles, i + 1):
        sends = "X_RDY"
    assert after.out == sends, f"{tid}: the link sends {after.out} in {t.dest}, not {sends}"
    assert set(pulses) <= after.pulses, f"{tid}: pulses {sorted(after.pulses)}, not {pulses}"
    if _seen is not None:
        _seen.add(tid)
    return i


def _leaves_idle(cycles, i):
    """Both sides idle in cycle ``i`` and the transmit side in HL_SendChkRdy in the next: the
    link sends X_RDY already in cycle ``i``."""
    return ((cycles[i].rx, cycles[i].tx) == ("L_IDLE", "L_IDLE") and i + 1 < len(cycles)
            and cycles[i + 1].tx == "HL_SendChkRdy")


def check_sends(cycles):
    """Every cycle: the link sends its states' primitive (``TX_SENDS`` / ``RX_SENDS``); L_IDLE
    sends X_RDY already in the cycle it leaves for HL_SendChkRdy, SYNC otherwise."""
    for i, c in enumerate(cycles):
        allowed = RX_SENDS[c.rx] if c.rx != "L_IDLE" else TX_SENDS[c.tx]
        if _leaves_idle(cycles, i):
            allowed = {"X_RDY"}
        assert c.out in allowed, f"cycle {i}: tx {c.tx}, rx {c.rx}: the link sends {c.out}"
        if c.out is None:
            assert c.line == "SYNC", f"cycle {i}: nothing sent, and no abort"


def frame_on_line(cycles):
    """The data dwords the link sent between its SOF and EOF (one frame each)."""
    frames, cur = [], None
    for c in cycles:
        if c.out == "SOF":
            cur = []
        elif c.out == "data" and cur is not None:
            cur.append(c.data)
        elif c.out == "EOF" and cur is not None:
            frames.append(cur)
            cur = None
    return frames


def states(cycles, fsm):
    """The states ``fsm`` went through, each once per stay."""
    out = []
    for c in cycles:
        s = getattr(c, fsm)
        if not out or out[-1] != s:
            out.append(s)
    return out


DATA_FIS = [0x00000046] + [0x1000 + i for i in range(7)]        # a Data FIS: header, 7 dwords
REG_D2H = [0x00500034, 0xE0000000, 0, 1, 0]                     # Register D2H: status 0x50


# Transmit side ----------------------------------------------------------------------------------

@covers("tx.idle>chkrdy", "tx.chkrdy>data", "tx.data>rcvrhold", "tx.rcvrhold>data",
        "tx.data>eof", "tx.eof>wait", "tx.wait>idle.ok")
def test_a_frame_we_send_with_hold_and_dmat_in_it_gets_r_ok():
    """SATA 3.x §9.6.3: L_IDLE (SYNC) -> HL_SendChkRdy (X_RDY) on a frame to send and the drive
    idle; SOF already in the cycle of the drive's R_RDY, then L_SendData; the drive's HOLD -> L_RcvrHold (HOLDA),
    its R_IP -> back to L_SendData; the frame's CRC -> L_SendEOF, EOF, then L_Wait (WTRM) until
    R_OK: back to L_IDLE with ``tx_ok``. The drive's DMAT raises ``dmat`` until the frame ends."""
    dut = DUT()
    drive = TracedDrive(dut)

    def body():
        yield from drive.until("SYNC", "X_RDY")
        yield from drive.repeat("SYNC", 2)          # the drive's answer takes a few dwords
        yield from drive.until("R_RDY", "data")
        yield from drive.send("R_IP")
        yield from drive.send("DMAT")
        yield from drive.repeat("HOLD", 3)
        yield from drive.until("R_IP", "WTRM")
        yield from drive.repeat("R_IP", 2)
        yield from drive.repeat("R_OK", 2)
        yield from drive.repeat("SYNC", 4)

    run(dut, drive, Sender(dut, DATA_FIS).gen(), body())
    c = drive.cycles
    for tid in ("tx.idle>chkrdy", "tx.chkrdy>data", "tx.data>rcvrhold", "tx.rcvrhold>data",
                "tx.data>eof", "tx.eof>wait", "tx.wait>idle.ok"):
        expect(c, tid)
    check_sends(c)
    assert states(c, "tx") == ["L_IDLE", "HL_SendChkRdy", "L_SendData", "L_RcvrHold",
                               "L_SendData", "L_SendEOF", "L_Wait", "L_IDLE"]
    r = [i for i, x in enumerate(c) if x.line == "R_RDY"][0]
    assert c[r].out == "SOF" and c[r + 1].out == "data"
    assert set(states(c, "rx")) == {"L_IDLE"}
    # HOLDA from the cycle after the first HOLD to the one with the drive's R_IP, then data.
    i = expect(c, "tx.data>rcvrhold")
    assert [x.out for x in c[i:i + 5]] == ["data", "HOLDA", "HOLDA", "HOLDA", "data"]
    assert frame_on_line(c) == [frame_dwords(DATA_FIS)]
    assert sum("tx_ok" in x.pulses for x in c) == 1
    assert not any("tx_err" in x.pulses for x in c)
    d = [i for i, x in enumerate(c) if x.line == "DMAT"][0]
    assert not c[d].dmat and c[d + 1].dmat
    assert not c[-1].dmat


@covers("tx.chkrdy>sof", "tx.sof>data")
def test_sof_waits_in_l_sendsof_while_the_phy_does_not_take_it():
    """The drive's R_RDY in a cycle the PHY does not take our dword (it sends an ALIGN pair):
    HL_SendChkRdy -> L_SendSOF, which offers SOF until the PHY takes it, then L_SendData. The
    frame goes out once, whole."""
    dut = DUT()
    drive = TracedDrive(dut)

    def body():
        yield from drive.until("SYNC", "X_RDY")
        yield dut.busy.eq(1)
        yield from drive.repeat("R_RDY", 3)
        yield dut.busy.eq(0)
        yield from drive.until("R_RDY", "WTRM")
        yield from drive.repeat("R_OK", 2)
        yield from drive.repeat("SYNC", 4)

    run(dut, drive, Sender(dut, DATA_FIS).gen(), body())
    c = drive.cycles
    i = expect(c, "tx.chkrdy>sof")
    j = expect(c, "tx.sof>data", after=i)
    assert j - i >= 3, (i, j)                          # SOF offered until the PHY took it
    assert [x.out for x in c[i:j + 1]] == ["SOF"] * (j - i + 1)
    assert c[j + 1].out == "data"
    check_sends(c)
    assert frame_on_line(c) == [frame_dwords(DATA_FIS)]
    assert sum("tx_ok" in x.pulses for x in c) == 1


@pytest.mark.parametrize("answer", ["R_ERR", "SYNC"])
@covers("tx.wait>idle.err")
def test_a_frame_we_send_answered_r_err_or_sync_in_l_wait_fails(answer):
    """SATA 3.x §9.6.3, L_Wait: R_ERR (the drive refuses the frame) or SYNC (it abandoned it)
    -> L_IDLE, ``tx_err`` and no ``tx_ok``."""
    dut = DUT()
    drive = TracedDrive(dut)

    def body():
        yield from drive.until("SYNC", "X_RDY")
        yield from drive.until("R_RDY", "SOF")
        yield from drive.until("R_IP", "WTRM")
        yield from drive.repeat(answer, 3)
        yield from drive.repeat("SYNC", 3)

    run(dut, drive, Sender(dut, DATA_FIS).gen(), body())
    c = drive.cycles
    expect(c, "tx.wait>idle.err", line=answer)
    check_sends(c)
    assert sum("tx_err" in x.pulses for x in c) == 1
    assert not any("tx_ok" in x.pulses for x in c)


@covers("tx.data>drain", "tx.rcvrhold>drain", "tx.drain>idle")
def test_frames_the_drive_aborts_with_sync_are_drained_and_the_next_one_goes_whole():
    """The drive's SYNC inside our frame (SATA 3.x §9.6.3, L_SendData and L_RcvrHold: the
    receiver abandoned it) -> L_Drain with ``tx_err``: SYNC out while the rest of the frame is
    taken from the transport and dropped, then L_IDLE. Two frames are aborted, one in each state;
    the third goes out whole, none of the first two's dwords in it."""
    dut = DUT()
    drive = TracedDrive(dut)
    first = [0x00000046] + [0x2000 + i for i in range(30)]
    second = [0x00000046] + [0x3000 + i for i in range(30)]

    def body():
        for abort_in_hold in (False, True):
            yield from drive.until("SYNC", "X_RDY")
            yield from drive.until("R_RDY", "data")
            yield from drive.repeat("R_IP", 3)
            if abort_in_hold:
                yield from drive.until("HOLD", "HOLDA")
            yield from drive.repeat("SYNC", 1)
        yield from drive.until("SYNC", "X_RDY", limit=80)
        yield from drive.until("R_RDY", "SOF")
        yield from drive.until("R_IP", "WTRM")
        yield from drive.repeat("R_OK", 2)
        yield from drive.repeat("SYNC", 3)

    run(dut, drive, Sender(dut, first, second, DATA_FIS).gen(), body())
    c = drive.cycles
    i = expect(c, "tx.data>drain", sends="SYNC")
    assert c[i].out is None                    # the abort cycle sends nothing of the frame
    expect(c, "tx.rcvrhold>drain")
    expect(c, "tx.drain>idle")
    check_sends(c)
    assert states(c, "tx")[:10] == [
        "L_IDLE", "HL_SendChkRdy", "L_SendData", "L_Drain",
        "L_IDLE", "HL_SendChkRdy", "L_SendData", "L_RcvrHold", "L_Drain", "L_IDLE"]
    assert sum("tx_err" in x.pulses for x in c) == 2
    assert sum("tx_ok" in x.pulses for x in c) == 1
    # After each abort: SYNC only until the next X_RDY (no EOF, no data).
    drains = [i for i in range(len(c) - 1) if c[i].tx != "L_Drain" and c[i + 1].tx == "L_Drain"]
    for i in drains:
        j = i + 1
        while c[j].out != "X_RDY":
            assert c[j].out == "SYNC", (j, c[j])
            j += 1
    assert frame_on_line(c) == [frame_dwords(DATA_FIS)]


# Both sides at once -----------------------------------------------------------------------------

@covers("tx.chkrdy>idle", "rx.idle>chkrdy", "rx.chkrdy>data", "rx.data>eof", "rx.eof>goodend",
        "rx.goodend>idle", "tx.idle>chkrdy")
def test_the_host_yields_to_the_drive_s_x_rdy_takes_its_frame_then_sends_its_own():
    """SATA 3.x §9.6.3, HL_SendChkRdy: X_RDY from both sides: the host yields (-> L_IDLE) and the
    receiver answers R_RDY (L_IDLE -> L_RcvChkRdy); SOF -> L_RcvData (R_IP, HOLDA to the drive's
    HOLD); EOF -> L_RcvEOF (R_IP until the CRC and the transport's verdict); good -> L_GoodEnd
    (R_OK, in that cycle already) until SYNC -> L_IDLE. Our frame then goes."""
    dut = DUT()
    drive = TracedDrive(dut)
    transport = Transport(dut)
    on_line = frame_dwords(REG_D2H)

    def body():
        yield from drive.until("SYNC", "X_RDY")
        yield from drive.until("X_RDY", "R_RDY")
        yield from drive.repeat("X_RDY", 2)
        yield from drive.send("SOF")
        for w in on_line[:2]:
            yield from drive.send(w)
        yield from drive.repeat("HOLD", 2)
        for w in on_line[2:]:
            yield from drive.send(w)
        yield from drive.send("EOF")
        yield from drive.until("WTRM", "R_OK")
        yield from drive.repeat("WTRM", 2)
        yield from drive.until("SYNC", "X_RDY")
        yield from drive.repeat("SYNC", 2)

    run(dut, drive, transport.gen(), Sender(dut, DATA_FIS).gen(), body())
    c = drive.cycles
    expect(c, "tx.chkrdy>idle")
    expect(c, "rx.idle>chkrdy")
    expect(c, "rx.chkrdy>data")
    expect(c, "rx.data>eof")
    i = expect(c, "rx.eof>goodend")
    assert c[i].out == "R_OK"                   # the answer goes out in the deciding cycle
    assert c[i + 2].rx == "L_GoodEnd" and c[i + 2].line == "WTRM"
    i = expect(c, "rx.goodend>idle")
    assert expect(c, "tx.idle>chkrdy", after=i) == i + 1       # our frame, once the drive idles
    check_sends(c)
    assert [x.out for x in c if x.rx == "L_RcvData" and x.line == "HOLD"] == ["HOLDA", "HOLDA"]
    assert states(c, "rx") == ["L_IDLE", "L_RcvChkRdy", "L_RcvData", "L_RcvEOF", "L_GoodEnd",
                               "L_IDLE"]
    assert transport.frames() == ([(REG_D2H, 0)], [])
    assert not any(x.pulses for x in c)


@pytest.mark.parametrize("request_", ["PMREQ_P", "PMREQ_S"])
@covers("tx.chkrdy>idle", "rx.idle>pmdeny", "rx.pmdeny>idle")
def test_a_power_management_request_into_our_x_rdy_is_denied_and_the_frame_waits(request_):
    """SATA 3.x §9.6: PMREQ_P / PMREQ_S in L_IDLE -> L_PMDeny (PMNAK, ``rx_pm_denied``) for as
    long as the drive asks, here while we send X_RDY: the transmit side goes back to L_IDLE
    (the receive side is busy) and sends X_RDY again once the drive is back to SYNC."""
    dut = DUT()
    drive = TracedDrive(dut)

    def body():
        yield from drive.until("SYNC", "X_RDY")
        yield from drive.repeat(request_, 5)
        yield from drive.until("SYNC", "X_RDY")
        yield from drive.repeat("SYNC", 2)

    run(dut, drive, Sender(dut, DATA_FIS).gen(), body())
    c = drive.cycles
    expect(c, "rx.idle>pmdeny", line=request_)
    expect(c, "tx.chkrdy>idle", line=request_, sends="PMNAK")
    i = expect(c, "rx.pmdeny>idle")
    check_sends(c)
    assert [x.out for x in c if x.line == request_][1:] == ["PMNAK"] * 4
    assert c[i + 1].out == "X_RDY"           # sent in the cycle L_IDLE leaves for HL_SendChkRdy
    assert c[i + 2].tx == "HL_SendChkRdy"
    assert sum("rx_pm_denied" in x.pulses for x in c) == 1


# Receive side -----------------------------------------------------------------------------------

@pytest.mark.parametrize("other", ["SYNC", "WTRM"])
@covers("rx.idle>chkrdy", "rx.chkrdy>idle")
def test_l_rcvchkrdy_returns_to_idle_on_a_known_primitive_other_than_x_rdy_or_sof(other):
    """L_RcvChkRdy (R_RDY) waits for SOF through X_RDY, data dwords (CONT junk) and unknown
    primitives (bit errors); another known primitive ends the wait (SATA 3.x §9.6.4)."""
    dut = DUT()
    drive = TracedDrive(dut)

    def body():
        yield from drive.repeat("SYNC", 2)
        yield from drive.until("X_RDY", "R_RDY")
        yield from drive.send(0x12345678)
        yield from drive.send(0x0000FF7C)       # K28.3 and bytes of no primitive
        yield from drive.send("X_RDY")
        yield from drive.repeat(other, 3)

    run(dut, drive, body())
    c = drive.cycles
    expect(c, "rx.idle>chkrdy")
    expect(c, "rx.chkrdy>idle", line=other)
    check_sends(c)
    assert states(c, "rx") == ["L_IDLE", "L_RcvChkRdy", "L_IDLE"]
    assert [x.out for x in c if x.rx == "L_RcvChkRdy"][-4:] == ["R_RDY"] * 4


def receive(dut, drive, on_line, end="EOF", answer=True):
    """The drive's frame: X_RDY until R_RDY, SOF, the dwords ``on_line``, then ``end``; with
    ``answer``, WTRM until R_OK / R_ERR, then SYNC until the link is idle."""
    yield from drive.repeat("SYNC", 2)
    yield from drive.until("X_RDY", "R_RDY")
    yield from drive.send("SOF")
    for w in on_line:
        yield from drive.send(w)
    yield from drive.send(end)
    if answer:
        for _ in range(100):
            yield from drive.send("WTRM")
            if drive.cycles[-1].out in ("R_OK", "R_ERR"):
                break
        yield from drive.repeat("WTRM", 2)
        yield from drive.repeat("SYNC", 3)


@covers("rx.data>eof.wtrm", "rx.eof>badend", "rx.badend>idle")
def test_wtrm_inside_a_frame_ends_it_as_bad():
    """A frame whose EOF was lost: the drive's WTRM in L_RcvData -> L_RcvEOF with ``rx_bad_seq``,
    its last dword goes to the transport marked bad, and the answer is R_ERR (L_BadEnd until
    SYNC)."""
    dut = DUT()
    drive = TracedDrive(dut)
    transport = Transport(dut)

    run(dut, drive, transport.gen(),
        receive(dut, drive, frame_dwords(REG_D2H), end="WTRM", answer=True))
    c = drive.cycles
    expect(c, "rx.data>eof.wtrm")
    expect(c, "rx.eof>badend")
    expect(c, "rx.badend>idle")
    check_sends(c)
    assert states(c, "rx") == ["L_IDLE", "L_RcvChkRdy", "L_RcvData", "L_RcvEOF", "L_BadEnd",
                               "L_IDLE"]
    assert transport.frames() == ([(REG_D2H, 1)], [])
    assert "R_OK" not in [x.out for x in c]


@pytest.mark.parametrize("fault", ["crc", "verdict"])
@covers("rx.eof>badend", "rx.badend>idle")
def test_a_frame_with_a_bad_crc_or_refused_by_the_transport_gets_r_err(fault):
    """SATA 3.x §9.6.4, L_RcvEOF: R_OK only for a good CRC the transport accepted; a bad CRC
    (``rx_crc_error``) or the transport's bad verdict -> L_BadEnd: R_ERR (``rx_refused``) until
    SYNC."""
    dut = DUT()
    drive = TracedDrive(dut)
    transport = Transport(dut, good=(fault != "verdict"))
    on_line = frame_dwords(REG_D2H)
    if fault == "crc":
        on_line[2] ^= 0x00010000

    run(dut, drive, transport.gen(), receive(dut, drive, on_line))
    c = drive.cycles
    i = expect(c, "rx.eof>badend")
    assert c[i].out == "R_ERR"
    assert c[i + 1].pulses == ({"rx_crc_error", "rx_refused"} if fault == "crc" else {"rx_refused"})
    expect(c, "rx.badend>idle")
    check_sends(c)
    assert "R_OK" not in [x.out for x in c]
    frames, rest = transport.frames()
    assert len(frames) == 1 and not rest
    assert frames[0][1] == (fault == "crc")


@pytest.mark.parametrize("dwords", [0, 1])
@covers("rx.eof>badend.short", "rx.badend>idle")
def test_a_frame_too_short_to_be_a_fis_gets_r_err_without_reaching_the_transport(dwords):
    """A frame of the CRC alone, or of nothing, is not a FIS: L_RcvEOF -> L_BadEnd (R_ERR,
    ``rx_refused``) at once, and the transport sees none of it (it owes no verdict)."""
    dut = DUT()
    drive = TracedDrive(dut)
    transport = Transport(dut)

    run(dut, drive, transport.gen(), receive(dut, drive, frame_dwords([])[:dwords]))
    c = drive.cycles
    i = expect(c, "rx.eof>badend.short")
    assert c[i - 1].rx == "L_RcvData"           # decided in L_RcvEOF's first cycle
    expect(c, "rx.badend>idle")
    check_sends(c)
    assert transport.dwords == [] and transport.verdicts == []


@pytest.mark.parametrize("case", ["after SOF", "judged at its first dword", "judged at its end"])
@covers("rx.data>escape", "rx.escape>idle")
def test_sync_inside_the_drive_s_frame_escapes_it(case):
    """SATA 3.x §9.6.4, L_RcvData: the drive's SYNC abandons its frame -> L_SyncEscape with
    ``rx_escape``: SYNC out, no R_OK / R_ERR; the frame's last dword goes to the transport marked
    bad, and L_SyncEscape waits for the transport's verdict on it (none owed for a frame that
    never reached the transport) before L_IDLE."""
    dut = DUT()
    drive = TracedDrive(dut)
    transport = Transport(dut, at="last" if case == "judged at its end" else "first")
    on_line = [] if case == "after SOF" else frame_dwords(DATA_FIS)[:5]

    def body():
        yield from receive(dut, drive, on_line, end="SYNC", answer=False)
        yield from drive.repeat("SYNC", 30)

    run(dut, drive, transport.gen(), body())
    c = drive.cycles
    i = expect(c, "rx.data>escape")
    j = expect(c, "rx.escape>idle")
    check_sends(c)
    assert states(c, "rx") == ["L_IDLE", "L_RcvChkRdy", "L_RcvData", "L_SyncEscape", "L_IDLE"]
    assert not {"R_OK", "R_ERR"} & {x.out for x in c}
    assert sum("rx_escape" in x.pulses for x in c) == 1
    if case == "after SOF":
        assert j == i + 1 and transport.dwords == []
    else:
        assert transport.frames() == ([(DATA_FIS[:4], 1)], [])     # its last dword taken as a CRC
        if case == "judged at its end":
            assert j > i + 1 and transport.verdicts and j >= transport.verdicts[0]


def test_the_coverage_table_names_every_transition():
    """Each transition of ``TRANSITIONS`` is claimed by a test (and each test's ``@covers``
    fails it unless its simulation showed them)."""
    claimed = set().union(*COVERS.values())
    assert claimed == set(TRANSITIONS), sorted(set(TRANSITIONS) - claimed)


def test_a_frame_escaped_while_the_buffer_is_full_still_ends_before_the_next_one():
    """A drive that ignores our HOLD fills the buffer while the transport has stopped reading a
    Data FIS it judged at its first dword (ecpsata/core/transport.py judges Data FISes there),
    then abandons the frame (SYNC). The frame's last dword, marked bad, must reach the transport
    once it reads again (link.py: "the transport always gets a frame's end"), and the drive's next
    frame must arrive as a frame of its own and be answered.

    Leaving L_SyncEscape on the verdict alone, before the pending last dword (``last_pending``,
    which only L_RcvEOF and L_SyncEscape present) had gone, lost the frame's end: the next frame's
    dwords were delivered as its continuation (the Register D2H inside the Data FIS), no verdict
    came for it and L_RcvEOF answered R_IP for ever."""
    dut = DUT()
    drive = TracedDrive(dut)
    reading = {"on": True}
    transport = Transport(dut, reading=lambda cycle: reading["on"])
    payload = [0x00000046] + [0x5000 + i for i in range(RX_BUFFER_DWORDS + 16)]

    def body():
        yield from drive.repeat("SYNC", 2)
        yield from drive.until("X_RDY", "R_RDY")
        yield from drive.send("SOF")
        for n, w in enumerate(frame_dwords(payload)[:-1]):
            if n == 4:
                reading["on"] = False           # judged at its first dword, then not read
            yield from drive.send(w)
        yield from drive.repeat("SYNC", 20)
        reading["on"] = True
        yield from drive.repeat("SYNC", RX_BUFFER_DWORDS + 20)
        yield from receive(dut, drive, frame_dwords(REG_D2H))

    run(dut, drive, transport.gen(), body())
    c = drive.cycles
    expect(c, "rx.data>escape")
    frames, rest = transport.frames()
    assert not rest and len(frames) == 2, [(len(f), e) for f, e in frames]
    assert frames[0][1] == 1, "the escaped frame's end is not marked bad"
    assert frames[1] == (REG_D2H, 0), "the next frame did not arrive on its own"
    assert "R_OK" in [x.out for x in c if x.rx == "L_RcvEOF"], "the next frame got no answer"


def test_the_longest_frame_is_a_full_data_fis():
    from ecpsata.core.common import DATA_FIS_MAX_DWORDS
    assert FRAME_MAX_DWORDS == DATA_FIS_MAX_DWORDS + 2      # its header and its CRC


def test_the_phy_s_status_frame_is_a_register_d2h_and_its_crc():
    """The PHY's frame check tells a Register D2H by its type and length (the PHY may not import
    the core)."""
    from ecpsata.core.common import CTRL_FIS_DWORDS, FIS_REG_D2H
    from ecpsata.phy.common import STATUS_FIS_TYPE, STATUS_FRAME_DWORDS
    assert STATUS_FRAME_DWORDS == CTRL_FIS_DWORDS[FIS_REG_D2H] + 1
    assert STATUS_FIS_TYPE == FIS_REG_D2H


def test_the_phy_s_setup_frame_is_a_dma_setup_and_its_crc():
    """The PHY's frame check tells a DMA Setup's frame by its type and length (the PHY may not
    import the core): the FIS's dwords and its CRC."""
    from ecpsata.core.common import CTRL_FIS_DWORDS, FIS_DMA_SETUP
    from ecpsata.phy.common import SETUP_FIS_TYPE, SETUP_FRAME_DWORDS
    assert SETUP_FRAME_DWORDS == CTRL_FIS_DWORDS[FIS_DMA_SETUP] + 1
    assert SETUP_FIS_TYPE == FIS_DMA_SETUP


def test_the_phy_s_sdb_frame_is_a_set_device_bits_and_its_crc():
    from ecpsata.core.common import CTRL_FIS_DWORDS, FIS_SDB
    from ecpsata.phy.common import SDB_FIS_TYPE, SDB_FRAME_DWORDS
    assert SDB_FRAME_DWORDS == CTRL_FIS_DWORDS[FIS_SDB] + 1
    assert SDB_FIS_TYPE == FIS_SDB


@pytest.mark.parametrize("good", [True, False])
def test_answer_eof_is_set_only_while_an_accepted_frame_is_received(good):
    """For a PHY that answers a good EOF with R_OK itself: the level ``answer_eof`` is set once
    the transport has accepted the frame (here at its first dword) and only until the link layer
    leaves L_RcvData / L_RcvEOF; a frame the transport refuses never sets it (its EOF gets the
    link layer's R_ERR)."""
    dut = DUT(answer_eof=True)
    drive = TracedDrive(dut)
    transport = Transport(dut, good=good)
    levels = []

    @passive
    def watch():
        while True:
            levels.append(((yield dut.phy.answer_eof), (yield dut.link.rx.idle)))
            yield

    payload = [0x00000046] + list(range(1, 40))
    run(dut, drive, transport.gen(), watch(), receive(dut, drive, frame_dwords(payload)))
    assert any(level for level, _ in levels) == good
    assert not any(level for level, idle in levels if idle)
    assert levels[-1] == (0, 1)
    assert ("R_OK" if good else "R_ERR") in [x.out for x in drive.cycles]
