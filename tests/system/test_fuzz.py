# SPDX-License-Identifier: BSD-2-Clause
"""The device-side fuzzer's regression seeds (ecpsata/checks/fuzz.py) on the simulated SoC: with the
virtual drive sending wrong frames at random, no command hangs, no wrong data is reported as good,
and after every failure the next command works; `make fuzz` runs more cases."""

import pytest

from ecpsata.checks import fuzz
from tests.system.test_sim_system import sim_built  # noqa: F401

# The simulated SoC in Verilator (build/sim, build/ecpix5_sim): `pytest -m "not system"` leaves these out.
pytestmark = pytest.mark.system



@pytest.mark.parametrize("seed", fuzz.REGRESSION)
def test_fuzz_regression_seed(sim_built, tmp_path, seed):
    # Each case's board with its clocks placed by the case's own seed (another phase of the word
    # clock against sys, the drive's clock off ours), so that the regression runs over phases.
    case = fuzz.Case(seed, 0.05, str(tmp_path), clock_seed=seed).run()
    c = case.counts()
    print(fuzz.summary(c, case.recoveries_failed), "clocks", case.clocks)
    bad = [r for r in case.results if r[1] in ("hung", "wrong")]
    assert c["hung"] == 0 and c["wrong"] == 0, bad
    assert case.recoveries_failed == 0
    assert sum(c.values()) == fuzz.ROUNDS * len(fuzz.OPS)
    # A command the drive broke a rule in ends with the rule named; only a frame the drive never
    # sent (a drop: a status, a completion, a DMA Activate) leaves nothing but a timeout.
    timeouts = [r for r in case.results if r[4] and fuzz.is_timeout(r[4])]
    assert not timeouts or any(" drop" in a for a in case.fuzz_log), (timeouts, case.fuzz_log)
