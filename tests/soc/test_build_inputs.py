# SPDX-License-Identifier: BSD-2-Clause
"""A change in any file the build reads rebuilds it: the Makefile's stamp (build/BOARD/.built)
against the build's own record of what it read (build/BOARD/.built.d, ecpsata/soc/build.py).

The case that went wrong: the firmware's generated header (ecpsata/soc/codes.py) read the PHY
scan's defaults from the host tools, which the Makefile's inputs left out; a changed scan set
then left `make build` "up to date" with a firmware that disagreed with the host tools.

Each check runs make in a scratch copy of the repository's Makefile and package (make's
dry run, `-n`, with `-W FILE`: as if FILE had just changed), with the stamp newer than every
input, so that only the changed file can ask for a rebuild.
"""

import os
import shutil
import subprocess
import sys
import time

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Run in a fresh interpreter in the scratch copy: what a build's process has read once the
# firmware's header is generated, recorded as the build records it.
RECORD = """
import sys
from ecpsata.soc import build
from ecpsata.soc.targets import sim
from ecpsata.soc.codes import codes_header, experiment_files
codes_header()
header = sorted(m.__file__ for m in list(sys.modules.values())
                if getattr(m, "__file__", None) and "/ecpsata/" in m.__file__)
header += experiment_files()   # read as data (the console's help lines), not imported
build.write_depfile(sys.argv[1], build.build_sources(sim))
print("\\n".join("input " + f for f in header))
"""


def _scratch(tmp_path, with_record=True):
    """A copy of the Makefile and the package in tmp_path, the sim build's stamp newer than all
    of it; returns (folder, the header's inputs relative to it)."""
    root = tmp_path / "repo"
    root.mkdir()
    for f in ("Makefile", "requirements.txt", "pyproject.toml"):
        shutil.copy2(os.path.join(REPO, f), root / f)
        os.utime(root / f, (0, 0))     # older than the environment's stamp: no setup to redo
    shutil.copytree(os.path.join(REPO, "ecpsata"), root / "ecpsata",
                    ignore=shutil.ignore_patterns("build", "__pycache__", "*.o"))
    os.symlink(os.path.join(REPO, ".venv"), root / ".venv")
    os.symlink(os.path.join(REPO, "scripts"), root / "scripts")
    build = root / "build" / "sim"
    build.mkdir(parents=True)
    env = dict(os.environ, PYTHONPATH=str(root))
    out = subprocess.run([sys.executable, "-c", RECORD, str(build)], cwd=root, env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    header = [os.path.relpath(line[6:], root) for line in out.stdout.splitlines()
              if line.startswith("input ")]
    if not with_record:
        os.remove(build / ".built.d")
    later = time.time() + 60
    (build / ".built").write_text("")
    os.utime(build / ".built", (later, later))
    return root, header


def _rebuilds(root, changed):
    out = subprocess.run(["make", "-n", "-W", changed, "build/sim/.built"], cwd=root,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return "ecpsata.soc.build sim" in out.stdout


def test_every_input_of_the_firmware_header_rebuilds(tmp_path):
    root, header = _scratch(tmp_path)
    assert "ecpsata/soc/codes.py" in header and "ecpsata/phy/ecp5/settings.py" in header
    assert "ecpsata/host/experiments/single.py" in header
    assert not _rebuilds(root, "README.md"), "the stamp is not up to date to begin with"
    missed = [f for f in header if not _rebuilds(root, f)]
    assert not missed, f"changed, but `make build` says up to date: {missed}"


def test_a_firmware_source_and_a_simulator_source_rebuild(tmp_path):
    root, _ = _scratch(tmp_path)
    for f in ("ecpsata/firmware/cmd_phy.c", "ecpsata/firmware/sata.h",
              "ecpsata/sim/vdrive/src/link.c", "ecpsata/sim/litex_modules/tcpuart/tcpuart.c"):
        assert os.path.exists(root / f), f
        assert _rebuilds(root, f), f


@pytest.mark.parametrize("changed", ["ecpsata/host/cli.py", "ecpsata/host/report.py"])
def test_a_host_tool_the_build_does_not_read_does_not_rebuild(tmp_path, changed):
    """The host tools are not read by the build (the layers only look down): changing one keeps
    the slow builds cached."""
    root, header = _scratch(tmp_path)
    assert changed not in header
    assert not _rebuilds(root, changed)


def test_a_file_the_build_read_and_that_is_gone_does_not_stop_make(tmp_path):
    root, _ = _scratch(tmp_path)
    gone = "ecpsata/phy/ecp5/settings.py"
    assert gone in open(root / "build" / "sim" / ".built.d").read()
    os.remove(root / gone)
    assert _rebuilds(root, "ecpsata/soc/codes.py")


def test_a_build_without_its_record_depends_on_every_source(tmp_path):
    root, _ = _scratch(tmp_path, with_record=False)
    assert _rebuilds(root, "ecpsata/host/cli.py")
    assert _rebuilds(root, "ecpsata/soc/codes.py")
