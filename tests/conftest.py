# SPDX-License-Identifier: BSD-2-Clause
"""Test ordering for parallel runs (pytest -n N --dist loadgroup, as `make test` runs them).

The simulated-SoC tests (marker `system`) share the Verilator build folder and run one after the
other in one worker; the Migen and host tests spread over the others. They go first, so that the
long serial group starts at once instead of last.
"""

import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.get_closest_marker("system"):
            item.add_marker(pytest.mark.xdist_group("simulated-soc"))
    items.sort(key=lambda item: item.get_closest_marker("system") is None)

