# SPDX-License-Identifier: BSD-2-Clause
"""OOB generator (raw TX words through the sim SerDes) and detector (synthetic rx_los patterns)."""

import pytest

from migen import *
from litex.gen import LiteXModule

from ecpsata.phy.serdes import GEN1, GEN2
from ecpsata.phy.common import *
from ecpsata.phy.oob import OOBGenerator, OOBDetector
from ecpsata.phy.sim_serdes import SimSerDes, sim_serdes_pads

from tests.support.phy_harness import run_word_sim, now_ns, line_runs

# Generator ----------------------------------------------------------------------------------------

class GenDUT(LiteXModule):
    def __init__(self, method=OOB_METHOD_SERIALIZER):
        self.pads   = pads = sim_serdes_pads()
        self.serdes = serdes = SimSerDes(pads)
        self.oob    = oob = OOBGenerator(serdes.gen, method=method)
        self.comb += [
            serdes.tx_data.eq(oob.tx_data),
            serdes.tx_idle.eq(oob.tx_idle),
        ]


def capture_oob(gen, kind, method=OOB_METHOD_SERIALIZER, ei_gaps=0):
    dut = GenDUT(method)
    words, idles, times, log = [], [], [], {}

    def control():
        yield dut.oob.ei_gaps.eq(ei_gaps)
        yield dut.serdes.gen.eq(gen)
        for _ in range(200):
            yield
        assert (yield dut.pads.gen) == gen
        assert (yield dut.serdes.tx_ready) == 1
        yield dut.oob.kind.eq(kind)
        yield dut.oob.req.eq(1)
        log["start"] = now_ns()
        while not (yield dut.oob.done):
            yield
        log["done"] = now_ns()
        yield dut.oob.req.eq(0)
        for _ in range(20):
            yield
        assert (yield dut.oob.done) == 0

    @passive
    def monitor():
        while True:
            words.append((yield dut.pads.tx))
            idles.append((yield dut.serdes.tx_idle))
            times.append(now_ns())
            yield

    run_word_sim(dut, {"sys": control(), "sata_tx": monitor()}, dut.serdes.word_ce)
    return words, idles, times, log


@pytest.mark.parametrize("gen", [GEN2, GEN1])
@pytest.mark.parametrize("kind", [OOB_COMRESET, OOB_COMWAKE])
def test_oob_generator_timing(gen, kind):
    words, idles, times, log = capture_oob(gen, kind)
    # Word clock really runs at the line rate's word period.
    period = (times[-1] - times[-101])/100
    assert period == pytest.approx(WORD_PERIOD_NS[gen], abs=0.01)

    # Trim to the sequence: first active word to the end.
    first = next(i for i, w in enumerate(words) if w != OOB_GAP_WORD)
    seq = words[first:]
    bit_ns = WORD_PERIOD_NS[gen]/20
    runs = line_runs(seq, bit_ns)
    bursts = [t for k, t in runs if k == "burst"]
    gaps   = [t for k, t in runs if k == "gap"][:-1]  # the last run is the idle line afterwards
    nominal_gap = {OOB_COMRESET: 320, OOB_COMWAKE: 320/3}[kind]
    assert len(bursts) == 6
    assert len(gaps) == 5
    for b in bursts:  # spec: 103.5..109.9 ns
        assert 103.5 <= b <= 109.9, runs
    for g in gaps:    # spec: 310.4..329.6 (COMRESET), COMWAKE detector window 35..175
        if kind == OOB_COMRESET:
            assert 310.4 <= g <= 329.6, runs
        else:
            assert abs(g - nominal_gap) < 3, runs
    # Word-level: 16/8-word bursts of the documented carrier, all-zero gaps, EI never asserted.
    active = [w != OOB_GAP_WORD for w in seq]
    assert sum(active) == 6*oob_words(OOB_BURST_UI, gen)
    assert set(w for w in seq if w) == set(OOB_BURST_WORDS[gen])
    assert not any(idles)
    # The handshake reports done at the end of the sixth gap (the generator is two words ahead of
    # the pads; done crosses to sys through a synchroniser).
    end = times[first] + 6*(106.67 + nominal_gap)
    assert end - 3*WORD_PERIOD_NS[gen] < log["done"] < end + 40


def test_oob_generator_ei_method_uses_tx_idle_for_gaps():
    words, idles, times, log = capture_oob(GEN2, OOB_COMWAKE, method=OOB_METHOD_EI)
    first = next(i for i, w in enumerate(words) if w != OOB_GAP_WORD)
    # tx_idle is sampled at the seam, one word ahead of the registered pads.
    seq, idl = words[first:first + 6*32], idles[first - 1:first - 1 + 6*32]
    # Bursts are not idle, gaps are: 16 active + 16 idle words per burst/gap pair.
    for i in range(6):
        assert not any(idl[32*i:32*i + 16])
        assert all(idl[32*i + 16:32*i + 32])
        assert all(w != 0 for w in seq[32*i:32*i + 16])

@pytest.mark.parametrize("kind", [OOB_COMRESET, OOB_COMWAKE])
def test_ei_gaps_at_run_time_only_in_comresets_long_gaps(kind):
    """ei_gaps: COMRESET's 320 ns gaps with electrical idle (longer than the DCU's ~220 ns to
    engage it), COMWAKE's 107 ns gaps all-zero words as before; the bursts unchanged."""
    words, idles, times, log = capture_oob(GEN2, kind, ei_gaps=1)
    first = next(i for i, w in enumerate(words) if w != OOB_GAP_WORD)
    gap = 48 if kind == OOB_COMRESET else 16
    period = 16 + gap
    seq, idl = words[first:first + 6*period], idles[first - 1:first - 1 + 6*period]
    for i in range(6):
        assert all(w != 0 for w in seq[period*i:period*i + 16])
        assert not any(idl[period*i:period*i + 16])
        assert all(idl[period*i + 16:period*(i + 1)]) == (kind == OOB_COMRESET)
        assert not any(idl[period*i + 16:period*(i + 1)]) == (kind == OOB_COMWAKE)
    assert not any(idles[first + 6*period + 2:])      # none after the sequence


# Detector -----------------------------------------------------------------------------------------

SYS_FREQ = 100e6


class DetDUT(LiteXModule):
    def __init__(self):
        self.rx_los = Signal(reset=1)
        self.det = OOBDetector(self.rx_los, SYS_FREQ)


def run_detector(pattern, phase_ns=0.3, blank_ns=None):
    """pattern: list of (los level, duration ns). rx_los is driven at 1 ns resolution,
    asynchronously to sys. ``blank_ns``: (start, end) of the detector's blank input (ns from the
    start of the pattern). Returns (cominit pulses, comwake pulses, active levels seen, dut)."""
    dut = DetDUT()
    res = dict(cominit=0, comwake=0, cominit_active=0, comwake_active=0, end_active=None)
    steps = []
    t = phase_ns
    for level, dur in pattern:
        steps.append((level, int(round(t))))
        t += dur
    t_end = int(round(t))

    def line():
        i = 0
        for level, t in steps:
            while i < t:
                i += 1
                yield
            yield dut.rx_los.eq(level)
        while i < t_end:
            i += 1
            yield

    def blank():
        if blank_ns is None:
            return
        start, end = blank_ns
        for _ in range(int(start//10)):   # sys cycles of 10 ns
            yield
        yield dut.det.blank.eq(1)
        for _ in range(int((end - start)//10)):
            yield
        yield dut.det.blank.eq(0)

    @passive
    def watch():
        while True:
            res["cominit"] += (yield dut.det.cominit)
            res["comwake"] += (yield dut.det.comwake)
            res["cominit_active"] |= (yield dut.det.cominit_active)
            res["comwake_active"] |= (yield dut.det.comwake_active)
            res["end_active"] = ((yield dut.det.cominit_active), (yield dut.det.comwake_active))
            yield

    # Time unit 0.5 ns: sys (10 ns) = 20, line (1 ns) = 2.
    sys_procs = [watch(), blank()]
    run_simulation(dut, {"line": line(), "sys": sys_procs}, clocks={"sys": 20, "line": 2})
    return res


def oob_pattern(gap_ns, burst_ns=106.7, bursts=6, tail_ns=800):
    p = [(1, 500)]
    for i in range(bursts):
        p.append((0, burst_ns))
        p.append((1, gap_ns if i < bursts - 1 else tail_ns))
    return p


@pytest.mark.parametrize("gap,expect", [
    (106.7, "comwake"), (103.3, "comwake"), (110.0, "comwake"), (60, "comwake"), (150, "comwake"),
    (320.0, "cominit"), (306.0, "cominit"), (334.0, "cominit"), (200, "cominit"), (500, "cominit"),
    (30.0, None), (177.3, None), (172.7, None), (527.0, None), (600.0, None),
])
def test_oob_detector_gap_classes(gap, expect):
    res = run_detector(oob_pattern(gap))
    assert res["cominit"] == (1 if expect == "cominit" else 0), res
    assert res["comwake"] == (1 if expect == "comwake" else 0), res
    # After 800 ns of idle line the sequence is over.
    assert res["end_active"] == (0, 0)


@pytest.mark.parametrize("phase", [0, 3, 5, 8])
def test_oob_detector_sampling_phase(phase):
    # Must-respond and must-not points hold at any phase of rx_los against the sys clock.
    assert run_detector(oob_pattern(320), phase)["cominit"] == 1
    assert run_detector(oob_pattern(106.7), phase)["comwake"] == 1
    assert run_detector(oob_pattern(177.3), phase)["comwake"] == 0
    assert run_detector(oob_pattern(172.7), phase)["cominit"] == 0


def test_oob_detector_needs_four_gaps():
    assert run_detector(oob_pattern(320, bursts=4))["cominit"] == 0  # 3 gaps
    assert run_detector(oob_pattern(320, bursts=5))["cominit"] == 1  # 4 gaps


@pytest.mark.parametrize("burst", [20, 35])
def test_oob_detector_rejects_short_bursts(burst):
    # Spikes shorter than OOB_BURST_MIN_NS are noise, not bursts.
    res = run_detector(oob_pattern(320, burst_ns=burst))
    assert res["cominit"] == 0 and res["cominit_active"] == 0


@pytest.mark.parametrize("burst", [45, 175, 200, 300, 400, 500])
@pytest.mark.parametrize("gap,expect", [(320.0, "cominit"), (106.7, "comwake")])
def test_oob_detector_accepts_long_bursts(burst, gap, expect):
    # OOB is classified by the gap; a device's bursts may be far longer than the nominal 106.7 ns
    # (squelch release, bursts of ALIGNs). Detection happens once, the sequence stays active
    # through the long bursts and ends on the idle line.
    res = run_detector(oob_pattern(gap, burst_ns=burst))
    assert res["cominit"] == (1 if expect == "cominit" else 0), res
    assert res["comwake"] == (1 if expect == "comwake" else 0), res
    assert res[expect + "_active"] == 1
    assert res["end_active"] == (0, 0)


@pytest.mark.parametrize("gap", [30.0, 177.3, 527.0])
def test_oob_detector_long_bursts_still_classified_by_gap(gap):
    res = run_detector(oob_pattern(gap, burst_ns=400))
    assert res["cominit"] == 0 and res["comwake"] == 0, res


def test_oob_detector_continuous_signal_is_not_a_burst():
    # Activity longer than OOB_SIGNAL_NS (ALIGN, data) breaks a sequence: three COMINIT gaps, a
    # long signal, then three more gaps make no COMINIT.
    p = [(1, 500)]
    for i in range(3):
        p += [(0, 106.7), (1, 320)]
    p += [(0, OOB_SIGNAL_NS + 200), (1, 320)]
    for i in range(3):
        p += [(0, 106.7), (1, 320 if i < 2 else 800)]
    res = run_detector(p)
    assert res["cominit"] == 0 and res["cominit_active"] == 0, res


def test_oob_detector_comwake_active_ends_on_continuous_signal():
    # Device COMWAKE followed by ALIGN (continuous activity): comwake_active must drop.
    p = oob_pattern(106.7, tail_ns=106.7)[:-1] + [(1, 106.7), (0, OOB_SIGNAL_NS + 200)]
    res = run_detector(p)
    assert res["comwake"] == 1
    assert res["end_active"] == (0, 0)


def test_oob_detector_ignores_glitches():
    # A 5 ns rx_los glitch inside each burst does not split it.
    p = [(1, 500)]
    for i in range(6):
        p += [(0, 50), (1, 5), (0, 51.7), (1, 320 if i < 5 else 800)]
    assert run_detector(p)["cominit"] == 1


# Blanking (our own OOB echo, doc/ecp5-serdes.md: near-end crosstalk) ---------------

@pytest.mark.parametrize("blank_until,expect", [
    (None, 1),
    (600, 1),    # over burst 1 (500..607 ns): gaps 2-5 remain, four of them
    (1100, 0),   # over bursts 1 and 2: three gaps remain
    (1000, 0),   # ends after burst 2 started: that burst does not count, three gaps remain
])
def test_oob_detector_blank_counts_only_later_bursts(blank_until, expect):
    """While ``blank`` is high nothing is counted and no sequence is active; afterwards a gap
    counts only if the burst before it ended after the blank, so an echo of our own bursts (all
    blanked) cannot lend the drive's sequence a gap."""
    res = run_detector(oob_pattern(320), blank_ns=None if blank_until is None else (0, blank_until))
    assert res["cominit"] == expect, res
    assert res["end_active"] == (0, 0)


@pytest.mark.parametrize("blank", [False, True])
def test_oob_detector_blank_clears_a_detection(blank):
    # A COMINIT (the echo of our COMRESET, say) followed by 300 ns of quiet: still active, unless
    # blank came in the meantime, which forgets the sequence.
    last_burst_end = 500 + 5*(106.7 + 320) + 106.7
    res = run_detector(oob_pattern(320, tail_ns=300),
                       blank_ns=(last_burst_end + 60, last_burst_end + 160) if blank else None)
    assert res["cominit"] == 1
    assert res["end_active"] == ((0, 0) if blank else (1, 0))
