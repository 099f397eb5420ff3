# SPDX-License-Identifier: BSD-2-Clause
"""`purge` (ecpsata/host/purge.py) when the link drops: while it follows the sanitize (brought up
again, followed to the end, reported), with the erase command itself (the drive asked whether it
started; sent again if not), and when the link does not come back or the user stops it (the
drive's state said, and how to follow the erase). Scripted drives for each path, and the whole
command against the fake SoC (pts_fakes.py)."""

import json

import pytest

from ecpsata.host import purge, sata
from ecpsata.host.cli import main
from tests.host.pts_fakes import FlashTarget

IDENT = {"sanitize_block_erase": True, "sanitize_crypto": True}


def st(progress=None, completed=False):
    """A SANITIZE STATUS EXT answer: in progress at `progress`, or ended."""
    return {"in_progress": progress is not None, "completed": completed, "frozen": False,
            "progress": progress}


class Drive:
    """A scripted drive: each SANITIZE STATUS EXT takes the next of `statuses` ("drop": the link
    drops during it), each erase command the next of `erases` ("ok" or "drop"). The link comes
    back at the host's wait unless `never_back`."""
    def __init__(self, monkeypatch, statuses, erases=("ok",), never_back=False):
        self.statuses, self.erases = list(statuses), list(erases)
        self.never_back, self.link = never_back, True
        self.sent, self.waits, self.shown = [], 0, []
        monkeypatch.setattr(purge, "POLL_S", 0)
        monkeypatch.setattr(purge, "status", self.status)
        monkeypatch.setattr(purge, "ata_command", self.command)
        monkeypatch.setattr(purge, "_link_ready", lambda target: self.link)
        monkeypatch.setattr(sata, "wait_link", self.wait_link)

    def status(self, target, timeout):
        self.sent.append("STATUS")
        step = self.statuses.pop(0)
        if step == "drop":
            self.link = False
            raise sata.LinkError("SATA link dropped during the SANITIZE STATUS EXT")
        return step

    def command(self, target, command, features, lba=0, timeout=5.0, what=None):
        self.sent.append(what)
        if self.erases.pop(0) == "drop":
            self.link = False
            raise sata.LinkError(f"SATA link dropped during the {what}")
        return b"", {}

    def wait_link(self, target, timeout, out=None, reset_again=True):
        self.waits += 1
        if self.never_back:
            raise sata.LinkError(f"SATA link down after {timeout:.0f} s")
        self.link = True

    def show(self, frac, text):
        self.shown.append(text if text else frac)


def test_a_drop_while_following_is_recovered_and_reported(monkeypatch):
    d = Drive(monkeypatch, [st(), st(0.25), "drop", st(0.75), st(completed=True)])
    res = purge.purge(None, IDENT, 1.0, d.show)
    assert d.sent == ["STATUS", "BLOCK ERASE EXT", "STATUS", "STATUS", "STATUS", "STATUS"]
    assert d.waits == 1
    assert res == {"method": "BLOCK ERASE EXT", "resumed": False, "completed": True,
                   "link_drops": 1, "events": ["link lost while the sanitize ran at 25.0 %; back "
                                               "up, the sanitize followed"]}
    assert [x for x in d.shown if isinstance(x, str)] == [
        "link lost (SATA link dropped during the SANITIZE STATUS EXT); bringing it up again: a "
        "sanitize goes on in the drive through resets",
        "link up again: asking the drive (SANITIZE STATUS EXT)"]
    assert [x for x in d.shown if not isinstance(x, str)] == [0.25, 0.75]
    assert purge.describe(res) == (
        "BLOCK ERASE EXT; the link dropped 1 time(s) on the way, came back, and the drive "
        "reported the sanitize completed without error: link lost while the sanitize ran at "
        "25.0 %; back up, the sanitize followed")


def test_a_link_found_down_is_brought_up_before_the_next_status(monkeypatch):
    d = Drive(monkeypatch, [st(), st(0.5), st(completed=True)])
    calls = iter([True, False, True, True])
    monkeypatch.setattr(purge, "_link_ready", lambda target: next(calls))
    res = purge.purge(None, IDENT, 1.0, d.show)
    assert d.waits == 1 and res["link_drops"] == 1 and res["completed"]
    assert d.sent == ["STATUS", "BLOCK ERASE EXT", "STATUS", "STATUS"]


def test_a_link_that_does_not_come_back_names_the_drives_state(monkeypatch):
    d = Drive(monkeypatch, [st(), st(0.25), "drop"], never_back=True)
    with pytest.raises(purge.PurgeInterrupted) as e:
        purge.purge(None, IDENT, 1.0, d.show)
    msg = str(e.value)
    assert "the link did not come back after a drop during the sanitize" in msg
    assert "its last SANITIZE STATUS EXT said in progress at 25.0 %" in msg
    assert msg.endswith("run `ecpsata purge` again (same confirmation) to follow it to its end")
    assert isinstance(e.value, sata.LinkError)        # the CLI shows the link's events after it


def test_an_erase_lost_with_the_link_that_the_drive_started_is_followed(monkeypatch):
    d = Drive(monkeypatch, [st(), st(0.1), st(0.6), st(completed=True)], erases=["drop"])
    res = purge.purge(None, IDENT, 1.0, d.show)
    assert d.sent == ["STATUS", "BLOCK ERASE EXT", "STATUS", "STATUS", "STATUS"]
    assert res["link_drops"] == 1 and res["completed"] and not res["resumed"]
    assert res["events"] == ["link lost with the BLOCK ERASE EXT command; the drive had started "
                             "it"]


def test_an_erase_lost_before_the_drive_took_it_is_sent_again(monkeypatch):
    d = Drive(monkeypatch, [st(), st(), st(0.5), st(completed=True)], erases=["drop", "ok"])
    res = purge.purge(None, IDENT, 1.0, d.show)
    assert d.sent == ["STATUS", "BLOCK ERASE EXT", "STATUS", "BLOCK ERASE EXT", "STATUS",
                      "STATUS"]
    assert res["events"] == ["link lost with the BLOCK ERASE EXT command before the drive took "
                             "it: sent again"]


def test_an_erase_completed_during_the_drop_is_not_sent_again(monkeypatch):
    d = Drive(monkeypatch, [st(), st(completed=True)], erases=["drop"])
    res = purge.purge(None, IDENT, 1.0, d.show)
    assert d.sent == ["STATUS", "BLOCK ERASE EXT", "STATUS"]
    assert res["completed"] and res["events"] == [
        "link lost with the BLOCK ERASE EXT command; the drive had started it and completed it "
        "meanwhile"]


def test_an_erase_lost_twice_says_nothing_was_erased(monkeypatch):
    d = Drive(monkeypatch, [st(), st(), st()], erases=["drop", "drop"])
    with pytest.raises(purge.PurgeInterrupted, match="the link was lost with the command twice "
                       "and the drive reports no sanitize in progress: nothing was erased"):
        purge.purge(None, IDENT, 1.0, d.show)
    assert d.waits == 2


def test_a_sanitize_in_progress_is_followed_not_restarted(monkeypatch):
    d = Drive(monkeypatch, [st(0.4), st(0.8), st(completed=True)])
    res = purge.purge(None, IDENT, 1.0, d.show)
    assert "BLOCK ERASE EXT" not in d.sent and res["resumed"] and res["link_drops"] == 0
    assert res["events"] == ["a sanitize was in progress at 40.0 %: followed, not started again"]


def test_an_erase_that_ends_without_completed_says_the_state_is_unknown(monkeypatch):
    d = Drive(monkeypatch, [st(), st(0.5), st(completed=False)])
    with pytest.raises(purge.PurgeInterrupted, match="the erase failed .* its data is in an "
                       "unknown state"):
        purge.purge(None, IDENT, 1.0, d.show)


# the whole command against the fake SoC ----------------------------------------------------------

def cli(capsys, fake, *argv):
    rc = main(["--port", str(fake.port), "--csr-csv", fake.csr_csv, "--timeout", "2", "purge",
               "--allow-write", "--whole-drive", "--erase", "FAKE0001", *argv])
    out, err = capsys.readouterr()
    return rc, out, err


def test_purge_follows_the_sanitize_after_the_link_comes_back(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(purge, "POLL_S", 0)
    fake = FlashTarget(str(tmp_path), sanitize_polls=4)
    fake.drop_during_status(2)
    try:
        rc, out, err = cli(capsys, fake, "--json", str(tmp_path / "p.json"))
    finally:
        fake.close()
    assert rc == 0, err
    assert [e for e in fake.events if e[0] != "queued"] == [
        ("sanitize", 0), ("sanitize", 0x12), ("sanitize", 0), ("sanitize", 0), ("link dropped",),
        ("sanitize", 0), ("sanitize", 0), ("sanitize", 0)]
    assert fake.get("sata_phy_link_downs") == 1 and fake.sanitize_done
    assert ("purged FAKE SSD 1 FAKE0001: BLOCK ERASE EXT; the link dropped 1 time(s) on the way, "
            "came back, and the drive reported the sanitize completed without error: link lost "
            "while the sanitize ran at 20.0 %; back up, the sanitize followed") in out
    assert "link lost (SATA link dropped during the SANITIZE STATUS EXT)" in err
    res = json.load(open(tmp_path / "p.json"))["purge"]
    assert res["link_drops"] == 1 and res["completed"] and res["method"] == "BLOCK ERASE EXT"


def test_purge_says_what_is_known_when_the_link_stays_down(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(purge, "POLL_S", 0)
    monkeypatch.setattr(purge, "RECONNECT_S", 0.5)
    fake = FlashTarget(str(tmp_path), sanitize_polls=4)
    fake.drop_during_status(2, reads_down=10**9)
    try:
        rc, out, err = cli(capsys, fake)
    finally:
        fake.close()
    assert rc == 2 and "purged" not in out
    assert "its last SANITIZE STATUS EXT said in progress at 20.0 %" in err
    assert "run `ecpsata purge` again (same confirmation) to follow it to its end" in err


def test_an_interrupted_purge_says_the_sanitize_goes_on(tmp_path, capsys, monkeypatch):
    def stop(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(purge, "follow", stop)
    fake = FlashTarget(str(tmp_path))
    try:
        rc, out, err = cli(capsys, fake)
    finally:
        fake.close()
    assert rc == 130 and ("sanitize", 0x12) in fake.events
    assert ("interrupted: a sanitize already started goes on in the drive; run `ecpsata purge` "
            "again (same confirmation) to follow it to its end") in err


def test_a_link_that_keeps_dropping_ends_the_wait_and_says_so(monkeypatch):
    d = Drive(monkeypatch, [st(), st(0.3)] + ["drop"] * (purge.MAX_DROPS + 1))
    with pytest.raises(purge.PurgeInterrupted) as e:
        purge.purge(None, IDENT, 1.0, d.show)
    assert d.waits == purge.MAX_DROPS
    assert str(e.value).startswith(f"the link dropped {purge.MAX_DROPS + 1} times during the "
                                   f"sanitize (last: SATA link dropped during the SANITIZE "
                                   f"STATUS EXT): its last SANITIZE STATUS EXT said in progress "
                                   f"at 30.0 %")
