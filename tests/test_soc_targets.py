"""Board targets elaborate with the parts the host tools rely on (no synthesis here)."""

import argparse

import pytest

from soc import ecpix5, versa_ecp5


def make(target, **kw):
    args = argparse.Namespace(sys_clk_freq=75e6, eth_ip="192.168.1.50", with_sata=False) 
    for k, v in kw.items():
        setattr(args, k, v)
    return target.make_soc([0], args)


@pytest.mark.parametrize("target", [ecpix5, versa_ecp5])
def test_uart_bridge_and_crossover_console(target):
    soc = make(target)
    assert hasattr(soc, "uartbone"), "litex_server's UART bridge is missing"
    assert type(soc.uart).__name__ == "UARTCrossover"
    assert "uartbone" in soc.features


def test_ecpix5_has_etherbone():
    soc = make(ecpix5)
    assert hasattr(soc, "etherbone") and "etherbone" in soc.features


@pytest.mark.parametrize("target", [ecpix5, versa_ecp5])
def test_with_sata_adds_the_dcu_phy_and_core(target):
    soc = make(target, with_sata=True)
    assert type(soc.sata_serdes).__name__ == "ECP5SATASerDes"
    assert hasattr(soc, "sata_phy") and hasattr(soc, "sata_core") and hasattr(soc, "sata_buffer")
    assert "sata" in soc.features
