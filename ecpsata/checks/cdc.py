# SPDX-License-Identifier: BSD-2-Clause
"""Clock-domain crossings in a synthesised ECP5 netlist: every path from a flop in one clock domain
to a flop in another must end in a recognised synchroniser or be declared quasi-static.

    .venv/bin/python scripts/cdc.py ecpix5 [--netlist FILE] [--json OUT]      (make cdc BOARD=...)

The command also runs the reset check (ecpsata/checks/resets.py) on the same netlist.

Method. The input is the netlist that goes into the bitstream, Yosys ``synth_ecp5``'s JSON (top
module, flattened), not the Migen design: what synthesis merged, duplicated or re-mapped is what is
checked, and a synchroniser is recognised by its structure there (a name only tells its kind).
Cells are sequential (``TRELLIS_FF``; the ports of ``DP16KD`` / ``PDPW16KD`` block RAM; the write
port of ``TRELLIS_DPR16X4`` distributed RAM; ``IDDRX1F`` / ``ODDRX1F``; the DCU's fabric data
ports) or combinational (LUT4, CCU2C, PFUMX, L6MUX21, DELAYG, an unregistered MULT18X18D); a cell
type these tables do not know stops the check, so that no crossing is missed silently. A flop's
domain is its clock net, named from the netlist's net names (the one ending in ``_clk``, without
it: ``sys_clk`` is ``sys``). Behind every sequential input pin (data, enable, synchronous or
asynchronous reset, RAM address / data / enable) the combinational cone is walked back to its
sources: sequential outputs (in their clock's domain), a RAM's contents (in its write port's
domain: a LUT RAM reads combinationally, so its output carries the written data into the reader's
domain; a block RAM port samples the contents on its own clock), top-level inputs ("pad") and the
hard IP's status outputs (DCUA loss of lock and signal, SCI read data, PLL lock: "async"). A source
in another domain than the pin's is a crossing, classified as:

- a synchroniser: the destination flop's data input is the source's output with no logic between
  (a buffer or an inverter allowed: no glitch), and every load of its output is the data input of
  a flop on its own clock (the second stage). Named by the source: a gray-coded register (the
  pointers of Migen's ``AsyncFIFO`` and of ``ecpsata/phy/tx_encoder.py``'s TX FIFO), the toggle
  of a ``PulseSynchronizer``, the buffer of a ``BusSynchronizer`` or ``BlindTransfer``; otherwise
  ``MultiReg`` (its first stage is Migen's ``multiregimplN_regs0``) or a two-flop synchroniser;
- a reset synchroniser: the pin is the asynchronous set of a chain of asynchronously preset flops
  on one clock and one reset net, the first fed a constant (``AsyncResetSynchronizer``, lowered by
  LiteX on ECP5 to two ``FD1S3BX``, which Yosys maps to such flops). Its input may be logic: only
  its release is synchronised, and that is what the chain does;
- async FIFO storage: a RAM written in domain A and read in domain B whose read address comes only
  from B, and whose reader and writer are each gated, within two flops, by the other side's
  pointer through a gray-code synchroniser (Migen's ``AsyncFIFO``; our TX FIFO);
- an I/O capture register: a pad sampled by an ``IDDRX1F`` (a source-synchronous input: the I/O
  timing constraints cover it);
- declared: matches an entry of ``ecpsata/checks/cdc_declared.py`` (source signal, destination
  domain and signal, reason);
- undeclared: anything else; the check fails. Pads and hard-IP status outputs are judged like any
  other source: through a synchroniser or a declaration, never straight into logic.

The hard IP's asynchronous inputs (DCUA control and SCI pins, the PLL's reset) are listed with the
domains that drive them, not judged. The domains are compared with the clocks the build constrains
(the LPF beside the netlist) and those nextpnr reports in ``build.log``, and the pairs of domains
found here with the pairs nextpnr timed paths across.
"""

import argparse
import glob
import json
import os
import re
import sys
from collections import defaultdict

from ecpsata.checks.cdc_declared import DECLARED

COMB = {"LUT4", "LUT2", "CCU2C", "PFUMX", "L6MUX21", "DELAYG", "DELAYF", "INV", "TRELLIS_COMB"}
IGNORED = {"$scopeinfo", "VHI", "VLO", "GSR", "SGSR", "PUR", "EXTREFB"}
# Block RAM ports: (name, clock pin, input pin prefixes, data out prefix, write enable: a pin,
# None (read only) or "ALWAYS" (its enable is its write enable)).
BRAM = {
    "DP16KD": (("A", "CLKA", ("ADA", "DIA", "CEA", "OCEA", "WEA", "CSA", "RSTA"), "DOA", "WEA"),
               ("B", "CLKB", ("ADB", "DIB", "CEB", "OCEB", "WEB", "CSB", "RSTB"), "DOB", "WEB")),
    "PDPW16KD": (("W", "CLKW", ("ADW", "DI", "BE", "CEW", "CSW"), None, "ALWAYS"),
                 ("R", "CLKR", ("ADR", "CER", "OCER", "CSR", "RST"), "DO", None)),
}
IO_REGS = {"IDDRX1F": ("SCLK", ("D", "RST"), ("Q0", "Q1")), "ODDRX1F": ("SCLK", ("D0", "D1", "RST"), ())}
CLOCK_PINS = {"DCUA": re.compile(r"^(CH\d_FF_(TX|RX)_(PCLK|H_CLK|F_CLK)|CH\d_FF_(TXI|RXI|EBRD)_CLK|"
                                 r"D_REFCLKI|CH\d_RX_REFCLK|D_SYNC_PULSE2ND|CH\d_HD(IN|OUT)[PN])$"),
              "EHXPLLL": re.compile(r"^(CLKI|CLKFB|CLKO[PS]\d?|CLKINTFB)$")}
DCU_DATA = re.compile(r"^(CH\d)_FF_(RX|TX)_D_\d+$")
SYNC_NAMES = (("PulseSynchronizer", r"(^|_)toggle_i$"), ("BusSynchronizer", r"(^|_)ibuffer$"),
              ("BlindTransfer", r"(^|_)bxfer_data$"), ("MultiReg (gray pointer)", r"gray"))
MULTIREG = re.compile(r"(^|_)regs0$")   # Migen MultiReg first stage (multiregimplN_regs0)
# Names Yosys makes up from a cell and its pin (autoname): the last choice for a bit's name.
AUTONAME = re.compile(r"(^|_)(LUT4|CCU2C|PFUMX|L6MUX21|TRELLIS_[A-Z0-9]+|DP16KD|DCUA|EHXPLLL|"
                      r"MULT18X18D|IDDRX1F|ODDRX1F|DELAYG)(_|$)")
SYNCHRONISED = ("MultiReg", "MultiReg (gray pointer)", "PulseSynchronizer", "BusSynchronizer",
                "BlindTransfer", "two-flop synchroniser", "reset synchroniser", "async FIFO storage",
                "I/O capture register")
GATING_FLOPS = 2      # flops between a FIFO RAM's address or enable and the other side's pointer


class Elem:
    """A sequential element: a flop, one port of a RAM, an I/O register, a DCU data port. `pins`:
    [(role, bit)], role D (data), CE, SR (synchronous reset), AR (asynchronous), RAM."""
    def __init__(self, kind, cell, clock, pins=(), outs=(), name=None, preset=False):
        self.kind, self.cell, self.clock, self.pins, self.outs = kind, cell, clock, list(pins), list(outs)
        self.name, self.preset, self.read_addr = name, preset, []


def _bits(cell, pin):
    return [b for b in cell["connections"].get(pin, []) if isinstance(b, int)]


def _pins(cell, prefixes):
    return [b for pin in sorted(cell["connections"])
            if any(re.fullmatch(re.escape(p) + r"\d*", pin) for p in prefixes) for b in _bits(cell, pin)]


def memory_name(cell_name):
    """The Migen memory a RAM cell implements (Yosys names its slices NAME.i.j)."""
    return re.sub(r"(\.\d+)+$", "", cell_name)


def signal(name):
    """A bit's name without its index."""
    return re.sub(r"\[\d+\]$", "", name)


class Netlist:
    """The top module of a synth_ecp5 JSON netlist as sources, combinational arcs and sequential
    elements. Bits are the netlist's net numbers (a RAM's contents: a tuple)."""

    def __init__(self, data, top=None):
        mods = data["modules"]
        if top is None:
            tops = [n for n, m in mods.items() if int(str(m.get("attributes", {}).get("top", "0")), 2)]
            if len(tops) != 1:
                raise ValueError(f"no single top module in the netlist ({len(tops)} marked top)")
            top = tops[0]
        self.top, mod = top, mods[top]
        self.cells = mod["cells"]
        self.names, self.by_name = defaultdict(list), {}       # bit -> ["name" / "name[i]"]
        for name, net in mod["netnames"].items():
            if not net.get("hide_name"):
                self.by_name[name] = net["bits"]
                for i, b in enumerate(net["bits"]):
                    if isinstance(b, int):
                        self.names[b].append(name if len(net["bits"]) == 1 else f"{name}[{i}]")
        self.ins = {}                      # bit -> the combinational inputs it depends on
        self.leaf = defaultdict(list)      # bit -> sources: ("seq" | "mem", Elem), ("pad" | "async", name)
        self.loads = defaultdict(list)     # bit -> [(cell, pin)]
        self.elems, self.async_sinks = [], []
        unknown = set()
        for cname, cell in mod["cells"].items():
            for pin, bits in cell["connections"].items():
                if cell["port_directions"].get(pin) in ("input", "inout"):
                    for b in bits:
                        if isinstance(b, int):
                            self.loads[b].append((cname, pin))
            if not self._cell(cname, cell):
                unknown.add(cell["type"])
        if unknown:
            raise ValueError(f"cell types the CDC check does not model: {', '.join(sorted(unknown))}")
        self.clocks = {e.clock for e in self.elems if e.clock is not None}
        for p in mod["ports"].values():
            for b in p["bits"]:
                if p["direction"] != "output" and isinstance(b, int) and b not in self.ins \
                        and b not in self.leaf:
                    self.leaf[b].append(("clock" if b in self.clocks else "pad", self.bitname(b)))
        self._memo, self._interned = {}, {}

    def _cell(self, cname, cell):
        t, conn, dirs = cell["type"], cell["connections"], cell["port_directions"]
        p = {k: str(v).strip() for k, v in cell.get("parameters", {}).items()}
        clk = lambda pin: (_bits(cell, pin) or [None])[0]
        if t in IGNORED:
            return True
        registered = any(_bits(cell, c) for c in conn if c.startswith("CLK"))
        if t in COMB or (t in ("MULT18X18D", "ALU54B") and not registered):
            ins = tuple(b for pin, d in dirs.items() if d == "input" for b in _bits(cell, pin))
            self.ins.update({b: ins for pin, d in dirs.items() if d == "output" for b in _bits(cell, pin)})
        elif t == "TRELLIS_FF":
            pins = [("D", b) for b in _bits(cell, "DI") + _bits(cell, "M")]
            if p.get("CEMUX", "CE") in ("CE", "INV"):
                pins += [("CE", b) for b in _bits(cell, "CE")]
            asynchronous = p.get("SRMODE", "LSR_OVER_CE") == "ASYNC"
            if p.get("LSRMUX", "LSR") in ("LSR", "INV"):
                pins += [("AR" if asynchronous else "SR", b) for b in _bits(cell, "LSR")]
            self._add(Elem("ff", cname, clk("CLK"), pins, _bits(cell, "Q"),
                           preset=asynchronous and p.get("REGSET") == "SET"))
        elif t in BRAM:
            ports, writers = [], []
            for port, cpin, inputs, outp, we in BRAM[t]:
                e = Elem("bram", cname, clk(cpin), [("RAM", b) for b in _pins(cell, inputs)],
                         _pins(cell, (outp,)) if outp else [], name=f"{memory_name(cname)} port {port}")
                if e.clock is None:
                    continue
                e.read_addr = [b for _, b in e.pins]
                self._add(e)
                ports.append(e)
                if we == "ALWAYS" or (we and conn.get(we, ["0"])[0] != "0"):
                    writers.append(e)
            for e in ports:            # a read port samples what the other ports wrote on its clock
                for w in writers:
                    if w is not e and e.outs:
                        self.leaf[("contents", w.name)] = [("mem", w)]
                        e.pins.append(("RAM", ("contents", w.name)))
        elif t == "TRELLIS_DPR16X4":
            e = Elem("lutram", cname, clk("WCK"), [("RAM", b) for b in _pins(cell, ("WAD", "DI", "WRE"))],
                     name=f"{memory_name(cname)} write port")
            e.read_addr = _pins(cell, ("RAD",))
            self._add(e)
            for b in _bits(cell, "DO"):          # read combinationally: address and contents
                self.ins[b] = tuple(e.read_addr)
                self.leaf[b].append(("mem", e))
        elif t in IO_REGS:
            cpin, ins, outs = IO_REGS[t]
            self._add(Elem("ioreg", cname, clk(cpin), [("D", b) for b in _pins(cell, ins)],
                           [b for o in outs for b in _bits(cell, o)], name=cname))
        elif t in CLOCK_PINS:
            for ch in sorted({m.group(1) for c in conn for m in [DCU_DATA.match(c)] if m}):
                rx, tx = _pins(cell, (f"{ch}_FF_RX_D_",)), _pins(cell, (f"{ch}_FF_TX_D_",))
                self._add(Elem("dcu", cname, clk(f"{ch}_FF_RXI_CLK"), outs=rx, name=f"{cname} {ch} RX data"))
                self._add(Elem("dcu", cname, clk(f"{ch}_FF_TXI_CLK"), [("D", x) for x in tx],
                               name=f"{cname} {ch} TX data"))
            for pin, d in dirs.items():
                if not CLOCK_PINS[t].match(pin) and not DCU_DATA.match(pin):
                    name = cname + "." + re.sub(r"(?<=[A-Z])(\d+)$", r"[\1]", pin)   # D_SCIADDR[3]
                    for b in _bits(cell, pin):
                        if d == "output":
                            self.leaf[b].append(("async", name))
                        else:
                            self.async_sinks.append((name, b))
        elif t == "TRELLIS_IO":
            for b in _bits(cell, "O"):
                self.leaf[b].append(("pad", self.bitname((_bits(cell, "B") or [None])[0])))
        else:
            return False
        return True

    def _add(self, e):
        self.elems.append(e)
        if e.clock is not None:      # a port on a constant clock never changes
            for b in e.outs:
                self.leaf[b].append(("seq", e))

    # -- names ------------------------------------------------------------------------------------
    def bitname(self, b):
        names = self.names.get(b)
        if not names:
            return f"${b}"
        return min(names, key=lambda n: (bool(AUTONAME.search(n)), n.count("."), len(n), n))

    def elem_name(self, e):
        return e.name or (self.bitname(e.outs[0]) if e.outs else e.cell)

    def source_name(self, src):
        kind, x = src
        return self.elem_name(x) if kind == "seq" else memory_name(x.cell) if kind == "mem" else x

    def aliases(self, src):
        """Every name of a source (the nets a flop's output carries)."""
        kind, x = src
        return list(self.names.get(x.outs[0], [])) if kind == "seq" and x.outs else [self.source_name(src)]

    # -- domains ----------------------------------------------------------------------------------
    @staticmethod
    def src_domain(src):
        return src[1].clock if src[0] in ("seq", "mem") else src[0]

    def doms(self, bit):
        """The domains (clock nets, or 'pad' / 'async' / 'clock') of the sources behind `bit`."""
        memo = self._memo
        active, stack = set(), [bit]
        while stack:
            b = stack[-1]
            if b in memo:
                stack.pop()
                continue
            ins = self.ins.get(b, ())
            if b not in active:
                active.add(b)
                todo = [i for i in ins if i not in memo and i not in active]
                if todo:
                    stack.extend(todo)
                    continue
            s = {self.src_domain(src) for src in self.leaf.get(b, ())}
            for i in ins:
                s |= memo.get(i, frozenset())     # an input still active closes a loop: nothing more
            s = frozenset(s)
            memo[b] = self._interned.setdefault(s, s)
            active.discard(b)
            stack.pop()
        return memo[bit]

    def foreign(self, bit, own):
        """The sources behind `bit` in another domain than `own`."""
        out, seen, stack = [], set(), [bit]
        while stack:
            b = stack.pop()
            if b in seen or self.doms(b) <= {own}:
                continue
            seen.add(b)
            out += [s for s in self.leaf.get(b, ()) if self.src_domain(s) != own]
            stack.extend(self.ins.get(b, ()))
        return out

    def single_source(self, bit, limit=8):
        """The one source behind `bit` when every cell on the way has a single input (a buffer or
        an inverter), else None."""
        for _ in range(limit):
            ins, srcs = set(self.ins.get(bit, ())), self.leaf.get(bit, ())
            if srcs:
                return srcs[0] if len(srcs) == 1 and not ins else None
            if len(ins) != 1:
                return None
            bit = ins.pop()
        return None


def domain_names(nl):
    """{clock net: (label, [its names])}; the label is its name ending in ``_clk`` (the shortest,
    top-level) without the suffix."""
    out, used = {}, set()
    for b in sorted(nl.clocks, key=str):
        names = sorted(nl.names.get(b, []), key=lambda n: (n.count("."), len(n), n))
        clk = [n for n in names if n.endswith("_clk") and "." not in n]
        label = clk[0][:-4] if clk else (names[0] if names else f"${b}")
        while label in used:
            label += "'"
        used.add(label)
        out[b] = (label, names)
    return out


# -- analysis -------------------------------------------------------------------------------------
def _first_stages(nl):
    """{flop: its loads} for the flops whose every load is the data input of a flop on the same
    clock (what a synchroniser's first stage looks like, whatever feeds it)."""
    flops = {e.cell: e for e in nl.elems if e.kind == "ff"}
    out = {}
    for e in flops.values():
        loads = nl.loads.get(e.outs[0], []) if e.outs else []
        nxt = [flops.get(c) for c, _ in loads]
        if loads and all(n is not None and pin == "DI" and n.clock == e.clock
                         for n, (_, pin) in zip(nxt, loads)):
            out[e] = nxt
    return out


def _reset_chains(nl):
    """{stage: last stage} for the asynchronously preset flops chained into a reset synchroniser
    (the first fed a constant, each next fed by the one before, one clock, one reset net)."""
    groups = defaultdict(list)
    for e in nl.elems:
        if e.kind == "ff" and e.preset:
            groups[(e.clock, tuple(b for r, b in e.pins if r == "AR"))].append(e)
    out = {}
    for members in groups.values():
        qs = {e.outs[0]: e for e in members if e.outs}
        feeds = {qs[b]: e for e in members for r, b in e.pins if r == "D" and b in qs}
        for first in [e for e in members if not any(r == "D" for r, _ in e.pins)]:
            chain = [first]
            while chain[-1] in feeds and feeds[chain[-1]] not in chain:
                chain.append(feeds[chain[-1]])
            if len(chain) >= 2:
                out.update({e: chain[-1] for e in chain})
    return out


def _gated(nl, bits, own, other, gray_out, limit=50000):
    """True when, within GATING_FLOPS flops of domain `own` behind `bits`, a gray-code
    synchroniser brings a pointer from domain `other`."""
    frontier, seen = list(bits), set()
    for _ in range(GATING_FLOPS + 1):
        nxt = []
        while frontier and len(seen) < limit:
            b = frontier.pop()
            if b in seen:
                continue
            seen.add(b)
            if gray_out.get(b) == (other, own):
                return True
            frontier.extend(nl.ins.get(b, ()))
            nxt += [x for kind, e in nl.leaf.get(b, ()) if kind == "seq" and e.kind == "ff" and e.clock == own
                    for r, x in e.pins if r in ("D", "CE", "SR")]
        frontier = nxt
    return False


def analyse(nl, declared=DECLARED):
    """Every crossing of the netlist `nl`, classified: {"top", "domains", "crossings",
    "async_sinks"}; a crossing is one source bit to one sequential input pin."""
    names = domain_names(nl)
    label = lambda d: str(names[d][0] if d in names else d)
    firsts, resets = _first_stages(nl), _reset_chains(nl)
    gray_out = {}            # second stages of gray-code synchronisers: {their output: (from, to)}
    for e, nxt in firsts.items():
        d = [b for r, b in e.pins if r == "D"]
        src = nl.single_source(d[0]) if len(d) == 1 else None
        if src and src[0] == "seq" and src[1].clock != e.clock and any("gray" in n for n in nl.aliases(src)):
            gray_out.update({q: (src[1].clock, e.clock) for n in nxt for q in n.outs})
    fifo_memo = {}

    def async_fifo(writer, b):
        if (writer.cell, b) not in fifo_memo:
            a = writer.clock
            raddr = writer.read_addr if writer.kind == "lutram" else \
                [x for e in nl.elems if e.cell == writer.cell and e.clock == b for x in e.read_addr]
            fifo_memo[(writer.cell, b)] = (bool(raddr) and all(nl.doms(x) <= {b} for x in raddr)
                                           and _gated(nl, raddr, b, a, gray_out)
                                           and _gated(nl, [x for _, x in writer.pins], a, b, gray_out))
        return fifo_memo[(writer.cell, b)]

    crossings = []
    for e in nl.elems:
        own = e.clock
        if own is None:
            continue
        for role, bit in e.pins:
            if nl.doms(bit) <= {own}:
                continue
            for src in nl.foreign(bit, own):
                kind, reason, note = None, None, None
                direct = nl.single_source(bit) == src
                src_name, dst_name = nl.source_name(src), nl.elem_name(e)
                if role == "AR" and e in resets:
                    kind, dst_name = "reset synchroniser", nl.elem_name(resets[e])
                elif src[0] == "mem" and async_fifo(src[1], own):
                    kind = "async FIFO storage"
                elif role == "D" and direct and e in firsts:
                    for k, pattern in SYNC_NAMES:
                        named = [n for n in nl.aliases(src) if re.search(pattern, signal(n))]
                        if src[0] == "seq" and named:   # the name that says what it is
                            kind, src_name = k, named[0]
                            break
                    else:
                        kind = "MultiReg" if any(MULTIREG.search(signal(n)) for n in nl.names[e.outs[0]]) \
                            else "two-flop synchroniser"
                elif src[0] == "pad" and e.kind == "ioreg" and direct:
                    kind = "I/O capture register"
                elif role == "D" and e in firsts:
                    note = "a synchroniser fed through logic: a glitch of that logic can be captured"
                if kind is None:
                    dst_names = (nl.names.get(e.outs[0], []) if e.outs else []) + [dst_name]
                    d = next((d for d in declared
                              if d.matches(nl.aliases(src) + [src_name], label(own), dst_names)), None)
                    if d is not None:
                        kind, reason, note = "declared", d.reason, None
                crossings.append(dict(kind=kind or "undeclared", source=src_name,
                                      source_domain=label(nl.src_domain(src)), dest=dst_name,
                                      dest_domain=label(own), pin=role, reason=reason, note=note))
    sinks = defaultdict(set)
    for pin, bit in nl.async_sinks:
        sinks[signal(pin)] |= {label(d) for d in nl.doms(bit)}
    domains = {names[b][0]: dict(net=(names[b][1] or [str(b)])[0], aliases=names[b][1],
                                 elements=sum(1 for e in nl.elems if e.clock == b))
               for b in sorted(nl.clocks, key=lambda b: names[b][0])}
    return dict(top=nl.top, domains=domains, crossings=crossings,
                async_sinks={p: sorted(s) for p, s in sorted(sinks.items()) if s})


def grouped(crossings):
    """[((kind, source domain, destination domain, source signal, destination signal, reason,
    note), bit paths)], sorted."""
    groups = defaultdict(int)
    for c in crossings:
        groups[(c["kind"], c["source_domain"], c["dest_domain"], signal(c["source"]), signal(c["dest"]),
                c["reason"] or "", c["note"] or "")] += 1
    return sorted(groups.items())


# -- the clocks of the build ----------------------------------------------------------------------
def build_clocks(gateware, top):
    """From the LPF and the newest nextpnr log beside the netlist: ({net: (MHz, where)}, {nets
    nextpnr reported an fmax for}, {(net, net) nextpnr timed paths across})."""
    constrained, reported, pairs = {}, set(), set()
    lpf = os.path.join(gateware, f"{top}.lpf")
    if os.path.exists(lpf):
        for m in re.finditer(r'FREQUENCY\s+(?:NET|PORT)\s+"([^"]+)"\s+([\d.]+)\s*MHz', open(lpf).read()):
            constrained[m.group(1)] = (float(m.group(2)), "LPF")
    glb = lambda n: n.replace("$glbnet$", "").split("$")[0]
    for log in sorted(glob.glob(os.path.join(gateware, "build*.log")), key=os.path.getmtime)[-1:]:
        text = open(log, errors="replace").read()
        for m in re.finditer(r"Derived frequency constraint of ([\d.]+) MHz for net (\S+)", text):
            constrained.setdefault(m.group(2), (float(m.group(1)), "derived by nextpnr"))
        reported |= {glb(m.group(1)) for m in re.finditer(r"Max frequency for clock\s+'([^']+)'", text)}
        pairs |= {(glb(m.group(1)), glb(m.group(2))) for m in re.finditer(
            r"Max delay (?:posedge|negedge) (\S+)\s+-> (?:posedge|negedge) (\S+)\s*:", text)}
    return constrained, reported, pairs


def clock_check(nl, result, gateware):
    """Lines comparing the netlist's domains with the build's constraints and nextpnr's report;
    a line starting with WARNING is a mismatch."""
    names = domain_names(nl)
    net = lambda n: (nl.by_name.get(n) or [None])[0]
    constrained, reported, pairs = build_clocks(gateware, nl.top)
    if not constrained and not reported:
        return ["no LPF or nextpnr log beside the netlist: clocks not cross-checked"]
    lines, seen = [], set()
    for n, (mhz, where) in sorted(constrained.items()):
        b = net(n)
        seen.add(b)
        lines.append(f"{names[b][0]:10s} {n}: {mhz:g} MHz ({where})" if b in names else
                     f"WARNING: {n} ({mhz:g} MHz, {where}) is not a net of the netlist" if b is None else
                     f"note: {n} ({mhz:g} MHz, {where}) clocks no flop (a hard IP's clock)")
    for b, (lab, _) in sorted(names.items(), key=lambda kv: kv[1][0]):
        if b not in seen:
            lines.append(f"WARNING: domain {lab} has no frequency constraint")
        if reported and not any(net(n) == b for n in reported):
            lines.append(f"WARNING: nextpnr reports no fmax for domain {lab}")
    if pairs:
        ours = {(c["source_domain"], c["dest_domain"]) for c in result["crossings"]}
        theirs = {(names[net(a)][0], names[net(b)][0]) for a, b in pairs
                  if net(a) in names and net(b) in names}
        lines.append("domain pairs nextpnr timed paths across: "
                     + ", ".join(f"{a}->{b}" for a, b in sorted(theirs)))
        lines += [f"WARNING: nextpnr has paths {a} -> {b}; this check found none"
                  for a, b in sorted(theirs - ours)]
        lines += [f"note: {a} -> {b} found here, not by nextpnr" for a, b in sorted(ours - theirs)
                  if a in result["domains"]]
    return lines


# -- report ---------------------------------------------------------------------------------------
def report(result, clock_lines=()):
    """The report's text and the verdict (True: no undeclared crossing)."""
    out = [f"Clock-domain crossings of {result['top']}", "", "Clock domains (the flops' clock nets):"]
    for lab, d in result["domains"].items():
        also = [a for a in d["aliases"] if a != d["net"]]
        out.append(f"  {lab:10s} {d['elements']:6d} elements  net {d['net']}"
                   + (f" (also {', '.join(also[:4])})" if also else ""))
    groups = grouped(result["crossings"])
    counts = defaultdict(lambda: [0, 0])
    for (kind, *_), n in groups:
        counts[kind][0] += n
        counts[kind][1] += 1
    out += ["", "| kind | bit paths | source -> destination signals |", "| --- | ---: | ---: |"]
    out += [f"| {k} | {counts[k][0]} | {counts[k][1]} |"
            for k in SYNCHRONISED + ("declared", "undeclared") if k in counts]
    for title, kinds in (("Synchronised", SYNCHRONISED), ("Declared quasi-static", ("declared",)),
                         ("UNDECLARED", ("undeclared",))):
        sel = [(k, n) for k, n in groups if k[0] in kinds]
        out += ["", f"{title}:"] if sel else []
        for (kind, sd, dd, s, d, reason, note), n in sel:
            out.append(f"  [{kind}] {sd} -> {dd}: {s} -> {d} ({n} bit path{'s' if n > 1 else ''})")
            out += [f"      reason: {reason}"] if reason else []
            out += [f"      note: {note}"] if note else []
    if result["async_sinks"]:
        out += ["", "Asynchronous inputs of the hard IP (not judged), by driving domain:"]
        out += [f"  {pin} <- {', '.join(doms)}" for pin, doms in result["async_sinks"].items()]
    if clock_lines:
        out += ["", "Clocks of the build (LPF, nextpnr's log):"] + [f"  {line}" for line in clock_lines]
    bad = [k for k, _ in groups if k[0] == "undeclared"]
    out.append("")
    if bad:
        out.append(f"FAIL: {len(bad)} undeclared crossing{'s' if len(bad) > 1 else ''} "
                   f"(source -> destination):")
        out += [f"  {s} ({sd}) -> {d} ({dd})" for _, sd, dd, s, d, _, _ in bad]
    else:
        out.append("PASS: every crossing ends in a synchroniser or is declared")
    return "\n".join(out), not bad


def load(path):
    with open(path) as f:
        return Netlist(json.load(f))


def netlist_path(board, root):
    """build/BOARD/gateware/<top>.json, the top named by the build script LiteX wrote there
    (build_<top>.sh); FileNotFoundError when the board was not built."""
    gateware = os.path.join(root, "build", board, "gateware")
    tops = [os.path.basename(s)[len("build_"):-len(".sh")]
            for s in glob.glob(os.path.join(gateware, "build_*.sh"))]
    found = [p for p in (os.path.join(gateware, f"{t}.json") for t in tops) if os.path.exists(p)]
    if len(found) != 1:
        raise FileNotFoundError(f"no synthesised netlist in build/{board}/gateware: "
                                f"run make build BOARD={board} first")
    return found[0]


def check(path, json_out=None, declared=DECLARED, out=sys.stdout):
    """Check the netlist at `path`'s crossings, then its resets, and print both; 0 (pass) or 1."""
    from ecpsata.checks import resets
    nl = load(path)
    result = analyse(nl, declared)
    lines = clock_check(nl, result, os.path.dirname(os.path.abspath(path)))
    text, ok = report(result, lines)
    rst = resets.analyse(nl, result["crossings"])
    rst_text, rst_ok = resets.report(rst)
    print(text + "\n\n" + rst_text, file=out)
    if json_out:
        with open(json_out, "w") as f:
            verdict = "pass" if ok and rst_ok else "fail"
            json.dump(dict(result, clock_check=lines, resets=rst, verdict=verdict), f, indent=1)
    return 0 if ok and rst_ok else 1


def main(argv=None):
    from ecpsata.paths import ROOT
    from ecpsata.soc import boards
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("board", choices=boards.names("placed"))
    parser.add_argument("--netlist", help="the synth_ecp5 JSON (default build/BOARD/gateware/<top>.json)")
    parser.add_argument("--json", dest="json_out", metavar="OUT", help="also write the result as JSON")
    args = parser.parse_args(argv)
    try:
        path = args.netlist or netlist_path(args.board, ROOT)
    except FileNotFoundError as e:
        parser.exit(2, f"error: {e}\n")
    if not os.path.exists(path):
        parser.exit(2, f"error: no netlist {path}: run make build BOARD={args.board} first\n")
    return check(path, args.json_out)
