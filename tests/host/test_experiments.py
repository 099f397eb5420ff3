# SPDX-License-Identifier: BSD-2-Clause
"""The experiments' registry (ecpsata/host/experiments/): one module per experiment, and every
part that lists experiments reads it: the CLI's subcommands and options, the suite, the terminal
tables, JSON, CSV, the plot, the HTML page and the README's table. An experiment added as one
module shows up in all of them; a module that is not one is refused by name."""

import json
import os
import re
import sys

import pytest

from ecpsata.host import cli, experiments, htmlreport
from ecpsata.paths import ROOT
from tests.support.fake_target import FakeSATATarget

# One module: its run on the engine, its option, its table, its plot, its place in the suite and
# its catalogue entry. The documents it names must be in experiments.DOCUMENTS.
DEMO = '''
from ecpsata.host import argtypes, plots
from ecpsata.host.experiments import Experiment
from ecpsata.host.results import result
from ecpsata.host.tables import standard


def demo(s, sectors=8):
    s.check_span("demo", s.base(), sectors)
    r = s.engine.run("read", s.base(), sectors, 1, lba28=s.lba28, seed=1, label="demo")
    return result("demo", {"sectors": sectors}, [{"sectors": sectors, "mbps": r["mbps"]}])


def plot(axes, res):
    axes[0].bar([0], [res["rows"][0]["mbps"]])
    axes[0].set_ylabel(plots.MBPS)


def add_arguments(p):
    p.add_argument("--sectors", type=argtypes.sectors, default=8, help="sectors of the read")


EXPERIMENT = Experiment(
    name="demo", order=65, help="a demonstration read",
    title="one read, MB/s", document="SATA-IP AN1", where="§3.2",
    description="A demonstration experiment in one module.",
    run=demo, add_arguments=add_arguments, kwargs=("sectors",),
    readme=(("demo [--sectors N]", "a demonstration read"),),
    tables=standard([("sectors", "sectors", "{}"), ("MB/s", "mbps", "{:.2f}")]),
    plot=plot, suite=lambda s, sectors, write: dict(sectors=8))
'''


@pytest.fixture
def extra_experiments(tmp_path, monkeypatch):
    """A folder of extra experiment modules searched with ecpsata/host/experiments/; the registry
    made again from both (as at import), put back afterwards."""
    folder = tmp_path / "extra"
    folder.mkdir()
    monkeypatch.setattr(experiments, "__path__", [*experiments.__path__, str(folder)])

    def rescan():
        registry = experiments._discover()
        monkeypatch.setattr(experiments, "REGISTRY", registry)
        monkeypatch.setattr(experiments, "NAMES", tuple(registry))
        return registry
    yield folder, rescan
    for name in os.listdir(folder):
        sys.modules.pop(f"ecpsata.host.experiments.{name[:-3]}", None)


def run_cli(capsys, *argv):
    rc = cli.main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_an_experiment_added_as_one_module_is_everywhere(extra_experiments, tmp_path, capsys):
    folder, rescan = extra_experiments
    (folder / "demo.py").write_text(DEMO)
    names = list(rescan())
    assert names.index("demo") == names.index("latency") + 1       # its order: 60 < 65 < 70
    # the CLI: a subcommand with its own option and the shared ones, --plot as it plots
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    assert re.search(r"^    demo +a demonstration read$", capsys.readouterr().out, re.M)
    with pytest.raises(SystemExit):
        cli.main(["demo", "--help"])
    help_text = capsys.readouterr().out
    for option in ("--sectors", "--range", "--json", "--csv", "--plot"):
        assert option in help_text
    # a run: terminal table, JSON, CSV and PNG
    fake = FakeSATATarget(str(tmp_path))
    try:
        base = ["--port", str(fake.port), "--csr-csv", fake.csr_csv]
        out_base = str(tmp_path / "demo")
        rc, out, err = run_cli(capsys, *base, "demo", "--sectors", "16", "--json",
                               out_base + ".json", "--csv", out_base + ".csv", "--plot",
                               out_base + ".png")
        assert rc == 0, err
        assert out.startswith("demo: one read, MB/s (SATA-IP AN1 §3.2)\n")
        assert re.search(r"^sectors +MB/s\n +16 +\d+\.\d\d$", out, re.M)
        with open(out_base + ".json") as f:
            doc = json.load(f)
        assert doc["experiment"] == "demo" and doc["rows"][0]["sectors"] == 16
        with open(out_base + ".csv") as f:
            assert f.readline().strip() == "sectors,mbps"
        with open(out_base + ".png", "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n"
        # the suite runs it in its place and its page has the section
        rc, out, err = run_cli(capsys, *base, "suite", "--out", str(tmp_path / "suite"),
                               "--sectors", "16")
        assert rc == 0, err
        assert out.index("demo: one read") > out.index("latency: read time")
        assert out.index("demo: one read") < out.index("cpu: data through")
    finally:
        fake.close()
    suite_dir = tmp_path / "suite"
    assert {"demo.json", "demo.csv", "demo.png"} <= set(os.listdir(suite_dir))
    with open(suite_dir / "index.html") as f:
        page = f.read()
    assert '<h2 id="demo">demo</h2>' in page
    assert "A demonstration experiment in one module." in page
    assert "Reproduces: SATA-IP Application Note 1: SSD Performance Report, §3.2." in page
    # the README's table
    assert "| `demo [--sectors N]` | a demonstration read |" in experiments.readme_rows()


def test_a_module_that_is_not_an_experiment_is_refused_by_name(extra_experiments):
    folder, rescan = extra_experiments
    (folder / "helper.py").write_text("X = 1\n")
    with pytest.raises(ImportError, match=r"experiments\.helper declares no EXPERIMENT"):
        rescan()
    os.remove(folder / "helper.py")
    sys.modules.pop("ecpsata.host.experiments.helper", None)
    (folder / "other.py").write_text(DEMO)
    with pytest.raises(ImportError, match=r"declares the experiment 'demo': the module is named "
                                          r"after its experiment"):
        rescan()


def test_the_readme_table_is_the_registrys():
    with open(os.path.join(ROOT, "README.md")) as f:
        readme = f.read()
    begin, end = readme.index(experiments.README_BEGIN), readme.index(experiments.README_END)
    block = readme[begin:end + len(experiments.README_END)]
    assert block == experiments.readme_block(), (
        "README.md's experiment table differs from the registry: paste the output of "
        "`python -m ecpsata.host.experiments readme` between its markers")
    assert [line.split("`")[1].split()[0] for line in experiments.readme_rows()] == [
        n for e in experiments.all() for n in [e.name] * len(e.readme)]
    assert all(e.readme for e in experiments.all())


def test_the_registry_gives_each_experiment_what_the_tools_need():
    assert experiments.NAMES == ("single", "long", "hwloop", "overhead", "lba28", "latency",
                                 "cpu", "access", "random", "quick", "verify", "steady",
                                 "wsat")
    assert experiments.plotted() == ("long", "hwloop", "overhead", "latency", "access", "random",
                                     "steady", "wsat")
    for e in experiments.all():
        assert e.document is None or e.document in experiments.DOCUMENTS, e.name
        assert e.help and e.title and e.description, e.name
        assert e.short_title().startswith(e.title)
    assert experiments.get("verify").reference() is None
    assert experiments.get("latency").reference() == (
        "e7SATA board blog (in Japanese): SSD and HDD read performance measured with the e7SATA "
        "board")
    with pytest.raises(KeyError, match=r"no experiment 'nope' \(experiments: single, long"):
        experiments.get("nope")


# The console (ecpsata/firmware/) keeps its own implementations; their help lines come from the
# registry (`console=`); `quick`, `steady` and `wsat` have no console form.
HOST_ONLY = {"quick", "steady", "wsat"}


def test_the_console_has_the_same_experiments_with_the_registry_s_help_lines():
    from ecpsata.soc.codes import codes_header, console_lines
    fw = os.path.join(ROOT, "ecpsata", "firmware")
    tables = set()
    for name in ("cmd_bench.c", "cmd_access.c", "cmd_qbench.c"):
        with open(os.path.join(fw, name)) as f:
            tables |= set(re.findall(r"^\t\{CONSOLE_(\w+), cmd_\w+\},", f.read(), re.M))
    registry = [line for e in experiments.all() for line in e.console]
    assert {e.name for e in experiments.all() if e.console} == set(experiments.NAMES) - HOST_ONLY
    assert tables == {command.upper() for command, _, _ in registry}
    assert sorted(console_lines()) == sorted(registry)
    header = codes_header()
    for command, args, text in registry:
        assert f'#define CONSOLE_{command.upper()} "{command}", "{args}", "{text}"' in header


def test_a_console_line_that_is_not_a_literal_is_refused_by_name(tmp_path, monkeypatch):
    from ecpsata.soc import codes
    (tmp_path / "demo.py").write_text('EXPERIMENT = Experiment(name="demo", console=LINES)\n')
    monkeypatch.setattr(codes, "EXPERIMENTS", str(tmp_path))
    with pytest.raises(ValueError, match="demo.py: console= must be written as literals"):
        codes.console_lines()


def test_the_html_page_orders_by_the_registry(tmp_path):
    for name in ("verify", "single", "random"):
        with open(tmp_path / f"{name}.json", "w") as f:
            json.dump({"tool": "ecpsata-bench", "experiment": name}, f)
    assert [name for name, _, _ in htmlreport.load(str(tmp_path))] == [
        "single", "random", "verify"]


def test_the_module_prints_names_and_the_readme_rows(capsys):
    from ecpsata.host.experiments.__main__ import main
    assert main(["names"]) == 0
    assert capsys.readouterr().out.split() == list(experiments.NAMES)
    assert main(["readme"]) == 0
    assert capsys.readouterr().out.strip() == experiments.readme_block()
    assert main(["nope"]) == 2
