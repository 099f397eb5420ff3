# SPDX-License-Identifier: BSD-2-Clause
"""The package's layers only look down: no module imports from a layer above its own.

The order, bottom first, is written here once (doc/architecture.md points to it). A module's
layer is its first folder under ``ecpsata/`` (or its own name for a top-level module). The one
upward import there was (the SoC's firmware header reading the PHY scan's defaults from the host
tools) let a stale firmware build: the Makefile's build inputs leave the host tools out.
"""

import ast
import os

import pytest

PACKAGE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "ecpsata")

# Bottom first; names in one tuple share a floor and may import each other.
LAYERS = (
    ("paths", "pipe", "platforms", "sim"),   # where files are, stream helpers, boards' pins
    ("phy",),                                # the PHY and the ECP5 SerDes
    ("core",),                               # link, transport, command, queued layers
    ("frontend",),                           # crossbar, sector buffer, error block, event log
    ("engines",),                            # the benchmark engines
    ("soc",),                                # the SoCs, their build, the firmware's header
    ("host",),                               # the host tools
    ("checks",),                             # the checks that gate CI (fuzzer, fault matrix, sweep)
    ("__init__", "__main__"),                # the package's face and `python -m ecpsata`
)
FLOOR = {name: i for i, names in enumerate(LAYERS) for name in names}


def _imports(tree, module):
    """The ecpsata layers `tree` (the module `module`, a dotted name) imports from."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:      # relative: resolved against the module's own package
                base = module.split(".")[:-node.level]
                names = [".".join(base + ([node.module] if node.module else []))]
            else:
                names = [node.module or ""]
            # `from ecpsata import host` names the layer in the imported names
            names = [f"{n}.{a.name}" if n == "ecpsata" else n for n in names for a in node.names]
        else:
            continue
        for name in names:
            parts = name.split(".")
            if parts[0] == "ecpsata" and len(parts) > 1:
                yield parts[1], node.lineno


def upward_imports(package):
    """[(file, line, its layer, the layer above it imported)] under the folder `package`."""
    out = []
    root = os.path.dirname(package)
    for folder, dirs, files in os.walk(package):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for f in sorted(files):
            if not f.endswith(".py"):
                continue
            path = os.path.join(folder, f)
            rel = os.path.relpath(path, root)
            module = rel[:-3].replace(os.sep, ".")
            parts = module.split(".")
            own = parts[1]
            if own not in FLOOR:
                out.append((rel, 0, own, "(a layer not in LAYERS)"))
                continue
            for other, line in _imports(ast.parse(open(path).read(), path), module):
                if other not in FLOOR:
                    out.append((rel, line, own, f"{other} (a layer not in LAYERS)"))
                elif FLOOR[other] > FLOOR[own]:
                    out.append((rel, line, own, other))
    return out


def test_every_layer_only_imports_from_its_floor_or_below():
    found = sorted(set(upward_imports(PACKAGE)))
    assert not found, "imports from a layer above:\n" + "\n".join(
        f"  {f}:{line}: {own} imports {other}" for f, line, own, other in found)


@pytest.mark.parametrize("source", [
    "from ecpsata.host import phy\n",
    "import ecpsata.host.phy\n",
    "from ecpsata import host\n",
    "def f():\n    from ecpsata.engines.common import STATES\n",   # inside a function too
    "from ..host import phy\n",
])
def test_a_planted_upward_import_is_found(tmp_path, source):
    """The checker on a small package with one import from `soc` up to `host`, or from `phy` up
    to `engines`: it names the file, its line and both layers."""
    pkg = tmp_path / "ecpsata"
    for layer in ("phy", "soc", "host", "engines"):
        (pkg / layer).mkdir(parents=True)
        (pkg / layer / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    planted = "phy" if "engines" in source else "soc"
    (pkg / planted / "planted.py").write_text(source)
    (pkg / "host" / "fine.py").write_text("from ecpsata.soc import planted\nfrom ..phy import x\n")
    found = upward_imports(str(pkg))
    line = source.count("\n", 0, source.index("from" if "from" in source else "import")) + 1
    assert found == [(os.path.join("ecpsata", planted, "planted.py"), line, planted,
                      "engines" if planted == "phy" else "host")]


def test_an_unknown_layer_is_refused(tmp_path):
    """A new folder must be given its floor in LAYERS before it passes."""
    pkg = tmp_path / "ecpsata" / "newlayer"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    assert upward_imports(str(tmp_path / "ecpsata")) == [
        (os.path.join("ecpsata", "newlayer", "__init__.py"), 0, "newlayer",
         "(a layer not in LAYERS)")]
