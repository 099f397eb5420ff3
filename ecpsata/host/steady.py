# SPDX-License-Identifier: BSD-2-Clause
"""Steady state by the rule of the SNIA Solid State Storage Performance Test Specification (PTS),
and the fresh-out-of-box (FOB) to steady-state ratio.

The PTS tracks one variable per round (IOPS, MB/s or a latency) and calls the drive steady over a
measurement window of consecutive rounds (five here, as the PTS uses) when both hold:
- data excursion: max(y) - min(y) over the window is no more than 20 % of the window's average;
- slope excursion: the least-squares line through the window's values, taken from the window's
  first round to its last, moves by no more than 10 % of the average; for rounds x = 0..n-1 that
  is |slope| * (n - 1).
The first window where both hold is the steady-state window; its average is the steady figure.

# Ref: SNIA Solid State Storage (SSS) Performance Test Specification (PTS), version 2.0.x:
#      definitions of Steady State, Measurement Window, Data Excursion and Slope Excursion
"""

import math
from dataclasses import dataclass

WINDOW_ROUNDS = 5
RANGE_LIMIT = 0.20     # data excursion, fraction of the window's average
SLOPE_LIMIT = 0.10     # slope excursion, fraction of the window's average
# Values arrive as floats; a window exactly on a limit (a range of 20.0 on an average of 100.0)
# holds, as "no more than" says, whatever the last bit of the product.
_EPS = 1e-9


@dataclass(frozen=True)
class Window:
    """One measurement window: rounds first..last (the caller's round numbers), its average, the
    least-squares slope per round, the data excursion (max - min), the slope excursion
    (|slope| * (rounds - 1)) and which rule held."""
    first: int
    last: int
    average: float
    slope: float
    range: float
    slope_excursion: float
    range_ok: bool
    slope_ok: bool

    @property
    def held(self):
        return self.range_ok and self.slope_ok

    def percent(self, amount):
        return 100.0 * amount / self.average if self.average else math.inf

    def describe(self):
        return (f"rounds {self.first}-{self.last}: average {self.average:.6g}, range "
                f"{self.range:.6g} ({self.percent(self.range):.1f} % of average, limit "
                f"{100 * RANGE_LIMIT:.0f} %), slope excursion {self.slope_excursion:.6g} "
                f"({self.percent(self.slope_excursion):.1f} %, limit {100 * SLOPE_LIMIT:.0f} %)")


@dataclass(frozen=True)
class SteadyState:
    """The outcome: reached, the steady window (or, when not reached, the last window examined,
    None if there were too few rounds for one), how many rounds were examined and the limit."""
    reached: bool
    window: Window | None
    rounds: int
    round_limit: int | None
    window_rounds: int = WINDOW_ROUNDS

    @property
    def average(self):
        """The steady figure; ValueError when steady state was not reached (no figure to use)."""
        if not self.reached:
            raise ValueError(self.describe())
        return self.window.average

    def describe(self):
        if self.reached:
            return f"steady state reached at round {self.window.last} ({self.window.describe()})"
        if self.window is None:
            return (f"steady state not reached: {self.rounds} round(s), a window needs "
                    f"{self.window_rounds}")
        within = (f"within the {self.round_limit}-round limit" if self.round_limit is not None
                  else f"in {self.rounds} rounds")
        return f"steady state NOT reached {within} (last window {self.window.describe()})"


def least_squares_slope(values):
    """Slope of the least-squares line through (0, v0), (1, v1), ..."""
    n = len(values)
    if n < 2:
        return 0.0
    mx = (n - 1) / 2
    my = sum(values) / n
    sxx = sum((x - mx) ** 2 for x in range(n))
    return sum((x - mx) * (y - my) for x, y in enumerate(values)) / sxx


def evaluate_window(values, first_round=1, range_limit=RANGE_LIMIT, slope_limit=SLOPE_LIMIT):
    """The Window for these consecutive round values (the first is round `first_round`)."""
    values = [float(v) for v in values]
    if len(values) < 2:
        raise ValueError("a measurement window needs at least 2 rounds")
    avg = sum(values) / len(values)
    slope = least_squares_slope(values)
    rng = max(values) - min(values)
    slope_exc = abs(slope) * (len(values) - 1)
    return Window(first=first_round, last=first_round + len(values) - 1, average=avg,
                  slope=slope, range=rng, slope_excursion=slope_exc,
                  range_ok=rng <= range_limit * avg + _EPS * abs(avg),
                  slope_ok=slope_exc <= slope_limit * avg + _EPS * abs(avg))


def find_steady_state(values, window=WINDOW_ROUNDS, round_limit=None, first_round=1,
                      range_limit=RANGE_LIMIT, slope_limit=SLOPE_LIMIT):
    """Find the first window of `window` consecutive rounds that holds both rules.

    values: the tracked variable per round, in order (round `first_round` first); round_limit:
    examine only the first round_limit rounds (the run's cap) and report "not reached" past it.
    Returns SteadyState. Raises ValueError for a negative or non-finite value or a window below
    2 rounds."""
    if window < 2:
        raise ValueError(f"a window of {window} round(s): at least 2 are needed")
    values = list(values)
    for i, v in enumerate(values):
        if not math.isfinite(v) or v < 0:
            raise ValueError(f"round {first_round + i}: {v!r} is not a measurement (finite, >= 0)")
    if round_limit is not None:
        values = values[:round_limit]
    last = None
    for start in range(len(values) - window + 1):
        last = evaluate_window(values[start:start + window], first_round + start,
                               range_limit, slope_limit)
        if last.held:
            return SteadyState(True, last, start + window, round_limit, window)
    return SteadyState(False, last, len(values), round_limit, window)


def fob_ratio(fob, steady):
    """Fresh-out-of-box figure over the steady-state figure (e.g. 3.2: FOB ran 3.2 times the
    steady IOPS). steady: a number or a SteadyState (which must have been reached)."""
    if isinstance(steady, SteadyState):
        steady = steady.average
    if not steady > 0:
        raise ValueError(f"steady-state figure {steady!r}: a ratio needs one above 0")
    return fob / steady
