# SPDX-License-Identifier: BSD-2-Clause
"""Host tools of ecpsata: the benchmark CLI (`python -m ecpsata`) and the simulated-board runner."""
