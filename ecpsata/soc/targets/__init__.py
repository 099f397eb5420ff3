# SPDX-License-Identifier: BSD-2-Clause
"""The board targets: one module per board, each declaring its ``BOARD`` (ecpsata/soc/boards.py)
and its SoC (``make_soc``, ``build_kwargs``, optionally ``add_args``)."""
