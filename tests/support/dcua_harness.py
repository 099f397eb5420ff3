# SPDX-License-Identifier: BSD-2-Clause
"""Test helpers: run ``ECP5SATASerDes`` on the behavioural DCUA model (ecpsata/phy/ecp5/dcua_model.py).

``DCUABench(serdes, **model_config)`` puts the wrapper and a ``DCUAModel`` built from the wrapper's own
DCUA Instance side by side; ``run_dcua_sim`` drops the Instance (and the EXTREFB) and runs ``sys``
and the model's free-running ``dcu`` clock (the 3 Gb/s word rate, 150 MHz), firing ``sata_tx`` /
``sata_rx`` on the ``dcu`` edges where the model's word clocks tick (``tx_ce`` / ``rx_ce``, sampled
before the edge). The real build is unchanged: it emits the Instance.

Time unit: 1/3 ns, so sys (75 MHz, the boards') = 40 and the word clock (150 MHz) = 20.
Waveforms on demand: ``ECPSATA_VCD=1`` (tests/support/waves.py).
"""


from migen import *
from migen.sim.core import Simulator

from ecpsata.phy.ecp5.dcua_model import DCUAModel
from tests.support.phy_harness import WordClockSimulator
from tests.support.waves import vcd_path

TIME_UNIT_NS = 1/3
SYS_PERIOD   = 40   # 13.33 ns, 75 MHz
DCU_PERIOD   = 20   # 6.67 ns, 150 MHz
SYS_CLK_FREQ = 75e6


class _DropInstance:
    """Lowers the DCU's vendor primitives to nothing (the model drives their outputs)."""
    @staticmethod
    def lower(dr):
        if dr.of not in ("DCUA", "EXTREFB"):
            raise ValueError("no simulation model for Instance " + dr.of)
        return Module()


class DCUABench(Module):
    def __init__(self, serdes, **model_config):
        self.submodules.serdes = serdes
        self.submodules.model = DCUAModel(serdes.dcu, **model_config)


class DCUASimulator(WordClockSimulator):
    """``WordClockSimulator`` with the model's two word-clock enables on its ``dcu`` clock."""
    def __init__(self, bench, generators, vcd_name=None):
        Simulator.__init__(self, bench, generators, clocks={"sys": SYS_PERIOD, "dcu": DCU_PERIOD},
                           vcd_name=vcd_name, special_overrides={Instance: _DropInstance})
        self.ces = [("dcu", bench.model.tx_ce, ["sata_tx"]), ("dcu", bench.model.rx_ce, ["sata_rx"])]
        self.now = 0
        self._build_comb_groups()


@passive
def line_words(model, words):
    """The drive's side: repeats ``words`` on the model's RX line (sata_rx domain)."""
    n = 0
    while True:
        yield model.rx_word.eq(words[n % len(words)])
        n += 1
        yield


def run_dcua_sim(bench, generators, name=None):
    vcd = vcd_path(name)
    sim = DCUASimulator(bench, generators, vcd_name=vcd)
    with sim:
        sim.run()
    return sim


def us(t_us):
    """sys cycles in t_us microseconds."""
    return int(round(t_us*1e-6*SYS_CLK_FREQ))
