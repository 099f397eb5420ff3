# SPDX-License-Identifier: BSD-2-Clause
"""ecpsata/host/simboard.py without the simulator: the virtual drive's configuration from --vdrive / VDRIVE."""

import pytest

from ecpsata.host import simboard


def keys(config):
    return dict(item.split("=", 1) for item in config.split(","))


def test_user_keys_go_over_the_defaults():
    assert simboard.merge_vdrive("a=1,b=2,c=3", "b=9, d = 4") == "a=1,b=9,c=3,d=4"


def test_a_key_given_twice_keeps_the_last():
    assert simboard.merge_vdrive("a=1,b=2", "b=3,a=0,b=4") == "a=0,b=4"


def test_an_empty_value_is_kept():
    # image= (empty) is the virtual drive's volatile disk: the user must be able to ask for it
    assert simboard.merge_vdrive("image=disk.img,capacity=1GiB", "image=,") == "image=,capacity=1GiB"


def test_a_key_without_a_value_is_an_error():
    with pytest.raises(simboard.SimBoardError, match="--vdrive: missing '=' after key 'lba48'"):
        simboard.merge_vdrive("a=1", "cont=1,lba48")


@pytest.mark.parametrize("mode", [[], ["--interactive"]])
def test_a_bad_vdrive_string_is_a_readable_error(capsys, monkeypatch, mode):
    monkeypatch.setattr(simboard.signal, "signal", lambda *args: None)   # leave pytest's handlers
    rc = simboard.main([*mode, "--vdrive", "cont=1,lba48", "--", "true"])
    err = capsys.readouterr().err
    assert rc == 2 and err == "error: --vdrive: missing '=' after key 'lba48'\n"


def test_vdrive_keeps_the_default_image_and_statistics(tmp_path):
    board = simboard.SimBoard(vdrive="max_gen=1,cont=1", log_dir=str(tmp_path))
    cfg = keys(board.vdrive)
    assert cfg["image"] == str(tmp_path / "disk.img")
    assert cfg["stats_file"] == str(tmp_path / "vdrive_stats.json")
    assert cfg["max_gen"] == "1" and cfg["cont"] == "1"
    assert cfg["persona"] == "ideal" and cfg["capacity"] == "1GiB"


def test_vdrive_persona_names_the_default_model(tmp_path):
    board = simboard.SimBoard(vdrive="persona=slc,capacity=2048", log_dir=str(tmp_path))
    cfg = keys(board.vdrive)
    assert cfg["persona"] == "slc" and cfg["capacity"] == "2048"
    assert cfg["model"] == "ecpsata virtual drive slc"
    assert cfg["image"] == str(tmp_path / "disk.img")


def test_no_vdrive_is_the_default_drive(tmp_path):
    board = simboard.SimBoard(log_dir=str(tmp_path), persona="hdd7200")
    cfg = keys(board.vdrive)
    assert cfg["persona"] == "hdd7200" and cfg["image"] == str(tmp_path / "disk.img")


@pytest.mark.parametrize("argv, message", [
    (["--server-port", "70000"], "argument --server-port: must be 0..65535, not 70000"),
    (["--server-port", "-1"], "argument --server-port: must be 0..65535, not -1"),
])
def test_a_bad_server_port_is_refused(capsys, argv, message):
    with pytest.raises(SystemExit) as e:
        simboard.main([*argv, "--", "true"])
    assert e.value.code == 2 and message in capsys.readouterr().err


def test_server_port_from_the_environment_is_checked(capsys, monkeypatch):
    monkeypatch.setenv("SERVER_PORT", "99999")
    with pytest.raises(SystemExit) as e:
        simboard.main(["--", "true"])
    assert e.value.code == 2 and "argument --server-port: must be 0..65535, not 99999" in capsys.readouterr().err


def test_a_server_port_taken_while_the_simulation_boots_is_replaced(tmp_path, capsys):
    """The port is picked before the simulation boots and bound by litex_server after: another
    program that took it meanwhile (a listener that never greets, as a simulation's UART port)
    must not pass for the server. The server is started again on another free port."""
    import socket
    bridge = socket.socket()                 # what litex_server's UART bridge connects to
    bridge.bind(("127.0.0.1", 0))
    bridge.listen(1)
    squatter = socket.socket()
    squatter.bind(("127.0.0.1", 0))
    squatter.listen(8)
    taken = squatter.getsockname()[1]
    board = simboard.SimBoard(server_port=taken, log_dir=str(tmp_path))
    try:
        board._start_server(["--uart", "--uart-port", f"socket://127.0.0.1:{bridge.getsockname()[1]}"])
        port = board.server_port
        assert port != taken and len(board.procs) == 1 and board.procs[0].poll() is None
        assert f"could not serve port {taken}" in capsys.readouterr().err
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            assert s.recv(256).decode().endswith(f":{port}")     # the server's own greeting
    finally:
        board.stop()
        squatter.close()
        bridge.close()


FAKE_SIMULATION = """#!{python}
# Binds every tcpuart port of sim_config.js as the simulation does; stops as it does when one is
# taken.
import json, socket, sys, time
socks = []
for entry in json.load(open("sim_config.js")):
    if entry.get("module") == "tcpuart":
        s = socket.socket()
        try:
            s.bind(("127.0.0.1", entry["args"]["port"]))
        except OSError:
            print("[tcpuart] cannot listen: Address already in use", flush=True)
            sys.exit(255)
        s.listen(1)
        socks.append(s)
time.sleep(60)
"""


@pytest.fixture
def fake_simulation(tmp_path, monkeypatch):
    """A build folder whose simulation is FAKE_SIMULATION, every port free when checked, and a
    port taken (bound, not listening: connections to it are refused). Yields (build_dir, port)."""
    import socket
    import sys
    obj = tmp_path / "build" / "gateware" / "obj_dir"
    obj.mkdir(parents=True)
    vsim = obj / "Vsim"
    vsim.write_text(FAKE_SIMULATION.format(python=sys.executable))
    vsim.chmod(0o755)
    monkeypatch.setattr(simboard, "port_is_free", lambda port: True)
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", 0))
        yield str(tmp_path / "build"), squatter.getsockname()[1]


def test_a_console_port_taken_before_the_simulation_binds_it_is_replaced(tmp_path, capsys,
                                                                        fake_simulation):
    """The ports are picked before the simulation starts: another program (a client's connection
    takes a free port too) may bind one first. The simulation then stops at once, and is started
    again on other free ports."""
    build_dir, taken = fake_simulation
    board = simboard.SimBoard(build_dir=build_dir, log_dir=str(tmp_path / "run"))
    bridge = board.ports["bridge"]
    board.ports["console"] = taken            # as if it had been taken after it was picked
    try:
        board.start()
        assert board.ports["console"] != taken and board.ports["bridge"] != bridge
        assert len(board.procs) == 2 and all(p.poll() is None for p in board.procs)
        assert "a port of the simulation was taken before it bound it" in capsys.readouterr().err
    finally:
        board.stop()


def test_a_port_the_caller_gave_is_not_replaced(tmp_path, fake_simulation):
    build_dir, taken = fake_simulation
    board = simboard.SimBoard(build_dir=build_dir, log_dir=str(tmp_path / "run"),
                              console_port=taken, bridge_port=taken)
    try:
        with pytest.raises(simboard.SimBoardError, match="exited with code 255 before listening"):
            board.start()
        assert board.ports["console"] == taken
    finally:
        board.stop()


def test_the_simulated_ecpix5_replaces_only_its_bridge_port(tmp_path, capsys, fake_simulation):
    """The simulated ECPIX-5 binds one port (the bridge; its console is a UART behind it): that
    one is picked again, the console port is left alone and not named."""
    build_dir, taken = fake_simulation
    board = simboard.SimBoard(build_dir=build_dir, log_dir=str(tmp_path / "run"), board="ecpix5_sim")
    console = board.ports["console"]
    board.ports["bridge"] = taken
    try:
        board.start()
        assert board.ports["bridge"] != taken and board.ports["console"] == console
        err = capsys.readouterr().err
        assert f"trying bridge port {board.ports['bridge']}" in err and "console port" not in err
    finally:
        board.stop()
