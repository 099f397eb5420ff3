"""Identity block: register values as built, and refusal of unknown feature names."""

import pytest
from migen import run_simulation

from gateware.identity import Identity, IDENTITY_MAGIC


def read_all(dut):
    out = {}
    def gen():
        yield
        for name in ("magic", "git_rev", "build_time", "sys_clk", "board", "features"):
            out[name] = yield getattr(dut, name).status
    run_simulation(dut, gen())
    return out


def test_values_as_built():
    dut = Identity("ecpix5", 0x89abcdef, True, 1795000000, 100e6, ["sata", "etherbone"])
    v = read_all(dut)
    assert v["magic"] == IDENTITY_MAGIC
    assert v["git_rev"] == 0x89abcdef
    assert v["build_time"] == 1795000000
    assert v["sys_clk"] == 100_000_000
    assert v["board"] == 2
    assert v["features"] == (1 << 31) | (1 << 2) | (1 << 1)


def test_unknown_feature_is_refused():
    with pytest.raises(ValueError, match="satta"):
        Identity("sim", 0, False, 0, 1e6, ["satta"])
