# SPDX-License-Identifier: BSD-2-Clause
"""Resets in a synthesised ECP5 netlist: every flop's reset is released synchronously to the flop's
own clock. Run with the crossing check (ecpsata/checks/cdc.py), on the same netlist:

    .venv/bin/python scripts/cdc.py ecpix5 [--netlist FILE] [--json OUT]      (make cdc BOARD=...)

Method. The reset pins are those synthesis left: a ``TRELLIS_FF``'s LSR (asynchronous, "AR", when
its SRMODE is ASYNC; otherwise synchronous, "SR"), a block RAM port's output register reset
(``RSTA`` / ``RSTB`` / ``RST``: "AR" when RESETMODE is ASYNC with an asynchronous release, else
"SR") and an I/O register's ``RST`` ("AR"). A reset tied to a constant leaves no pin; a reset that
Yosys folded into a flop's data logic is data, and a crossing on it is the crossing check's. Behind
each pin the combinational logic is walked back to its sources, and each source is classed:

- a reset synchroniser on clock X: the last stage of a chain of asynchronously preset flops on one
  clock and one reset net, the first fed a constant (``AsyncResetSynchronizer``; the crossing check
  finds the chains). Its first stage is no source of a reset: it can be metastable;
- logic of domain X: any other flop, or a LUT RAM's contents written on X;
- a pad, a hard-IP output (the PLL's lock, the DCU's status), a clock net.

The global set/reset (a ``GSR`` or ``SGSR`` cell) resets every flop that has it enabled, whatever
its clock: driven by anything but a constant, it is a violation.

Rules. An asynchronous reset releases its flop when it falls, whatever the clock does: it must come
from reset synchronisers on the flop's own clock and nothing else (logic between them, an OR of
two, is allowed: each releases on that clock's edge). A synchronous reset is sampled like data: it
must come from flops of the flop's own domain (a reset synchroniser on that clock among them), or
cross by a path the crossing check accepts (async FIFO storage, or a declared quasi-static
crossing) which then is that check's to judge. Every other source is a violation, listed by flop
and source. A reset with no source at all is constant.

A reset synchroniser's own reset pins are its request: asynchronous by design (the PLL's lock, a
pad, another domain's logic: anything), listed with their sources and not judged. The hard IP's
reset inputs (the DCU's ``FFC_*RST*``, the PLL's ``RST``) are listed with their sources and whether
a flop drives them or logic does (logic can glitch, and a glitch can reach the hard IP as a
short reset). The DCU's must come from a flop (or a constant): no fabric clock samples them, so a
glitch of a decode would reset the TX PLL, the CDR or a lane; the PLL's ``RST`` is a request like a
synchroniser's (the PLL relocks, its lock requests sys's reset), listed and not judged. Their order
is the DCU reset sequencer's (``ecpsata/phy/ecp5/reset.py``), tested in simulation against the DCUA
model (``tests/phy/ecp5/test_reset.py``).
"""

import re
from collections import defaultdict

from ecpsata.checks.cdc import _reset_chains, domain_names, memory_name, signal

# Block RAM ports: (port, clock pin, reset pin).
BRAM_RESETS = {"DP16KD": (("A", "CLKA", "RSTA"), ("B", "CLKB", "RSTB")),
               "PDPW16KD": (("R", "CLKR", "RST"),)}
IO_RESETS = {"IDDRX1F": ("SCLK", "RST"), "ODDRX1F": ("SCLK", "RST")}
HARD_IP_RESET = re.compile(r"(^|\.|_)(\w*RST\w*)(\[\d+\])?$")
# Crossings the crossing check accepts on a synchronous reset pin (a flop's, or a block RAM's,
# which that check counts among the RAM's pins); its other kinds need a data pin.
ACCEPTED = ("async FIFO storage", "declared")
SOURCE_KINDS = {"pad": "pad", "async": "hard-IP output", "clock": "clock net"}
# Hard IP whose reset inputs must come from a flop (or a constant).
GLITCH_FREE_RESETS = {"DCUA"}


class ResetPin:
    """One reset pin: the element's name, its clock net, "AR" or "SR", the reset's net."""
    def __init__(self, name, clock, role, bit, elem=None):
        self.name, self.clock, self.role, self.bit, self.elem = name, clock, role, bit, elem


def _bits(cell, pin):
    return [b for b in cell["connections"].get(pin, []) if isinstance(b, int)]


def reset_pins(nl):
    """Every reset pin of the netlist's sequential elements, as ResetPins."""
    out = [ResetPin(nl.elem_name(e), e.clock, role, b, e) for e in nl.elems if e.kind == "ff"
           for role, b in e.pins if role in ("AR", "SR")]
    for cname, cell in nl.cells.items():
        p = {k: str(v).strip() for k, v in cell.get("parameters", {}).items()}
        if cell["type"] in BRAM_RESETS:
            asynchronous = p.get("RESETMODE") == "ASYNC" and p.get("ASYNC_RESET_RELEASE") != "SYNC"
            for port, cpin, rpin in BRAM_RESETS[cell["type"]]:
                clk = _bits(cell, cpin)
                role = "AR" if asynchronous else "SR"
                out += [ResetPin(f"{memory_name(cname)} port {port}", clk[0], role, b)
                        for b in _bits(cell, rpin) if clk]
        elif cell["type"] in IO_RESETS:
            cpin, rpin = IO_RESETS[cell["type"]]
            clk = _bits(cell, cpin)
            out += [ResetPin(cname, clk[0], "AR", b) for b in _bits(cell, rpin) if clk]
    return out


def sources(nl, bit, memo):
    """The sources behind `bit` (flops, RAM contents, pads, hard-IP outputs, clocks), through the
    combinational logic; memoised per net in `memo`."""
    if bit not in memo:
        found, seen, stack = {}, set(), [bit]
        while stack:
            b = stack.pop()
            if b in seen:
                continue
            seen.add(b)
            found.update(dict.fromkeys(nl.leaf.get(b, ())))
            stack.extend(nl.ins.get(b, ()))
        memo[bit] = list(found)
    return memo[bit]


def analyse(nl, crossings=()):
    """The resets of the netlist `nl`: {"top", "domains", "synchronisers", "hard_ip",
    "violations"}. `crossings`: the crossing check's result on the same netlist (those it accepts
    on a synchronous reset pin pass here)."""
    names = domain_names(nl)
    label = lambda d: str(names[d][0] if d in names else d)
    chains = _reset_chains(nl)
    sync_name = lambda last: signal(nl.elem_name(last))
    accepted = {(c["source"], c["dest"]) for c in crossings
                if c["pin"] in ("SR", "RAM") and c["kind"] in ACCEPTED}
    memo = {}

    def aliases(src):
        """The names of a source's net (a domain's reset is also the net it is taken from)."""
        kind, x = src
        if kind in ("seq", "mem"):
            bits = x.outs[:1] if kind == "seq" else []
        else:                   # a pad, a clock, a hard-IP pin: the net's name, "name[i]" or "name"
            m = re.fullmatch(r"(.*)\[(\d+)\]", str(x))
            net = nl.by_name.get(m.group(1) if m else x, [])
            bits = net[int(m.group(2)):][:1] if m else net[:1]
        return sorted({signal(n) for b in bits for n in nl.names.get(b, [])})

    def classify(pin, src):
        """(kind, source name, passes) of one source of a reset pin."""
        kind, x = src
        own = pin.clock
        if kind == "seq" and x in chains:
            last = chains[x]
            if x is not last:
                return f"first stage of a reset synchroniser on {label(x.clock)}", sync_name(last), False
            ok = x.clock == own
            return ("reset synchroniser (own clock)" if ok else f"reset synchroniser on {label(x.clock)}",
                    sync_name(x), ok)
        if kind in ("seq", "mem"):
            name = signal(nl.source_name(src))
            if x.clock == own:
                return ("same-domain logic", name, True) if pin.role == "SR" else \
                    ("same-domain logic, not a reset synchroniser", name, False)
            if pin.role == "SR" and (nl.source_name(src), pin.name) in accepted:
                return "accepted crossing", name, True
            return f"logic of domain {label(x.clock)}", name, False
        return SOURCE_KINDS[kind], signal(x), False

    domains = {names[b][0]: dict(flops=0, with_reset=0, asynchronous=0, sources=defaultdict(set))
               for b in sorted(nl.clocks, key=lambda b: names[b][0])}
    for e in nl.elems:
        if e.kind == "ff" and e.clock in names:
            domains[label(e.clock)]["flops"] += 1
    requests = {last: set() for last in chains.values()}
    violations, also = defaultdict(int), {}
    for pin in reset_pins(nl):
        dom = domains[label(pin.clock)]
        if pin.elem is not None and pin.elem in chains:          # a synchroniser's request
            for src in sources(nl, pin.bit, memo):
                kind, x = src
                what = label(x.clock) if kind in ("seq", "mem") else SOURCE_KINDS[kind]
                requests[chains[pin.elem]].add((signal(nl.source_name(src)), what))
            continue
        dom["with_reset"] += 1
        dom["asynchronous"] += pin.role == "AR"
        found = sources(nl, pin.bit, memo)
        if not found:
            dom["sources"][("constant", "constant")].add(pin)
        for src in found:
            kind, name, ok = classify(pin, src)
            key = (kind, "(flops of the domain)" if kind.startswith("same-domain logic") else name)
            dom["sources"][key].add(pin)
            if not ok:
                violations[(signal(pin.name), label(pin.clock), pin.role, name, kind)] += 1
                also[name] = [n for n in aliases(src) if n != name]
    for cname, cell in nl.cells.items():       # the global set/reset: every flop, whatever its clock
        if cell["type"] in ("GSR", "SGSR"):
            for src in (s for b in _bits(cell, "GSR") for s in sources(nl, b, memo)):
                name = signal(nl.source_name(src))
                violations[(f"{cname} (every flop with GSR enabled)", "all", "GSR", name,
                            "global set/reset from a signal")] += 1
                also[name] = [n for n in aliases(src) if n != name]
    for dom in domains.values():
        dom["sources"] = [dict(kind=k, source=s, flops=len(pins))
                          for (k, s), pins in sorted(dom["sources"].items(), key=lambda kv: -len(kv[1]))]
    synchronisers = [dict(name=sync_name(last), domain=label(last.clock),
                          stages=sum(1 for e in chains if chains[e] is last),
                          requests=[dict(source=s, kind=k) for s, k in sorted(reqs)])
                     for last, reqs in sorted(requests.items(), key=lambda kv: sync_name(kv[0]))]
    hard_ip = []
    for pin, bit in nl.async_sinks:
        if HARD_IP_RESET.search(pin):
            srcs = sources(nl, bit, memo)
            single = nl.single_source(bit)
            registered = single is not None and single[0] == "seq"
            hard_ip.append(dict(pin=pin, domains=sorted({label(nl.src_domain(s)) for s in srcs}),
                                sources=sorted({signal(nl.source_name(s)) for s in srcs}), bits=len(srcs),
                                registered=registered))
            if srcs and not registered and nl.cells[pin.split(".")[0]]["type"] in GLITCH_FREE_RESETS:
                names = sorted({signal(nl.source_name(s)) for s in srcs})
                violations[(pin, ", ".join(hard_ip[-1]["domains"]), "hard IP", names[0],
                            "DCU reset input from logic (can glitch)")] += len(srcs)
                also[names[0]] = names[1:]
    return dict(top=nl.top, domains=domains, synchronisers=synchronisers,
                hard_ip=sorted(hard_ip, key=lambda h: h["pin"]),
                violations=[dict(flop=f, domain=d, pin=r, source=s, aliases=also[s], kind=k, bits=n)
                            for (f, d, r, s, k), n in sorted(violations.items())])


def report(result):
    """The report's text and the verdict (True: every reset released on its flop's clock)."""
    out = [f"Resets of {result['top']}", "",
           "| domain | flops | with a reset pin | asynchronous | reset source | kind | flops it resets |",
           "| --- | ---: | ---: | ---: | --- | --- | ---: |"]
    for lab, d in result["domains"].items():
        rows = d["sources"] or [dict(source="(none)", kind="", flops=0)]
        for i, s in enumerate(rows):
            head = "| | | | |" if i else f"| {lab} | {d['flops']} | {d['with_reset']} | {d['asynchronous']} |"
            kind = s["kind"].replace("(own clock)", f"on {lab}")
            out.append(f"{head} {s['source']} | {kind} | {s['flops']} |")
    if result["synchronisers"]:
        out += ["", "Reset synchronisers and what requests them (asynchronous by design: not judged):"]
        for s in result["synchronisers"]:
            reqs = ", ".join(f"{r['source']} ({r['kind']})" for r in s["requests"]) or "constant"
            out.append(f"  {s['name']} on {s['domain']} ({s['stages']} stages) <- {reqs}")
    if result["hard_ip"]:
        out += ["", "Reset inputs of the hard IP, by driver (the DCU's must be flops):"]
        for h in result["hard_ip"]:
            n = h["bits"]
            how = "a flop" if h["registered"] else "constant" if not n else \
                f"logic of {n} bit{'s' if n > 1 else ''}, can glitch"
            out.append(f"  {h['pin']} <- {', '.join(h['domains']) or 'constant'}: {how} "
                       f"({', '.join(h['sources'])})")
    bad = result["violations"]
    out.append("")
    if bad:
        out.append(f"FAIL: {len(bad)} reset{'s' if len(bad) > 1 else ''} not released on the flop's own "
                   f"clock (flop (domain, pin) <- source: kind):")
        out += [f"  {v['flop']} ({v['domain']}, {v['pin']}) <- {v['source']}"
                + (f" (also {', '.join(v['aliases'][:3])})" if v["aliases"] else "") + f": {v['kind']}"
                + (f", {v['bits']} bits" if v["bits"] > 1 else "") for v in bad]
    else:
        out.append("PASS: every reset is released synchronously to its flop's own clock")
    return "\n".join(out), not bad
