# SPDX-License-Identifier: BSD-2-Clause
"""The examples (examples/) build: each one's Verilog and csr.csv are generated here, so that they
cannot rot. The bitstreams themselves (their --build) are left to the user: the board builds of
tests/soc/test_build.py cover the toolchain."""

import csv
import importlib.util
import os
import re

import pytest

from ecpsata.paths import ROOT


def example(name):
    path = os.path.join(ROOT, "examples", f"{name}.py")
    spec = importlib.util.spec_from_file_location(f"example_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def registers(folder):
    with open(os.path.join(folder, "csr.csv")) as f:
        return {row[1] for row in csv.reader(f) if row and row[0] == "csr_register"}


def control_reset(folder):
    """The reset value of the PHY's control register in the generated Verilog."""
    (name,) = [n for n in os.listdir(os.path.join(folder, "gateware")) if n.endswith(".v")]
    with open(os.path.join(folder, "gateware", name)) as f:
        m = re.search(r"sata_phy\w*_control_storage = \d+'d(\d+);", f.read())
    return int(m.group(1))


def test_the_bist_example_has_litesatas_bist_on_our_core(tmp_path):
    example("sata_bist_ecpix5").main(["--output-dir", str(tmp_path)])
    regs = registers(tmp_path)
    for name in ("sata_bist_generator_start", "sata_bist_checker_errors",
                 "sata_bist_identify_start", "sata_phy_status", "sata_phy_control"):
        assert name in regs, name


def test_the_board_target_example_adds_sata_with_its_flags(tmp_path):
    ex = example("add_ecpsata_ecpix5")
    ex.main(["--output-dir", str(tmp_path / "none")])
    assert not any(r.startswith("sata_") for r in registers(tmp_path / "none"))
    ex.main(["--with-sata", "--output-dir", str(tmp_path / "auto")])
    regs = registers(tmp_path / "auto")
    for name in ("sata_phy_status", "sata_identify_start", "sata_errors_serror",
                 "sata_events_count", "sata_phy_enable",
                 # LiteX's frontends under LiteX's names, as its add_sata adds them
                 "sata_sector2mem_base", "sata_sector2mem_start", "sata_mem2sector_done",
                 "sata_irq_enable"):
        assert name in regs, name
    # add_ecpsata's defaults: no benchmark engines, no bring-up registers
    assert not any(r.startswith(("sata_bench", "sata_qbench", "sata_serdes_bringup"))
                   for r in regs)
    ex.main(["--with-sata", "--sata-mode", "identify", "--output-dir", str(tmp_path / "id")])
    regs = registers(tmp_path / "id")
    assert "sata_identify_start" in regs
    assert not any(r.startswith(("sata_sector2mem", "sata_mem2sector")) for r in regs)
    ex.main(["--with-sata", "--sata-gen", "1", "--output-dir", str(tmp_path / "gen1")])
    # force_gen, bits 2-3 of the control register (enable is bit 0): Gen1 only after reset
    auto, gen1 = control_reset(tmp_path / "auto"), control_reset(tmp_path / "gen1")
    assert (auto >> 2) & 3 == 0 and (gen1 >> 2) & 3 == 1 and auto & 1 == gen1 & 1 == 1
    with pytest.raises(SystemExit):
        ex.main(["--sata-gen", "3"])
