# SPDX-License-Identifier: BSD-2-Clause
"""The SNIA PTS steady-state rule (data excursion <= 20 % and slope excursion <= 10 % of the
window's average over five rounds) and the FOB / steady ratio, on series worked out by hand."""

import pytest

from ecpsata.host.steady import (evaluate_window, find_steady_state, fob_ratio,
                                 least_squares_slope)


def test_least_squares_slope():
    assert least_squares_slope([1, 2, 3, 4, 5]) == pytest.approx(1.0)
    assert least_squares_slope([10, 10, 10]) == 0.0
    # x = 0..4, mean 2; y - 100 = 0, 0, 1, -1, 0: sum (x - 2)(y - ybar) = -1, sum (x - 2)^2 = 10.
    assert least_squares_slope([100, 100, 101, 99, 100]) == pytest.approx(-0.1)


def test_holds_at_round_8():
    # FOB rounds fall, then the drive settles from round 4. Windows starting at rounds 1-3 fail
    # the range rule (100/134, 50/114.2, 31/106), rounds 4-8 hold: range 2 (2 %), slope -0.1,
    # slope excursion 0.4 (0.4 %).
    series = [200, 150, 130, 100, 100, 101, 99, 100, 100, 100]
    s = find_steady_state(series)
    assert s.reached and (s.window.first, s.window.last) == (4, 8) and s.rounds == 8
    assert s.window.average == pytest.approx(100.0)
    assert s.window.range == pytest.approx(2.0)
    assert s.window.slope == pytest.approx(-0.1)
    assert s.window.slope_excursion == pytest.approx(0.4)
    assert s.average == pytest.approx(100.0)
    assert s.describe().startswith("steady state reached at round 8 (rounds 4-8:")


def test_flat_from_the_first_window():
    s = find_steady_state([500, 500, 500, 500, 500, 10, 10])
    assert s.reached and (s.window.first, s.window.last) == (1, 5)
    assert (s.window.range, s.window.slope, s.window.slope_excursion) == (0.0, 0.0, 0.0)


def test_round_numbers_follow_the_caller():
    s = find_steady_state([500] * 5, first_round=11)
    assert (s.window.first, s.window.last) == (11, 15)


def test_slope_fails_alone():
    # 100..112 by 3: average 106, range 12 (11.3 % <= 20 %), slope 3, excursion 12 (11.3 % > 10 %).
    w = evaluate_window([100, 103, 106, 109, 112])
    assert w.range_ok and not w.slope_ok and not w.held
    assert w.slope == pytest.approx(3.0) and w.slope_excursion == pytest.approx(12.0)
    s = find_steady_state([100, 103, 106, 109, 112])
    assert not s.reached and s.window.first == 1 and not s.window.slope_ok


def test_range_fails_alone():
    # 100, 125, 100, 125, 100: slope 0 (symmetric), range 25 on an average of 110 (22.7 %).
    w = evaluate_window([100, 125, 100, 125, 100])
    assert w.slope == pytest.approx(0.0, abs=1e-12) and w.slope_ok
    assert not w.range_ok and w.range == 25 and w.average == 110


def test_limits_are_inclusive():
    # Range exactly 20 % of the average (20 on 100); slope 2, excursion 8 %.
    w = evaluate_window([90, 110, 90, 110, 100])
    assert w.average == 100 and w.range == 20 and w.range_ok and w.held
    # Slope excursion exactly 10 %: 95..105 by 2.5, average 100, slope 2.5, excursion 2.5 * 4.
    w = evaluate_window([95, 97.5, 100, 102.5, 105])
    assert w.slope_excursion == pytest.approx(10.0) and w.slope_ok and w.range_ok


def test_never_holds():
    # A decline of 5 % a round never settles: every window's range and slope excursion are
    # about 20.5 % of its average.
    series = [1000 * 0.95 ** i for i in range(30)]
    s = find_steady_state(series)
    assert not s.reached and s.rounds == 30 and (s.window.first, s.window.last) == (26, 30)
    assert not s.window.range_ok and not s.window.slope_ok
    assert "NOT reached in 30 rounds" in s.describe()
    with pytest.raises(ValueError, match="NOT reached"):
        s.average


def test_round_limit_says_not_reached():
    # Settles at rounds 4-8, but the run stopped after 7 rounds.
    series = [200, 150, 130, 100, 100, 101, 99, 100, 100, 100]
    s = find_steady_state(series, round_limit=7)
    assert not s.reached and s.rounds == 7 and s.round_limit == 7
    assert (s.window.first, s.window.last) == (3, 7)
    assert s.describe().startswith("steady state NOT reached within the 7-round limit "
                                   "(last window rounds 3-7:")
    assert find_steady_state(series, round_limit=8).reached


def test_too_few_rounds():
    s = find_steady_state([100, 100, 100])
    assert not s.reached and s.window is None
    assert s.describe() == "steady state not reached: 3 round(s), a window needs 5"


def test_bad_input():
    with pytest.raises(ValueError, match="round 3"):
        find_steady_state([1, 2, -3, 4, 5])
    with pytest.raises(ValueError, match="round 2"):
        find_steady_state([1, float("nan"), 3, 4, 5])
    with pytest.raises(ValueError, match="at least 2"):
        find_steady_state([1, 2, 3], window=1)


def test_fob_ratio():
    assert fob_ratio(90000, 30000) == pytest.approx(3.0)
    s = find_steady_state([200, 150, 130, 100, 100, 101, 99, 100, 100, 100])
    assert fob_ratio(200, s) == pytest.approx(2.0)
    with pytest.raises(ValueError, match="NOT reached"):
        fob_ratio(200, find_steady_state([100, 103, 106, 109, 112]))
    with pytest.raises(ValueError, match="above 0"):
        fob_ratio(1, 0)
