"""The scaled-down fault matrix (scripts/fault_matrix.py --quick) on the simulated board: each
fault ends in the named outcome within 10 ms of device time (a timeout where it is the only
signal), no silent corruption, and the next command works."""

import importlib.util
import os

import pytest

from tests.test_sim_system import REPO, sim_built  # noqa: F401

spec = importlib.util.spec_from_file_location("fault_matrix",
                                              os.path.join(REPO, "scripts", "fault_matrix.py"))
fm = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fm)

QUICK = [(k, v[0]) for k, v in fm.EXPECTED.items() if v[1]]


@pytest.mark.parametrize("key,expected", QUICK, ids=[f"{k[0]}-{k[1]}" for k, _ in QUICK])
def test_fault_row(sim_built, tmp_path, key, expected):
    fault, op = key
    res = fm.run_row(fault, op, str(tmp_path))
    print(res)
    assert fm.judge(res, expected) == [], res
