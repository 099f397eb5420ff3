# SPDX-License-Identifier: BSD-2-Clause
"""Identity block: register values as built, and refusal of unknown feature names."""

import pytest
from migen import run_simulation

from ecpsata.soc.boards import board
from ecpsata.soc.identity import Identity, IDENTITY_MAGIC, STAMP_MAGIC


def read_all(dut):
    out = {}
    def gen():
        yield
        for name in ("magic", "stamp", "sys_clk", "board", "features"):
            out[name] = yield getattr(dut, name).status
    run_simulation(dut, gen())
    return out


def test_values_as_built():
    dut = Identity(board("ecpix5"), 0xfff0, 100e6, ["sata", "etherbone"])
    v = read_all(dut)
    assert v["magic"] == IDENTITY_MAGIC
    assert v["stamp"] == 0xfff0
    assert v["sys_clk"] == 100_000_000
    assert v["board"] == 2
    assert v["features"] == (1 << 2) | (1 << 1)


def test_unknown_feature_is_refused():
    with pytest.raises(ValueError, match="satta"):
        Identity(board("sim"), 0, 1e6, ["satta"])


def test_stamp_goes_to_the_end_of_rom_and_leaves_the_firmware_alone():
    from ecpsata.soc.builder import with_stamp, ROM_SIZE, STAMP_OFFSET
    rom = with_stamp([1, 2, 3], (0x89abcdef, True, 1795000000))
    assert len(rom) == ROM_SIZE // 4 and rom[:3] == [1, 2, 3]
    assert rom[STAMP_OFFSET // 4:] == [STAMP_MAGIC, 0x89abcdef, 1, 1795000000]
    with pytest.raises(SystemExit, match="ROM holds"):
        with_stamp([0] * (STAMP_OFFSET // 4 + 1), (0, False, 0))


def test_build_time_comes_from_the_commit(monkeypatch):
    import subprocess
    from ecpsata.soc import builder
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    commit_time = int(subprocess.run(["git", "log", "-1", "--format=%ct"], cwd=builder.REPO,
                                     capture_output=True, text=True, check=True).stdout)
    assert builder.build_time() == commit_time
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1234")
    assert builder.build_time() == 1234
