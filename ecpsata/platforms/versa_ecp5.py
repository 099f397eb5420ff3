# SPDX-License-Identifier: BSD-2-Clause
"""ECP5-5G Versa: SATA through the SMA pairs (litex-boards `sma_tx` W8/W9, `sma_rx` Y7/Y8), which
sit on DCU0 channel 1. A SMA-to-SATA adapter (with AC coupling) connects the drive."""

SATA_DUAL, SATA_CHANNEL = 0, 1
