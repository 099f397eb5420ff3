# SPDX-License-Identifier: BSD-2-Clause
"""The one board list (ecpsata/soc/boards.py): each target module declares its board once, and
the build, the identity register, the loader, the simulated-board runner, the Makefile and the
firmware's board names all follow it. A board added as one target module shows up everywhere."""

import os
import subprocess
import sys

import pytest

from ecpsata.soc import boards, codes
from ecpsata.soc import targets

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

NEW_TARGET = '''
from ecpsata.soc.boards import Board
BOARD = Board("{name}", {code}, "a board added for a test", simulated={simulated},
              programmer={programmer})

def make_soc(firmware_init, args):
    raise NotImplementedError

def build_kwargs(args):
    return {{}}
'''


@pytest.fixture
def extra_targets(tmp_path, monkeypatch):
    """A folder of extra target modules, searched with ecpsata/soc/targets/."""
    monkeypatch.setattr(targets, "__path__", [*targets.__path__, str(tmp_path)])
    monkeypatch.setattr(boards, "_BOARDS", None)
    yield tmp_path
    for name in os.listdir(tmp_path):
        sys.modules.pop(f"ecpsata.soc.targets.{name[:-3]}", None)
    boards._BOARDS = None


def test_the_boards_are_the_target_modules():
    folder = os.path.dirname(targets.__file__)
    modules = sorted(f[:-3] for f in os.listdir(folder) if f.endswith(".py") and f != "__init__.py")
    assert sorted(boards.names()) == modules == ["ecpix5", "ecpix5_sim", "sim", "versa_ecp5"]
    assert boards.names("loadable") == ["ecpix5", "versa_ecp5"]
    assert boards.names("simulated") == ["sim", "ecpix5_sim"]
    assert boards.names("placed") == ["ecpix5", "versa_ecp5"]
    # the identity register's codes of builds made before the list, unchanged
    assert {b.name: b.code for b in boards.boards().values()} == \
        {"sim": 1, "ecpix5": 2, "versa_ecp5": 3, "ecpix5_sim": 4}
    for name in boards.names():
        t = boards.target(name)
        assert callable(t.make_soc) and callable(t.build_kwargs)


def test_the_firmware_names_the_boards_of_the_list():
    header = codes.codes_header()
    assert '#define BOARD_NAMES { \\\n\t{1, "sim"}, \\\n\t{2, "ecpix5"}, \\\n\t{3, "versa_ecp5"}, ' \
           '\\\n\t{4, "ecpix5_sim"} \\\n}' in header


def test_an_unknown_board_is_refused_by_name():
    with pytest.raises(KeyError, match="no board 'kc705': one of sim, ecpix5, versa_ecp5, ecpix5_sim"):
        boards.board("kc705")
    out = subprocess.run([sys.executable, "-m", "ecpsata.soc.boards", "simulated-variant",
                          "versa_ecp5"], capture_output=True, text=True, cwd=REPO, timeout=60)
    assert out.returncode == 1
    assert "board 'versa_ecp5' has no simulated variant (boards with one: ecpix5)" in out.stderr


def test_a_board_is_one_target_module(extra_targets):
    (extra_targets / "newboard.py").write_text(NEW_TARGET.format(
        name="newboard", code=9, simulated=False, programmer=("--cable", "ft2232")))
    (extra_targets / "newboard_model.py").write_text(NEW_TARGET.format(
        name="newboard_model", code=10, simulated=True, programmer=None))
    assert boards.names()[-2:] == ["newboard", "newboard_model"]
    assert "newboard" in boards.names("loadable") and "newboard" in boards.names("placed")
    assert "newboard_model" in boards.names("simulated")
    assert '{9, "newboard"}' in codes.codes_header()
    from ecpsata.soc import build, load
    from ecpsata.host import simboard
    with pytest.raises(SystemExit) as e:       # argparse's choices come from the list
        build.main(["newboard", "--help"])
    assert e.value.code == 0
    with pytest.raises(SystemExit, match="no .bit in"):
        load.main(["newboard"])
    with pytest.raises(simboard.SimBoardError, match="one of sim, ecpix5_sim, newboard_model"):
        simboard.SimBoard(board="nosuch")


@pytest.mark.parametrize("text, error", [
    ('X = 1\n', "declares BOARD = Board"),
    ('from ecpsata.soc.boards import Board\nBOARD = Board("other", 9, "t")\n', "is not the module's name"),
    ('from ecpsata.soc.boards import Board\nBOARD = Board("dup", 2, "t")\n', "board codes must be distinct"),
])
def test_a_wrong_declaration_is_refused(extra_targets, text, error):
    (extra_targets / "dup.py").write_text(text)
    with pytest.raises(ImportError, match=error):
        boards.boards()
