# SPDX-License-Identifier: BSD-2-Clause
"""The board build's PHY in the gate-level run: the ECP5 DCU wrapper (ecpsata/phy/ecp5/serdes.py,
as the boards' builds make it: the ECPIX-5's dual and channel, the 150 MHz reference clock x 20,
the Gen1 method at run time) under the PHY, the core and the crossbar, its ``DCUA`` a black box
in Yosys's netlist as in a board build, and a Verilog ``DCUA`` for the simulator in its place: the
behavioural model (ecpsata/phy/ecp5/dcua_model.py, written out by Migen) with its word clocks.

The model's word clocks are its free-running reference clock gated by its ``tx_ce`` / ``rx_ce``
(sampled on the falling edge, as the simulated ECPIX-5 does), on the DCUA's ``FF_TX_PCLK`` /
``FF_RX_PCLK``. Its line side (the words on the pins) is not a DCUA port: the netlist's top goes
into a module of its own (``xcore``) and a wrapper ``xdut`` with the test bench's ports
(ecpsata/checks/scenarios.py: ``clk``, ``tx``, ``gen``, ``rx``, ``rx_los``) reaches the model's
``bench_*`` signals by hierarchical names, so that the netlist stays what Yosys made.

The crossbar's second port carries the benchmark engine (ecpsata/engines/engine.py) behind its
registered port, as the boards' builds have it, with its registers on a CSR bus of its own (LiteX's
CSR bank, the ``csr_*`` ports) that the test bench writes and reads as the firmware does.

What the run does not have of the board: the pins (the serial line), the fabric PLL, the rest of
the SoC (CPU, main bus, the queued engine, the error block and event log) and sys at 75 MHz (the
test bench's sys is 100 MHz);
the reset sequencer's waits are shortened (DCU_TIMINGS) as the model's lock times are, and the
PHY's as in every simulation (PHY_TIMINGS).
"""

import re
from types import SimpleNamespace

from migen import ClockDomain, Module, Mux, Signal
from migen.fhdl.tools import list_targets
from migen.fhdl.verilog import convert

from litex.build.lattice.common import lattice_ecp5_special_overrides
from litex.soc.interconnect import csr_bus, stream
from litesata.common import command_rx_description

from ecpsata.checks.scenarios import SYS_CLK_FREQ
from ecpsata.checks.xprop import XPropDUT
from ecpsata.core.command import command_tx_description
from ecpsata.core.core import ECPSATACore
from ecpsata.engines.engine import ECPSATABenchEngine
from ecpsata.frontend.crossbar import ECPSATACrossbar
from ecpsata.frontend.port import BufferedUserPort
from ecpsata.phy.ctrl import SHORT_TIMINGS
from ecpsata.phy.ecp5.dcua_model import DCUAModel
from ecpsata.phy.ecp5.serdes import ECP5SATASerDes
from ecpsata.phy.phy import ECPSATAPHY
from ecpsata.phy.serdes import GEN2, WORD_BITS
from ecpsata.platforms.ecpix5 import SATA_CHANNEL, SATA_DUAL

REFCLK_FREQ = 150e6
# The reset sequencer's waits, shortened as the model's PLL and CDR lock in microseconds
# (ecpsata/phy/ecp5/reset.py has the board's).
DCU_TIMINGS = dict(por=1e-6, tx_pll_reset=0.5e-6, tx_pll_lock=8e-6, tx_pll_timeout=60e-6,
                   tx_pcs_reset=0.5e-6, rx_cdr_reset=0.5e-6, rx_cdr_lock=1e-6,
                   rx_cdr_timeout=20e-6, rx_pcs_reset=0.2e-6, meter_window=256)
# The PHY's waits: the simulation's short ones, but the interval between COMRESETs: at Gen1 the
# DCU's receiver, after each COMWAKE, has its CDR held, then locks and resets its lane before the
# PHY sees the drive's ALIGN, about 12 us after the COMINIT, and 12 us (SHORT_TIMINGS) sent the
# next COMRESET first, for ever.
PHY_TIMINGS = dict(SHORT_TIMINGS, retry_interval=40e-6)
# The engine's CSR bus (LiteX's CSR bank: one 32-bit word per address, the high word of a wider
# register first), as the test bench's `csr_*` ports.
CSR_PORTS = (("csr_adr", 14), ("csr_we", 1), ("csr_dat_w", 32), ("csr_dat_r", 32))
# The model's line side, as the wrapper reaches it: (name, width, direction from the model).
LINE = (("bench_clk", 1, "out"), ("bench_tx", WORD_BITS, "out"), ("bench_gen", 1, "out"),
        ("bench_rx", WORD_BITS, "in"), ("bench_rx_los", 1, "in"))


class DCUDUT(XPropDUT):
    """The PHY on the board's DCU wrapper, the core and its crossbar with two user ports (as the
    boards' builds: IDENTIFY's and the benchmark engine's), the test bench on the first, the
    benchmark engine on the second (its registers on the ``csr_*`` ports; without ``engine`` the
    port is idle and there is no CSR bus); the test bench's ports but the line's (those are the
    DCUA model's, see the module docstring). ``csr_map``: each of the engine's registers by its
    name, (first address, words); ``csr_fields``: the fields of those that have them."""
    def __init__(self, phy_timings=PHY_TIMINGS, engine=True):
        self.cd_sys = ClockDomain("sys")
        self.word_clk = Signal()        # the DCU's reference clock: the test bench's 150 MHz
        pins = SimpleNamespace(tx_p=Signal(), tx_n=Signal(), rx_p=Signal(), rx_n=Signal())
        self.serdes = ECP5SATASerDes(pins, self.word_clk, SYS_CLK_FREQ, refclk_freq=REFCLK_FREQ,
                                     dual=SATA_DUAL, channel=SATA_CHANNEL, refclk_mul=20,
                                     gen1_method=True, timings=DCU_TIMINGS)
        self.phy = ECPSATAPHY(self.serdes, SYS_CLK_FREQ, **phy_timings)
        self.core = ECPSATACore(self.phy, SYS_CLK_FREQ, ncq=True, settle_time=50e-6)
        self.queued = self._queued_ports()
        self.crossbar = ECPSATACrossbar(self.core)
        port = self.crossbar.get_port()
        self.sink = stream.Endpoint(command_tx_description(32))
        self.source = stream.Endpoint(command_rx_description(32))
        self.comb += [self.sink.connect(port.sink), port.source.connect(self.source)]
        self.csr, self.csr_map, self.csr_fields = {}, None, None
        if not engine:
            self.comb += self.crossbar.get_port().source.ready.eq(1)
            return
        self.bench_port = BufferedUserPort(self.crossbar.get_port())
        self.bench = ECPSATABenchEngine(self.bench_port, SYS_CLK_FREQ,
                                        write_beat=self.bench_port.write_beat)
        self.comb += self.bench.link_up.eq(self.phy.ready)
        self._add_csr_bus()

    def _add_csr_bus(self):
        self.csr_banks = banks = csr_bus.CSRBankArray(
            self, lambda name, memory: 0 if name == "bench" else None, data_width=32,
            address_width=CSR_PORTS[0][1])
        bus = csr_bus.Interface(data_width=32, address_width=CSR_PORTS[0][1])
        self.csr_interconnect = csr_bus.Interconnect(bus, banks.get_buses())
        self.csr = ports = {name: Signal(width, name=name) for name, width in CSR_PORTS}
        self.comb += [bus.adr.eq(ports["csr_adr"]), bus.we.eq(ports["csr_we"]),
                      bus.dat_w.eq(ports["csr_dat_w"]), ports["csr_dat_r"].eq(bus.dat_r)]
        (_, csrs, _, bank), = banks.banks
        self.csr_map, address = {}, 0
        for c in csrs:
            words = (c.size + 31) // 32
            self.csr_map[c.name] = (address, words)
            address += words
        assert address == len(bank.simple_csrs), "the CSR bank's words are not one per address"
        # the fields of the registers the test bench writes or decodes, by offset
        self.csr_fields = {c.name: {f.name: f.offset for f in c.fields.fields}
                           for c in csrs if hasattr(c, "fields")}

    def ios(self):
        ios = {self.cd_sys.clk, self.cd_sys.rst, self.word_clk, self.phy.ready}
        for ep in (self.sink, self.source):
            ios |= set(ep.flatten())
        return ios | set(self.queued.values()) | set(self.csr.values())


def design(phy_timings=PHY_TIMINGS, engine=True):
    """(Migen's Verilog of DCUDUT, its data files, the DCUA's parameters and connections, the
    engine's registers and fields for the test bench: `scenarios.testbench`'s `csr`, None
    without the engine)."""
    dut = DCUDUT(phy_timings, engine)
    # the board build's lowering of the reset synchronisers (two FD1S3BX each)
    v = convert(dut.get_fragment(), ios=dut.ios(), name="xdut",
                special_overrides=lattice_ecp5_special_overrides)
    csr = (dut.csr_map, dut.csr_fields) if engine else None
    return v.main_source, dict(v.data_files), dut.serdes.dcua_params, csr


class _DCUASim(Module):
    """A module with the DCUA's connected ports (1 bit each, named as the DCUA's) around the model,
    the word clocks on FF_TX_PCLK / FF_RX_PCLK, and the line signals (LINE)."""
    def __init__(self, params):
        ports = {}
        for key, value in params.items():
            if key[:2] in ("i_", "o_"):
                ports[key] = Signal(1, name=key[2:])
            else:
                ports[key] = value
        self.ports = ports
        self.clock_domains.cd_dcu = ClockDomain(reset_less=True)
        self.clock_domains.cd_dcu_n = ClockDomain(reset_less=True)
        self.clock_domains.cd_line_tx = ClockDomain(reset_less=True)
        self.clock_domains.cd_line_rx = ClockDomain(reset_less=True)
        ch = "CH0" if "i_CH0_FFC_RRST" in ports else "CH1"
        self.submodules.model = m = DCUAModel(ports, refclk_freq=REFCLK_FREQ, domain="dcu",
                                              tx_domain="line_tx", rx_domain="line_rx")
        line = {name: Signal(width, name=name) for name, width, _ in LINE}
        self.line = line
        tx_en, rx_en = Signal(), Signal()
        refclk = ports["i_D_REFCLKI"]
        self.sync.dcu_n += [tx_en.eq(m.tx_ce), rx_en.eq(m.rx_ce)]
        self.comb += [
            self.cd_dcu.clk.eq(refclk),
            self.cd_dcu_n.clk.eq(~refclk),
            ports[f"o_{ch}_FF_TX_PCLK"].eq(refclk & tx_en),
            ports[f"o_{ch}_FF_RX_PCLK"].eq(refclk & rx_en),
            self.cd_line_tx.clk.eq(ports[f"o_{ch}_FF_TX_PCLK"]),
            self.cd_line_rx.clk.eq(ports[f"o_{ch}_FF_RX_PCLK"]),
            line["bench_clk"].eq(ports[f"o_{ch}_FF_TX_PCLK"]),
            line["bench_tx"].eq(Mux(m.tx_idle, 0, m.tx_word)),
            line["bench_gen"].eq(m.tx_gen == GEN2),
            m.rx_word.eq(line["bench_rx"]),
            m.rx_idle.eq(line["bench_rx_los"]),
            # as on the simulated ECPIX-5: the CDR takes an active line for its own rate
            m.rx_gen.eq(m.tx_gen),
        ]


def dcua_verilog(params):
    """The Verilog module ``DCUA`` of `params` (the wrapper's DCUA Instance parameters): the model,
    its word clocks and its line signals; the DCUA's outputs the model does not drive are 0."""
    sim = _DCUASim(params)
    fragment = sim.get_fragment()
    driven = set()
    for stmts in [fragment.comb] + list(fragment.sync.values()):
        driven |= set(list_targets(stmts))
    outputs = [s for k, s in sim.ports.items() if k.startswith("o_")]
    fragment.comb += [s.eq(0) for s in outputs if s not in driven]
    inputs = [s for k, s in sim.ports.items() if k.startswith("i_")]
    v = convert(fragment, ios=set(inputs) | set(outputs), name="DCUA")
    text = v.main_source
    for name, signal in sim.line.items():       # Migen's names, prefixed, made the plain ones
        text = re.sub(rf"\b{v.ns.get_name(signal)}\b", name, text)
    # the DCUA's parameters, declared for the instance's overrides (the model has read them)
    params_decl = "".join(f"parameter {k[2:]} = \"\";\n" for k in params if k.startswith("p_"))
    text = re.sub(r"^(module DCUA\(.*?^\);\n)", lambda m: m.group(1) + params_decl, text,
                  count=1, flags=re.M | re.S)
    # the line's inputs are set by the wrapper through hierarchical names: registers, not wires
    for name, width, direction in LINE:
        decl = f"[{width - 1}:0] " if width > 1 else ""
        pattern = rf"^(reg|wire) {re.escape(decl)}{name}( = [^;]+)?;"
        if len(re.findall(pattern, text, re.M)) != 1:
            raise RuntimeError(f"the DCUA model's Verilog: no declaration of {name}")
        if direction == "in":
            text = re.sub(pattern, f"reg {decl}{name} = 0;", text, flags=re.M)
    return text


def wrap(netlist):
    """`netlist` (Yosys's Verilog of DCUDUT, top ``xdut``) with its top renamed ``xcore`` under a
    wrapper ``xdut`` that has the test bench's line ports, tied to the DCUA's line signals."""
    text, n = re.subn(r"^module xdut\(", "module xcore(", netlist, flags=re.M)
    if n != 1:
        raise RuntimeError("no module xdut in the netlist")
    body = text[text.index("module xcore("):]
    body = body[:body.index("endmodule")]
    ports = [p.strip() for p in body[len("module xcore("):body.index(");")].split(",")]
    decls = []
    for port in ports:
        m = re.search(rf"^\s*(input|output)\s+(\[\d+:0\]\s+)?{re.escape(port)}\s*;", body, re.M)
        if m is None:
            raise RuntimeError(f"the netlist's top: no declaration of port {port}")
        decls.append((m.group(1), m.group(2), port))
    inst = re.findall(r"^\s*DCUA\s+(?:#\((?:.|\n)*?^\s*\)\s*)?(\\?[^\s(]+)\s*\(", body, re.M)
    if len(inst) != 1:
        raise RuntimeError(f"{len(inst)} DCUA instances in the netlist (one expected)")
    dcu = f"core.{inst[0]} " if inst[0].startswith("\\") else f"core.{inst[0]}"
    lines = ["module xdut(" + ", ".join(ports + ["clk", "tx", "gen", "rx", "rx_los"]) + ");"]
    lines += [f"  {d} {w or ''}{name};" for d, w, name in decls]
    lines += [f"  output clk; output [{WORD_BITS - 1}:0] tx; output gen;",
              f"  input [{WORD_BITS - 1}:0] rx; input rx_los;",
              "  xcore core(" + ", ".join(f".{p}({p})" for p in ports) + ");",
              f"  assign clk = {dcu}.bench_clk;", f"  assign tx = {dcu}.bench_tx;",
              f"  assign gen = {dcu}.bench_gen;",
              f"  always @* begin {dcu}.bench_rx = rx; {dcu}.bench_rx_los = rx_los; end",
              "endmodule"]
    return text + "\n" + "\n".join(lines) + "\n"
