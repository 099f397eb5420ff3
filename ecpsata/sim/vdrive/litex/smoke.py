#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Smoke test of the LiteX sim module "vdrive": a tiny Verilator design with a sata_phy pad set and
a hardware host that sends COMRESET, waits for the drive's COMINIT, sends COMWAKE, waits for the
drive's COMWAKE and then for an ALIGN comma (K28.5) in the drive's words.

    python3 ecpsata/sim/vdrive/litex/smoke.py [build_dir]

Prints "vdrive smoke: PASS ..." and exits 0 on success (about a minute, mostly Verilator).
"""
import os
import subprocess
import sys

from migen import *
from litex.build.generic_platform import Pins, Subsignal
from litex.build.sim import SimPlatform
from litex.build.sim.config import SimConfig

HERE = os.path.dirname(os.path.abspath(__file__))

_io = [
    ("sys_clk", 0, Pins(1)),
    ("sys_rst", 0, Pins(1)),
    ("sata_phy", 0,
        Subsignal("clk", Pins(1)), Subsignal("tx", Pins(20)), Subsignal("gen", Pins(1)),
        Subsignal("rx", Pins(20)), Subsignal("rx_los", Pins(1))),
]


class SmokeHost(Module):
    def __init__(self, platform):
        self.clock_domains.cd_sys = ClockDomain()
        self.comb += self.cd_sys.clk.eq(platform.request("sys_clk"))
        pads = platform.request("sata_phy")
        self.comb += pads.clk.eq(ClockSignal()), pads.gen.eq(1)          # Gen2 host

        t = Signal(32)
        phase = Signal(3)       # 0 COMRESET, 1 wait COMINIT, 2 COMWAKE, 3 wait COMWAKE, 4 ALIGN
        start = Signal(32)
        bursts = Signal(8)
        los_d = Signal(reset=1)
        rel = Signal(32)
        self.sync += t.eq(t + 1), los_d.eq(pads.rx_los)
        self.comb += rel.eq(t - start)
        falling = Signal()
        self.comb += falling.eq(los_d & ~pads.rx_los)
        burst_word = Mux(rel[0], 0xF0F0F, 0x0F0F0)
        comma = Signal()
        self.comb += comma.eq((pads.rx[0:10] == 0x17C) | (pads.rx[0:10] == 0x283))
        self.comb += [
            If(phase == 0,     # 6 x (16 burst + 48 gap) words
                If(rel[0:6] < 16, pads.tx.eq(burst_word))
            ).Elif(phase == 2, # 6 x (16 burst + 16 gap)
                If(rel[0:5] < 16, pads.tx.eq(burst_word))
            ).Elif(phase == 4,
                pads.tx.eq(0xAAAAA)                                       # D10.2
            )
        ]
        self.sync += [
            If(phase == 0,
                If(rel == 6 * 64 - 1, phase.eq(1), start.eq(t + 1), bursts.eq(0))
            ).Elif(phase == 1,
                If(falling, bursts.eq(bursts + 1)),
                If(bursts == 6,
                    Display("vdrive smoke: COMINIT (6 bursts) at word %d", t),
                    phase.eq(2), start.eq(t + 1))
            ).Elif(phase == 2,
                If(rel == 6 * 32 - 1, phase.eq(3), start.eq(t + 1), bursts.eq(0))
            ).Elif(phase == 3,
                If(falling, bursts.eq(bursts + 1)),
                If(bursts == 6,
                    Display("vdrive smoke: COMWAKE (6 bursts) at word %d", t),
                    phase.eq(4), start.eq(t + 1))
            ).Elif(phase == 4,
                If(comma & ~pads.rx_los,
                    Display("vdrive smoke: PASS, K28.5 from the drive at word %d", t),
                    Finish())
            ),
            If(t == 200000,
                Display("vdrive smoke: FAIL, timeout in phase %d", phase),
                Finish())
        ]


def main():
    build_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "build",
                                                                   "litex_smoke")
    build_dir = os.path.abspath(build_dir)
    platform = SimPlatform("SIM", _io)
    cfg = SimConfig()
    cfg.add_clocker("sys_clk", freq_hz=int(1e12 / 4000))
    cfg.add_module("vdrive", "sata_phy", clocks=[],
                   args={"config": "persona=ideal,cominit_interval_us=0,"
                                   "stats_file=" + os.path.join(build_dir, "stats.json")})
    # LiteX writes variables.mak into extra_mods_path: use a folder of links under build_dir
    mods = os.path.join(build_dir, "sim_modules")
    os.makedirs(mods, exist_ok=True)
    link = os.path.join(mods, "vdrive")
    if not os.path.lexists(link):
        os.symlink(os.path.join(HERE, "vdrive"), link)
    platform.build(SmokeHost(platform), sim_config=cfg, build_dir=build_dir, run=False, jobs=2,
                   extra_mods=["vdrive"], extra_mods_path=mods)
    # this LiteX compiles only when asked to run: compile here, run without a terminal
    b = subprocess.run(["bash", "build_sim.sh"], cwd=build_dir, capture_output=True, text=True)
    if b.returncode != 0:
        print(b.stdout[-3000:], b.stderr[-3000:])
        sys.exit(1)
    out = subprocess.run(["./obj_dir/Vsim"], cwd=build_dir, capture_output=True, text=True,
                         timeout=300)
    print(out.stdout[-2000:], out.stderr[-2000:])
    ok = "vdrive smoke: PASS" in out.stdout
    stats = os.path.join(build_dir, "stats.json")
    if ok and os.path.exists(stats):
        print("stats:", open(stats).read().strip())
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
