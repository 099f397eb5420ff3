# SPDX-License-Identifier: BSD-2-Clause
"""`make test` runs pytest on every core (pytest-xdist, --dist loadgroup) and relies on
tests/conftest.py to keep the simulated-SoC tests in one worker: check that the installed pytest
and pytest-xdist really do so (a pytest that xdist does not support spreads them silently)."""

import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

TESTS = '''
import os
import pytest

pytestmark = pytest.mark.system

@pytest.mark.parametrize("n", range(6))
def test_system(n):
    with open("workers.log", "a") as f:
        f.write(os.environ["PYTEST_XDIST_WORKER"] + "\\n")

@pytest.mark.parametrize("n", range(6))
def test_other(n):
    pass
'''


def test_simulated_soc_tests_run_in_one_worker(tmp_path):
    shutil.copy(os.path.join(HERE, "conftest.py"), tmp_path / "conftest.py")
    (tmp_path / "test_group.py").write_text(TESTS)
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n    system: simulated SoC\n")
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2",
                        "--dist", "loadgroup", "."], cwd=tmp_path, capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "12 passed" in p.stdout, p.stdout
    workers = (tmp_path / "workers.log").read_text().split()
    assert len(workers) == 6 and len(set(workers)) == 1, workers
