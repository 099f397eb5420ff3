# SPDX-License-Identifier: BSD-2-Clause
"""Tests of the checks that gate CI (ecpsata/checks/)."""
