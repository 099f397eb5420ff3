# SPDX-License-Identifier: BSD-2-Clause
"""Host tools of ecpsata: the benchmark CLI (`python -m bench`) and the simulated-board runner."""
