# SPDX-License-Identifier: BSD-2-Clause
"""ecpsata/host/htmlreport.py and `ecpsata report`: the page of a results folder written by the
suite against the fake SoC (tests/support/fake_target.py), parsed with html.parser: every
experiment's tables, every plot embedded, identity, references, errors; no script, nothing
fetched from the network; the report subcommand without a board."""

import base64
import json
import os
import shutil
import socket
from html.parser import HTMLParser

import pytest

from ecpsata.host import cli, experiments, htmlreport, report
from tests.support.fake_target import FakeSATATarget

F = 100_000_000


class Page(HTMLParser):
    """Tags of interest, each with the experiment section (h2 id) it is in."""
    def __init__(self, text):
        super().__init__()
        self.section = None
        self.tables, self.images, self.links, self.tags = {}, {}, [], []
        self.classes, self._cls, self.text = {}, None, []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append(tag)
        if tag == "h2":
            self.section = a.get("id")
        elif tag == "table":
            self.tables[self.section] = self.tables.get(self.section, 0) + 1
        elif tag == "img":
            self.images.setdefault(self.section, []).append(a["src"])
        elif tag == "a":
            self.links.append(a["href"])
        if tag == "p" and a.get("class"):
            self._cls = a["class"]
            self.classes.setdefault(self._cls, []).append("")

    def handle_endtag(self, tag):
        if tag == "p":
            self._cls = None

    def handle_data(self, data):
        self.text.append(data)
        if self._cls:
            self.classes[self._cls][-1] += data


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """A results folder of the whole suite, writes included, from the fake SoC."""
    root = tmp_path_factory.mktemp("suite")
    (root / "soc").mkdir()
    fake = FakeSATATarget(str(root / "soc"))
    try:
        rc = cli.main(["--port", str(fake.port), "--csr-csv", fake.csr_csv, "suite", "--out",
                       str(root / "ideal"), "--sectors", "64", "--allow-write", "--range", "0:2048"])
        assert rc == 0
    finally:
        fake.close()
    return root / "ideal"


def copy(results, dest):
    shutil.copytree(results, dest)
    os.remove(dest / "index.html")
    return dest


def no_server_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return str(s.getsockname()[1])


def test_suite_page_has_every_table_and_plot(results):
    text = (results / "index.html").read_text()
    page = Page(text)
    docs = {n: d for n, d, _ in htmlreport.load(str(results))}
    assert list(docs) == [n for n in experiments.NAMES if experiments.get(n).suite]
    for name, doc in docs.items():
        # parameters, then each of the experiment's tables
        assert page.tables[name] == 1 + len(htmlreport.tables(doc, F)), name
        png = results / f"{name}.png"
        if report.can_plot(name):
            data = base64.b64encode(png.read_bytes()).decode()
            assert page.images[name] == [f"data:image/png;base64,{data}"], name
        else:
            assert not png.exists() and name not in page.images
        for ext in (".json", ".csv"):
            assert f"{name}{ext}" in page.links
        ref = experiments.get(name).reference()
        assert ref is None or f"Reproduces: {ref}." in text
    assert "access-latency.csv" in page.links and "access-histogram.csv" in page.links
    assert "script" not in page.tags and "link" not in page.tags
    assert not [h for h in page.links if "://" in h]
    assert all(src.startswith("data:image/png;base64,") for v in page.images.values() for src in v)


def test_page_shows_drive_gateware_units_and_latency(results):
    text = "".join(Page((results / "index.html").read_text()).text)
    for line in ("ecpsata fake", "1234abcd", "100.000 MHz", "MB/s = 10^6 bytes/s",
                 "Gen2 (3 Gb/s)", "supported, enabled (volatile)"):
        assert line in text, line
    drive = json.loads((results / "single.json").read_text())["drive"]
    assert drive["model"] in text and f"{drive['sectors']} sectors" in text
    # the suite's access run is 20 reads: p50 and p90 are upper bounds, p99 and above are n/a
    assert "<= 10.000" in text and text.count("n/a (20 samples)") == 3
    assert "No failed run, no failed check." in text


def test_page_shows_the_latency_tables_of_long_overhead_and_latency(results):
    html = (results / "index.html").read_text()
    sections = {s.split('"', 1)[0]: s for s in html.split('<h2 id="')[1:]}
    page = Page(html)
    docs = {n: d for n, d, _ in htmlreport.load(str(results))}
    # the suite: long 1 + 2 + 4 commands (0 + 1 + 3 gaps) written and read; overhead 4 commands
    # (3 gaps) per circuit, written and read; latency 5 runs of 16 and 32 KiB
    for name, caption, na, cells in (
            ("long", "latency, status of one command to first data of the next", "n/a (4 samples)",
             2 * 4),
            ("overhead", "latency, status of one command to first data of the next",
             "n/a (3 samples)", 4 * 4),
            ("latency", "latency, issue to status, one command at a time", "n/a (5 samples)",
             2 * 4)):
        shown = report.tables(docs[name], F)       # the terminal's tables, the page's too
        assert page.tables[name] == 1 + len(shown), name
        assert any(c.startswith(caption) for c, _, _ in shown), name
        assert f"<caption>{caption}" in sections[name], name
        assert sections[name].count(na) == cells, name
        assert "&lt;= " in sections[name], name
    # the fake's host loop gap: 50,000 + 1,000 cycles, every gap the same: p50 is 510 us
    assert "&lt;= 510.00" in sections["long"] and "&lt;= 510.00" in sections["overhead"]
    assert "stdev us" in sections["latency"] and "stdev us" not in sections["overhead"]


def test_errors_and_notes_are_shown(results, tmp_path):
    d = copy(results, tmp_path / "r")
    doc = json.loads((d / "verify.json").read_text())
    doc["summary"]["passed"] = False
    doc["rows"][0]["result"] = "FAIL"
    (d / "verify.json").write_text(json.dumps(doc))
    report.write_json(str(d / "single.json"), report.error_document(
        "single", "the drive reported status 0x51 error 0x04", {"reason": "device error"}))
    page = Page(htmlreport.page(str(d)))
    errors = page.classes["error"]
    assert any("the run failed: the drive reported status 0x51" in e for e in errors)
    assert any("result FAIL" in e for e in errors)
    access = json.loads((d / "access.json").read_text())
    assert any(access["notes"][0] in w for w in page.classes["warn"])


def test_an_unreadable_result_file_is_an_error_on_the_page(results, tmp_path):
    d = copy(results, tmp_path / "r")
    (d / "random.json").write_text('{"tool": "ecpsata-bench", "experiment": "random", ')
    errors = Page(htmlreport.page(str(d))).classes["error"]
    assert any("random.json: not readable as JSON" in e for e in errors), errors


def test_report_subcommand_rebuilds_without_a_board(results, tmp_path, capsys):
    d = copy(results, tmp_path / "r")
    before = (d / "access.png").read_bytes()
    rc = cli.main(["--port", no_server_port(), "report", str(d)])
    out, err = capsys.readouterr()
    assert rc == 0, err
    assert out == f"report: {d}/index.html\n"
    # the same page as the suite's, but for the folder's name
    assert (d / "index.html").read_text() == (results / "index.html").read_text().replace(
        "results: ideal</", "results: r</")
    assert (d / "access.png").read_bytes() == before
    (d / "access.png").unlink()
    assert cli.main(["report", "--plots", str(d)]) == 0
    assert (d / "access.png").read_bytes()[:4] == b"\x89PNG"


def test_report_over_persona_folders(results, tmp_path, capsys):
    parent = tmp_path / "results"
    for persona in ("ideal", "slc"):
        copy(results, parent / persona)
    rc = cli.main(["report", str(parent)])
    out, _ = capsys.readouterr()
    assert rc == 0
    assert out.splitlines() == [f"report: {parent}/ideal/index.html",
                                f"report: {parent}/slc/index.html", f"report: {parent}/index.html"]
    top = Page((parent / "index.html").read_text())
    assert top.links.count("ideal/index.html") == 2 and top.links.count("slc/index.html") == 2
    single = json.loads((parent / "ideal" / "single.json").read_text())
    read = next(r["mbps"] for r in single["rows"] if r["op"] == "read")
    assert f"{read:.2f}" in "".join(top.text)
    assert htmlreport.write_top_index(str(parent)) == str(parent / "index.html")


def test_report_of_a_folder_without_results_is_an_error(tmp_path, capsys):
    rc = cli.main(["report", str(tmp_path)])
    assert rc == 2 and "no result files" in capsys.readouterr().err
    rc = cli.main(["report", str(tmp_path / "missing")])
    assert rc == 2 and "is not a folder" in capsys.readouterr().err


def test_a_drive_setting_changed_between_experiments_is_not_another_drive(results, tmp_path):
    d = copy(results, tmp_path / "r")
    doc = json.loads((d / "random.json").read_text())
    doc["drive"]["auto_activate_enabled"] = not doc["drive"]["auto_activate_enabled"]
    (d / "random.json").write_text(json.dumps(doc))
    warns = Page(htmlreport.page(str(d))).classes["warn"]
    assert any("auto activate enabled was" in w and "random.json" in w for w in warns), warns
    assert not any("another drive" in w for w in warns), warns
    doc["drive"]["serial"] = "OTHER"
    (d / "random.json").write_text(json.dumps(doc))
    warns = Page(htmlreport.page(str(d))).classes["warn"]
    assert any("random.json was measured on another drive" in w for w in warns), warns


def state(temp, written, read=0):
    return {"temperature_c": temp, "sectors_written": written, "sectors_read": read,
            "smart_status": "PASSED", "phy_events": {"009h": 1}, "host": {"link_downs": 0},
            "missing": []}


def test_the_page_shows_the_drives_state_before_the_first_run_and_after_the_last(results,
                                                                                  tmp_path):
    """`make bench` runs the suite with --drive-state: each record's before is the previous
    one's after. The page's drive table spans the folder (first before, last after, in the order
    written), and each experiment says its own."""
    d = copy(results, tmp_path / "r")
    chain = [("single", "2024-01-01T00:00:01Z", 30, 100, 31, 300),
             ("random", "2024-01-01T00:00:02Z", 31, 300, 33, 300),
             ("verify", "2024-01-01T00:00:03Z", 33, 300, 34, 428)]
    for name, when, t0, w0, t1, w1 in chain:
        doc = json.loads((d / f"{name}.json").read_text())
        doc["created_utc"] = when
        doc["drive_state"] = {"before": state(t0, w0), "after": state(t1, w1),
                              "change": None}
        (d / f"{name}.json").write_text(json.dumps(doc))
    html = htmlreport.page(str(d))
    identity = html[html.index("<h2 id=identity>"):html.index("<nav>")]
    text = "".join(Page(identity).text)
    assert ("The drive's own state before the first of this folder's 3 runs and after the last"
            in text)
    assert "temperature30 -> 34 C" in text
    assert "sectors written100 -> 428 (the drive's count)" in text
    muted = Page(html).classes["muted"]
    assert "The drive during this run: temperature 31 -> 33 C; sectors written 300 -> 300 " \
           "(the drive's count)." in muted
    # without --drive-state: no state anywhere
    html = htmlreport.page(str(results))
    assert "The drive's own state" not in html and "The drive during this run" not in html
