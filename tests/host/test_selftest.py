# SPDX-License-Identifier: BSD-2-Clause
"""`ecpsata selftest` without a target: the BER bound, the verdict for each failure, the
arguments refused before anything is sent."""

import pytest

from ecpsata.host import cli
from ecpsata.host.selftest import diagnose, poisson_upper


def test_poisson_upper_limits_at_95_percent():
    # the classic one-sided 95 % limits on a Poisson mean for 0, 1, 2 and 10 events
    for k, limit in ((0, 2.996), (1, 4.744), (2, 6.296), (10, 16.962)):
        assert poisson_upper(k) == pytest.approx(limit, abs=2e-3)


def good(**kw):
    r = dict(tx_pll_locked=1, rx_cdr_locked=1, tx_clock_mhz=150.0, rx_clock_mhz=150.0,
             loopback="t2r", lock_time=300, dwords=10**9, bits=32 * 10**9, dword_errors=0,
             bit_errors=0, code_errors=0, disp_errors=0, aligns=100, aligns_inverted=0,
             sync_losses=0,
             ber_bound=2.996 / (32 * 10**9))
    r.update(kw)
    return r


@pytest.mark.parametrize("changes, verdict, words", [
    ({}, "PASS", "0 errors in 3.2e+10 bits: BER < 9.4e-11 at 95% confidence"),
    ({"tx_pll_locked": 0, "rx_cdr_locked": 0, "lock_time": 0}, "FAIL", "TX PLL not locked"),
    ({"rx_cdr_locked": 0, "lock_time": 0}, "FAIL", "CDR not locked"),
    ({"lock_time": 0, "dwords": 0, "aligns": 0, "aligns_inverted": 40}, "FAIL",
     "polarity is swapped"),
    ({"lock_time": 0, "dwords": 0, "code_errors": 900}, "FAIL", "stuck or broken bit"),
    ({"lock_time": 0, "dwords": 0}, "FAIL", "no PRBS data came back"),
    ({"bit_errors": 3, "dword_errors": 2}, "FAIL", "3 bit errors in 2 dwords"),
    ({"dwords": 0, "bits": 0}, "FAIL", "checked no dwords"),
])
def test_each_failure_has_its_own_reason(changes, verdict, words):
    v, reason = diagnose(good(**changes), near_end=True)
    assert v == verdict and words in reason, reason


def test_a_near_end_cdr_failure_suggests_another_lb_ctl_and_the_far_end():
    v, reason = diagnose(good(rx_cdr_locked=0, lock_time=0), near_end=True)
    assert "(t2r) may not loop" in reason and "try --lb-ctl with another value" in reason
    assert "--far-end with a loopback plug" in reason


def test_far_end_reasons_name_the_plug():
    v, reason = diagnose(good(rx_cdr_locked=0, lock_time=0), near_end=False)
    assert v == "FAIL" and "loopback plug or cable" in reason


@pytest.mark.parametrize("args, words", [
    (["selftest", "--lb-ctl", "0"], "a loopback control value 1..15"),
    (["selftest", "--lb-ctl", "16"], "a loopback control value 1..15"),
    (["selftest", "--seconds", "0"], "above 0 and at most 57"),
    (["selftest", "--seconds", "60"], "above 0 and at most 57"),
    (["selftest", "--gen", "3"], "invalid choice"),
    (["selftest", "--loopback", "other"], "invalid choice"),
    (["selftest", "--loopback", "luna"], "invalid choice"),  # an echo, not a self-test
    (["selftest", "--loopback", "t2r", "--far-end"], "not allowed with argument"),
    (["selftest", "--lb-ctl", "2", "--loopback", "t2r"], "not allowed with argument"),
])
def test_bad_arguments_are_refused_before_any_connection(args, words, capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(["--port", "1"] + args)
    assert e.value.code == 2 and words in capsys.readouterr().err
