# SPDX-License-Identifier: BSD-2-Clause
"""The fault matrix (ecpsata/checks/fault_matrix.py, every row: under a minute) on the simulated board:
each fault ends in the named outcome within 10 ms of device time (a timeout where it is the only
signal), no silent corruption, and the next command works."""

import pytest

from ecpsata.checks import fault_matrix as fm
from tests.system.test_sim_system import sim_built  # noqa: F401

# The simulated SoC in Verilator (build/sim, build/ecpix5_sim): `pytest -m "not system"` leaves these out.
pytestmark = pytest.mark.system


ROWS = list(fm.EXPECTED.items())


@pytest.mark.parametrize("key,expected", ROWS, ids=[f"{k[0] or 'none'}-{k[1]}" for k, _ in ROWS])
def test_fault_row(sim_built, tmp_path, key, expected):
    # Row i's board with its clocks placed by clock seed i + 1 (`fault_matrix.py --clock-seed 1`
    # does the same), so that the matrix runs over the word clock's phases against sys.
    fault, op = key
    res = fm.run_row(fault, op, str(tmp_path), clock_seed=ROWS.index((key, expected)) + 1)
    print(res)
    assert fm.judge(res, expected) == [], res
