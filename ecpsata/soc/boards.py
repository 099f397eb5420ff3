# SPDX-License-Identifier: BSD-2-Clause
"""The one list of boards: every module of ``ecpsata/soc/targets/`` declares its board once, as
``BOARD = Board(...)``; the build, the identity register, the loader, the simulated-board runner,
the Makefile's checks and the firmware's board names all read it from here.

    python -m ecpsata.soc.boards [names|loadable|simulated|placed] [--sep TEXT]
    python -m ecpsata.soc.boards simulated-variant BOARD

Adding a board: a target module in ``ecpsata/soc/targets/`` (and, where LiteX's boards lack its
pins, a platform file in ``ecpsata/platforms/``); doc/architecture.md has the steps.
"""

import argparse
import dataclasses
import importlib
import pkgutil
import sys

TARGETS = "ecpsata.soc.targets"


@dataclasses.dataclass(frozen=True)
class Board:
    """A board target. `name`: its name everywhere (make's BOARD, build/NAME/, the target module's
    name); `code`: the identity block's board register (never reused); `text`: one line for
    listings; `simulated`: built with Verilator, run by the simulated-board runner; `programmer`:
    openFPGALoader's arguments that find the board's cable (None: nothing to load);
    `simulated_variant`: the simulated board that runs this board's own SoC, if any."""
    name: str
    code: int
    text: str
    simulated: bool = False
    programmer: tuple = None
    simulated_variant: str = None

    @property
    def module(self):
        return f"{TARGETS}.{self.name}"


def _load():
    package = importlib.import_module(TARGETS)
    found = {}
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{TARGETS}.{info.name}")
        board = getattr(module, "BOARD", None)
        if not isinstance(board, Board):
            raise ImportError(f"{module.__name__}: a target module declares BOARD = Board(...)")
        if board.name != info.name:
            raise ImportError(f"{module.__name__}: BOARD.name {board.name!r} is not the module's name")
        found[board.name] = board
    codes = [b.code for b in found.values()]
    if len(set(codes)) != len(codes) or not all(0 < c < 256 for c in codes):
        raise ImportError(f"board codes must be distinct, 1..255: {codes}")
    for b in found.values():
        if b.simulated_variant is not None:
            v = found.get(b.simulated_variant)
            if v is None or not v.simulated or v.name != f"{b.name}_sim":
                # the Makefile names the simulated variant BOARD_sim
                raise ImportError(f"{b.name}: simulated_variant {b.simulated_variant!r} must be a "
                                  f"simulated target named {b.name}_sim")
    return dict(sorted(found.items(), key=lambda kv: kv[1].code))


_BOARDS = None


def boards():
    """{name: Board}, by code."""
    global _BOARDS
    if _BOARDS is None:
        _BOARDS = _load()
    return _BOARDS


def board(name):
    """The Board named `name`; a readable error naming the boards there are."""
    try:
        return boards()[name]
    except KeyError:
        raise KeyError(f"no board {name!r}: one of {', '.join(boards())}") from None


def target(name):
    """The target module of board `name`."""
    return importlib.import_module(board(name).module)


SELECTIONS = {
    "names": lambda b: True,
    "loadable": lambda b: b.programmer is not None,
    "simulated": lambda b: b.simulated,
    "placed": lambda b: not b.simulated,          # built into a bitstream
}


def names(selection="names"):
    return [b.name for b in boards().values() if SELECTIONS[selection](b)]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("what", nargs="?", default="names", choices=[*SELECTIONS, "simulated-variant"])
    p.add_argument("board", nargs="?")
    p.add_argument("--sep", default="\n")
    args = p.parse_args(argv)
    if args.what == "simulated-variant":
        b = boards().get(args.board)
        if b is None or b.simulated_variant is None:
            with_sim = [n for n, x in boards().items() if x.simulated_variant]
            sys.exit(f"error: BRIDGE=sim: board {args.board!r} has no simulated variant "
                     f"(boards with one: {', '.join(with_sim)})")
        print(b.simulated_variant)
        return
    print(args.sep.join(names(args.what)))


if __name__ == "__main__":
    # run as the package's module, so that the targets' Board is this Board
    importlib.import_module("ecpsata.soc.boards").main()
