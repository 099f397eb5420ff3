# SPDX-License-Identifier: BSD-2-Clause
"""The firmware's build folder is emptied when its objects came from another source folder (their
dependency files name sources that may no longer exist: make would stop with "No rule to make
target"), and kept otherwise (incremental builds)."""

from ecpsata.soc.builder import firmware_folder


def test_objects_from_another_source_folder_are_removed(tmp_path):
    out = tmp_path / "firmware"
    out.mkdir()
    (out / "main.d").write_text("main.o: /old/clone/firmware/main.c\n")
    (out / "main.o").write_text("object")
    firmware_folder(str(out), "/new/clone/ecpsata/firmware")
    assert sorted(p.name for p in out.iterdir()) == [".source"]
    assert (out / ".source").read_text() == "/new/clone/ecpsata/firmware"


def test_objects_from_the_same_source_folder_are_kept(tmp_path):
    out = tmp_path / "firmware"
    firmware_folder(str(out), "/src")
    (out / "main.o").write_text("object")
    firmware_folder(str(out), "/src")
    assert (out / "main.o").exists()
    firmware_folder(str(out), "/elsewhere")
    assert not (out / "main.o").exists()
