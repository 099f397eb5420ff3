# SPDX-License-Identifier: BSD-2-Clause
"""The one switch for waveforms in the Migen tests: ``ECPSATA_VCD=1`` makes every harness write
``build/vcd/<name>.vcd`` in the repository (none by default: they are large and slow to write)."""

import os

from ecpsata.paths import ROOT


def vcd_path(name):
    """Where the simulation called ``name`` writes its waveform, or None when waveforms are off."""
    if not name or not os.environ.get("ECPSATA_VCD"):
        return None
    folder = os.path.join(ROOT, "build", "vcd")
    os.makedirs(folder, exist_ok=True)
    return os.path.join(folder, f"{name}.vcd")
