# SPDX-License-Identifier: BSD-2-Clause
"""Test helpers for the SATA PHY: a Migen simulator that can run the SimSerDes word clocks.

Migen's simulator only runs clock domains it generates itself, while ``SimSerDes`` makes ``sata_tx``
/ ``sata_rx`` from the free-running ``sata_word`` clock (divided by 2 at Gen1). ``WordClockSimulator``
generates ``sys`` and ``sata_word`` and fires the derived domains on the ``sata_word`` rising edges
where the SerDes' ``word_ce`` is high (sampled before the edge, as the hardware toggle would).

Time unit: 1/3 ns, so sys (100 MHz) = 30 and the Gen2 word clock (150 MHz) = 20.

Waveforms on demand: ``ECPSATA_VCD=1`` (tests/support/waves.py).
"""


from migen import *
from migen.sim.core import Simulator
from migen.fhdl.structure import _Assign, _Slice, ClockSignal, ResetSignal
from migen.fhdl.tools import group_by_targets, list_targets, list_signals
from migen.fhdl.visit import NodeVisitor
from tests.support import migen_compile
from tests.support.migen_speed import widths_cached
from tests.support.waves import vcd_path

SYS_PERIOD  = 30   # 10 ns
WORD_PERIOD = 20   # 6.667 ns (Gen2 word)
TIME_UNIT_NS = 1/3


_current = None


def now_ns():
    """Simulated time of the running WordClockSimulator, in ns."""
    return _current.now*TIME_UNIT_NS


def line_runs(words, bit_ns, min_quiet_ns=10):
    """Splits a raw word sequence (bit 0 first) into activity / quiet runs at bit resolution, as a
    squelch would see them: returns [("burst" | "gap", ns), ...]. Quiet runs shorter than
    ``min_quiet_ns`` belong to a burst (like the virtual drive's detector)."""
    bits = []
    for w in words:
        bits += [(w >> i) & 1 for i in range(20)]
    # Times of transitions.
    edges = [i for i in range(1, len(bits)) if bits[i] != bits[i - 1]]
    runs = []
    if not edges:
        return [("gap", len(bits)*bit_ns)]
    if edges[0]*bit_ns >= min_quiet_ns:
        runs.append(["gap", edges[0]*bit_ns])
    start = edges[0]
    for a, b in zip(edges, edges[1:] + [len(bits)]):
        quiet = (b - a)*bit_ns
        if quiet >= min_quiet_ns or b == len(bits):
            runs.append(["burst", (a - start)*bit_ns])
            runs.append(["gap", quiet])
            start = b
    return [tuple(r) for r in runs if not (r[0] == "burst" and r[1] == 0)]


class _Inputs(NodeVisitor):
    """Signals a statement reads (including index expressions on the left-hand side and the
    clock/reset signals behind ClockSignal / ResetSignal)."""
    def __init__(self, domains):
        self.domains = domains
        self.out = set()

    def visit_Signal(self, node):
        self.out.add(node)

    def visit_ClockSignal(self, node):
        self.out.add(self.domains[node.cd].clk)

    def visit_ResetSignal(self, node):
        rst = self.domains[node.cd].rst
        if rst is not None:
            self.out.add(rst)

    def visit_Assign(self, node):
        self.visit(node.r)
        lhs = node.l
        while isinstance(lhs, _Slice):
            lhs = lhs.value
        if not isinstance(lhs, (Signal, Cat)):
            self.out |= list_signals(lhs)


class WordClockSimulator(Simulator):
    """Migen simulator with the SimSerDes derived word clocks and event-driven combinational
    propagation (only the statement groups reading a changed signal run again: the stock
    simulator re-runs the whole design's comb logic several times per clock edge)."""
    def __init__(self, dut, generators, word_ce, derived=("sata_tx", "sata_rx"),
                 sys_period=SYS_PERIOD, word_period=WORD_PERIOD, vcd_name=None):
        clocks = {"sys": sys_period, "sata_word": word_period}
        Simulator.__init__(self, dut, generators, clocks=clocks, vcd_name=vcd_name)
        # (base domain, enable, domains fired on the base's edges where the enable is high)
        self.ces = [("sata_word", word_ce, list(derived))]
        self.now = 0  # time units
        self._build_comb_groups()

    def _build_comb_groups(self):
        comb = self.fragment.comb
        n_defaults = len(list_targets(comb))  # Simulator prepended "target = reset" statements
        original = comb[n_defaults:]
        self.groups = []
        self.sens = {}
        domains = self.fragment.clock_domains
        for targets, stmts in group_by_targets(original):
            body = [t.eq(t.reset) for t in sorted(targets, key=lambda t: t.duid)] + stmts
            gi = len(self.groups)
            self.groups.append(body)
            lister = _Inputs(domains)
            lister.visit(stmts)
            for sig in lister.out:
                self.sens.setdefault(sig.duid, []).append(gi)
        # each group and each domain's synchronous statements as a Python function of their own
        # (tests/support/migen_compile.py), or Migen's evaluator with ECPSATA_MIGEN_INTERPRET=1
        ev = self.evaluator
        sync = sorted(self.fragment.sync)
        lists = self.groups + [self.fragment.sync[cd] for cd in sync]
        if migen_compile.enabled():
            fns = migen_compile.compile_lists(ev, domains, lists)
        else:
            fns = [lambda s=s: ev.execute(s) for s in lists]
        self.group_fns = fns[:len(self.groups)]
        self.sync_fns = dict(zip(sync, fns[len(self.groups):]))

    def _commit_and_comb_propagate(self):
        ev = self.evaluator
        modified = ev.commit_set()
        all_modified = set(modified)
        while modified:
            todo = set()
            for duid in modified:
                todo.update(self.sens.get(duid, ()))
            fns = self.group_fns
            for gi in sorted(todo):
                fns[gi]()
            modified = ev.commit_set()
            all_modified |= modified
        if self._duid2sig is not None:
            for duid in all_modified:
                self.vcd.set(self._duid2sig[duid], ev.signal_values[duid])

    def run(self):
        global _current
        _current = self
        self.evaluator.execute(self.fragment.comb)
        self._commit_and_comb_propagate()
        while True:
            dt, rising, falling = self.time.tick()
            self.now += dt
            self.vcd.delay(dt)
            if not rising:
                continue  # nothing in the design looks at clock levels
            rising = sorted(rising)
            rising += [d for base, ce, domains in self.ces
                       if base in rising and self.evaluator.eval(ce) for d in domains]
            for cd in rising:
                if cd in self.sync_fns:
                    self.sync_fns[cd]()
                if cd in self.generators:
                    self._process_generators(cd)
            self._commit_and_comb_propagate()
            if not self._continue_simulation():
                break


def run_word_sim(dut, generators, word_ce, name=None, **kwargs):
    vcd = vcd_path(name)
    sim = WordClockSimulator(dut, generators, word_ce, vcd_name=vcd, **kwargs)
    with sim, widths_cached():
        sim.run()
    return sim
