# SPDX-License-Identifier: BSD-2-Clause
"""Where ecpsata's files are: ``PACKAGE``, the installed package (firmware sources, simulator
modules, the virtual drive's C sources), and ``ROOT``, the folder that holds ``build/`` and
``results/``: the repository in a clone (editable install), else the working directory."""
import os
import sys

PACKAGE = os.path.dirname(os.path.abspath(__file__))


def _root():
    up = os.path.dirname(PACKAGE)
    if os.path.exists(os.path.join(up, "pyproject.toml")):
        return up
    return os.getcwd()


ROOT = _root()
# The environment's tools (Yosys, nextpnr, ecppack, litex_server) sit beside its Python.
TOOLS = os.path.dirname(sys.executable)
