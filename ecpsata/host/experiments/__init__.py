# SPDX-License-Identifier: BSD-2-Clause
"""The experiments of doc/benchmarks.md, one module each, and the one registry every other part
reads: the CLI's subcommands and options (cli.py), the scaled-down suite, the terminal tables,
JSON and CSV (report.py), the plots, the HTML page (htmlreport.py) and the README's command table
(`python -m ecpsata.host.experiments readme`).

An experiment is a module of this package that declares `EXPERIMENT = Experiment(...)`: its run
function, its options, its tables, its plot, its place in the suite and its catalogue entry (what
it measures and the public document it reproduces). Modules whose name starts with "_" hold what
several experiments share. The firmware keeps its own implementations of the same experiments
(ecpsata/firmware/cmd_bench.c, cmd_access.c, cmd_qbench.c), as the console needs them without a
host; their lines in the console's `help` come from here (`console=`), through the firmware's
generated header: a console command without its line here does not compile.
"""

import importlib
import pkgutil
from dataclasses import dataclass
from typing import Callable

from ecpsata.engines import common as bc

# short name -> the document's title, as the HTML page and the plot titles print it (in Latin
# script: the plots' font has no Japanese; doc/benchmarks.md gives the e7SATA post's own title)
DOCUMENTS = {
    "SATA-IP AN1": "SATA-IP Application Note 1: SSD Performance Report",
    "FPGA Drive dd test": "Measuring the speed of an NVMe PCIe SSD in PetaLinux",
    "e7SATA read test": "e7SATA board blog (in Japanese): SSD and HDD read performance measured "
                        "with the e7SATA board",
    "Quantum SSD paper": "Understanding the Performance of Solid State Disks",
    "CrystalDiskMark": "CrystalDiskMark",
    "SNIA PTS": "SNIA Solid State Storage Performance Test Specification (PTS) 2.0",
}


def _writes(args):
    return bool(getattr(args, "write", False))


@dataclass(frozen=True)
class Experiment:
    name: str
    order: int                   # place in the CLI's help, the suite and the HTML page
    help: str                    # the subcommand's one line in `ecpsata --help`
    title: str                   # what is measured, for the terminal and plot titles
    document: str | None         # short name of the public document it reproduces (DOCUMENTS)
    where: str                   # where in that document ("Table 6-1"), or ""
    description: str             # what is timed, one paragraph (the HTML page)
    run: Callable                # run(session, **kwargs) -> results.result(...)
    add_arguments: Callable      # add_arguments(parser): the subcommand's own options
    kwargs: tuple                # the options handed to run, by their argparse dest
    readme: tuple = ()           # ((usage, what it does), ...): the README's command table
    console: tuple = ()          # ((command, arguments, what it does), ...): the firmware
                                 # console's help lines for its own implementation (literals:
                                 # the firmware's build reads them, ecpsata/soc/codes.py)
    tables: Callable = None      # tables(res, sys_clk_hz) -> [(caption, columns, rows)]
    plot: Callable = None        # plot(axes_row, res): draws the result's PNG (one or two axes)
    wide: Callable = None        # wide(res) -> True when the plot needs two panels
    title_of: Callable = None    # title_of(res, text) -> the title for these parameters
    suite: Callable = None       # suite(session, sectors, write) -> run's kwargs, None: not run
    check: Callable = None       # check(parser, args): contradictions, refused before connecting
    writes: Callable = _writes   # writes(args) -> True when the options write to the drive
    direct: Callable = None      # direct(target, args) -> exit code, or None for the usual run
    passed: Callable = None      # passed(res) -> False makes the command exit with 1

    def short_title(self):
        """The terminal title: what is measured and the short reference, e.g. '... (SATA-IP AN1
        §3.2)'."""
        if self.document is None:
            return self.title
        return f"{self.title} ({' '.join(x for x in (self.document, self.where) if x)})"

    def reference(self):
        """The public document it reproduces, by title and place in it; None for none."""
        if self.document is None:
            return None
        return DOCUMENTS[self.document] + (f", {self.where}" if self.where else "")


def _discover():
    found = []
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        exp = getattr(module, "EXPERIMENT", None)
        if not isinstance(exp, Experiment):
            raise ImportError(f"{module.__name__} declares no EXPERIMENT = Experiment(...): an "
                              f"experiment module must (shared code goes in a module named _*)")
        if exp.tables is None:
            raise ImportError(f"{module.__name__}: its Experiment has no tables (tables.standard("
                              f"COLUMNS) makes the usual one)")
        if exp.name != info.name:
            raise ImportError(f"{module.__name__} declares the experiment {exp.name!r}: the "
                              f"module is named after its experiment")
        found.append(exp)
    return {e.name: e for e in sorted(found, key=lambda e: (e.order, e.name))}


REGISTRY = _discover()
NAMES = tuple(REGISTRY)


def get(name):
    """The experiment called `name`; KeyError names the known ones."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise KeyError(f"no experiment {name!r} (experiments: {', '.join(NAMES)})") from None


def all():
    return list(REGISTRY.values())


def run(name, session, **kwargs):
    """Run the experiment `name` on a Session (session.py); its result dict."""
    return get(name).run(session, **kwargs)


def plotted():
    """The experiments whose results plot (their subcommands take --plot)."""
    return tuple(e.name for e in REGISTRY.values() if e.plot)


# the suite ----------------------------------------------------------------------------------------

def suite_plan(s, sectors=256, write=False):
    """(name, run function, kwargs) of the scaled-down suite, in the registry's order; write parts
    only with write=True (an experiment may run only then: its suite() gives None)."""
    sectors = min(sectors, s.max_command)
    plan = []
    for e in REGISTRY.values():
        kwargs = e.suite(s, sectors, write) if e.suite else None
        if kwargs is not None:
            plan.append((e.name, e.run, kwargs))
    return plan


def suite_span(sectors):
    """Sectors the suite needs from the start of --range."""
    return max(4 * sectors, 4 * bc.MAX_SECTORS28)


# the README ---------------------------------------------------------------------------------------

README_BEGIN = "<!-- experiments: made by python -m ecpsata.host.experiments readme -->"
README_END = "<!-- end of the experiments -->"


def readme_rows():
    """The rows of the README's command table, one or more per experiment."""
    return [f"| `{usage}` | {text} |" for e in REGISTRY.values() for usage, text in e.readme]


def readme_block():
    """The README's experiment table between its markers."""
    return "\n".join([README_BEGIN, "| experiment | what it measures |", "| --- | --- |",
                      *readme_rows(), README_END])
