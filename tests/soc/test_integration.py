# SPDX-License-Identifier: BSD-2-Clause
"""The core as LiteX users take it (ecpsata/soc/integration.py, the package's names): one call adds
our SATA host to any LiteX SoC, the package exports the pieces, and no name of ours shadows a
LiteX method with other arguments (LiteX's ``add_sata(phy=...)`` keeps its meaning on our SoC)."""

import csv
import importlib
import inspect
import os
import pkgutil
import subprocess
import sys

import pytest

import ecpsata
from ecpsata.paths import ROOT

# The floors of the package that hold gateware (tests/test_layers.py): their classes are the ones
# built on LiteX's, LiteSATA's, LiteEth's, LiteScope's and Migen's.
GATEWARE = ("ecpsata.phy", "ecpsata.core", "ecpsata.frontend", "ecpsata.engines", "ecpsata.soc",
            "ecpsata.platforms")
UPSTREAM = ("litex", "litesata", "liteeth", "litescope", "migen")


def _gateware_classes():
    seen = {}
    for top in GATEWARE:
        package = importlib.import_module(top)
        names = [top] + [m.name for m in pkgutil.walk_packages(package.__path__, top + ".")]
        for name in names:
            module = importlib.import_module(name)
            for obj in vars(module).values():
                if inspect.isclass(obj) and obj.__module__.startswith("ecpsata."):
                    seen[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return seen


def _compatible(ours, theirs):
    """Ours takes every argument theirs takes, in its order, by its name; what it adds has a
    default."""
    a = list(inspect.signature(ours).parameters.values())
    b = list(inspect.signature(theirs).parameters.values())
    if all(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in b[1:]):
        return True                         # a hook that passes anything on (Migen's do_exit)
    if [p.name for p in a[:len(b)]] != [p.name for p in b]:
        return False
    return all(p.default is not inspect.Parameter.empty or p.kind in (p.VAR_POSITIONAL,
                                                                       p.VAR_KEYWORD)
               for p in a[len(b):])


def test_no_name_of_ours_shadows_an_upstream_method_with_other_arguments():
    clashes = []
    for qualname, cls in _gateware_classes().items():
        for base in cls.__mro__[1:]:
            if not base.__module__.split(".")[0] in UPSTREAM:
                continue
            for name, ours in vars(cls).items():
                if name.startswith("_") or name not in vars(base):
                    continue
                theirs = vars(base)[name]
                if callable(ours) and callable(theirs) and not _compatible(ours, theirs):
                    clashes.append(f"{qualname}.{name}{inspect.signature(ours)} shadows "
                                   f"{base.__module__}.{base.__qualname__}.{name}"
                                   f"{inspect.signature(theirs)}")
    assert clashes == []


def test_litex_add_sata_and_add_etherbone_keep_their_meaning_on_our_soc():
    from litex.soc.integration.soc import LiteXSoC
    from ecpsata.soc.builder import ECPSATASoC
    assert ECPSATASoC.add_sata is LiteXSoC.add_sata
    assert ECPSATASoC.add_etherbone is LiteXSoC.add_etherbone


def test_the_package_exports_the_pieces_without_loading_them():
    for name in ecpsata.__all__:
        obj = getattr(ecpsata, name)
        assert getattr(importlib.import_module(ecpsata._EXPORTS[name]), name) is obj
    with pytest.raises(AttributeError, match="no attribute 'SATACore'"):
        ecpsata.SATACore
    # the host tools import the package: its names load on first use, Migen with them
    code = ("import sys, ecpsata; print('migen' in sys.modules); "
            "from ecpsata import ECPSATACore; print('migen' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         check=True).stdout.split()
    assert out == ["False", "True"]


def test_the_earlier_class_names_still_work_with_a_deprecation_warning():
    """Every class of ours carries the ECPSATA prefix; the names of earlier releases still
    resolve to the same classes, each with a warning naming its successor."""
    assert ecpsata._RENAMED
    for old, new in ecpsata._RENAMED.items():
        with pytest.warns(DeprecationWarning, match=f"ecpsata.{old} is now ecpsata.{new}"):
            obj = getattr(ecpsata, old)
        assert obj is getattr(ecpsata, new)
        assert obj.__name__ == new
        assert old not in ecpsata.__all__


def _stock_soc():
    """A LiteX SoCCore of LiteX's own, no CPU, on the simulated board's pins."""
    from litex.build.io import CRG
    from litex.soc.integration.soc_core import SoCCore
    from ecpsata.platforms import sim as simplatform
    platform = simplatform.Platform()
    soc = SoCCore(platform, int(simplatform.SYS_CLK_FREQ), cpu_type=None, with_uart=False,
                  integrated_rom_size=0, with_timer=False, ident="stock")
    soc.crg = CRG(platform.request("sys_clk"))
    return soc, platform


def _registers(soc, folder):
    from litex.soc.integration.builder import Builder
    path = os.path.join(folder, "csr.csv")
    Builder(soc, output_dir=str(folder), compile_software=False, compile_gateware=False,
            csr_csv=path).build(run=False)
    with open(path) as f:
        return {row[1]: row[2] for row in csv.reader(f) if row and not row[0].startswith("#")}


def test_add_ecpsata_puts_the_host_in_a_stock_litex_soc_under_its_name(tmp_path):
    from ecpsata import add_ecpsata
    from ecpsata.phy.sim_serdes import SimSerDes
    soc, platform = _stock_soc()
    host = add_ecpsata(soc, SimSerDes(platform.request("sata_phy"), platform.request("sata_clk")),
                       name="ssd")
    assert host.phy is soc.ssd_phy and host.core is soc.ssd_core and host.errors is soc.ssd_errors
    assert not hasattr(host, "bench") and not hasattr(soc, "ssd_bench")
    regs = _registers(soc, tmp_path)
    for name in ("ssd_phy_status", "ssd_identify_start", "ssd_errors_serror", "ssd_events_count"):
        assert any(r.startswith(name) for r in regs), (name, sorted(regs)[:40])
    assert not any(r.startswith("sata_") for r in regs)
    assert int(regs["ssd_events_depth"]) > 0


def test_add_ecpsata_refuses_events_without_the_error_block():
    from ecpsata import add_ecpsata
    from ecpsata.phy.sim_serdes import SimSerDes
    soc, platform = _stock_soc()
    with pytest.raises(ValueError, match="with_events=True needs with_errors=True"):
        add_ecpsata(soc, SimSerDes(platform.request("sata_phy"), platform.request("sata_clk")),
                    with_errors=False)


def test_a_litex_users_ecp5_build_hands_yosys_relative_paths(tmp_path, monkeypatch):
    """A LiteX user's own SoC with our core, built by LiteX's Builder: just before LiteX runs the
    build script, the Yosys script's sources are relative to the build folder (YoWASP's Yosys
    cannot see the system's temporary folder by its name; tests/soc/test_build.py shows it
    reading the rewritten script there). The tools themselves are not run here."""
    from litex.build.io import CRG
    from litex.build.lattice.trellis import LatticeTrellisToolchain
    from litex.soc.integration.builder import Builder
    from litex.soc.integration.soc_core import SoCCore
    from litex_boards.platforms import lambdaconcept_ecpix5
    from migen import Signal
    from ecpsata import add_ecpsata_ecp5
    from ecpsata.platforms import ecpix5 as pins
    ran = []
    # the tools' run: what the Yosys script says by then
    monkeypatch.setattr(LatticeTrellisToolchain, "run_script",
                        lambda self, script: ran.append(_ys(os.getcwd())))
    platform = lambdaconcept_ecpix5.Platform(device="85F", toolchain="trellis")
    platform.add_extension(pins.extensions)
    soc = SoCCore(platform, 75e6, cpu_type=None, with_uart=False, integrated_rom_size=0,
                  with_timer=False, ident="user")
    soc.crg = CRG(platform.request("clk100"))
    host = add_ecpsata_ecp5(soc, platform.request("sata_serdes"), refclk=Signal(),
                            dual=pins.SATA_DUAL, channel=pins.SATA_CHANNEL)
    assert host.serdes is soc.sata_serdes
    Builder(soc, output_dir=str(tmp_path), compile_software=False).build(run=True)
    assert len(ran) == 1
    reads = [line for line in ran[0].splitlines() if line.startswith("read_verilog")]
    assert reads and all(not w.startswith("/") for line in reads for w in line.split()[1:]), reads


def _ys(folder):
    (name,) = [n for n in os.listdir(folder) if n.endswith(".ys")]
    with open(os.path.join(folder, name)) as f:
        return f.read()
