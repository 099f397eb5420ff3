# SPDX-License-Identifier: BSD-2-Clause
"""The checks that gate CI, as modules (their command lines are thin scripts in scripts/): the
device-side fuzzer (`fuzz`), the fault matrix (`fault_matrix`), the timing sweep over placement
seeds (`seed_sweep`)."""
