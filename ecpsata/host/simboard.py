# SPDX-License-Identifier: BSD-2-Clause
"""The simulated board: start the Verilator SoC and litex_server on loopback, run a command, stop.

    python -m ecpsata.host.simboard [--keep-console] -- python -m ecpsata info

Everything started here is stopped on exit, on failure and on Ctrl-C. Ports are checked first so
that a busy port gives a clear error instead of a hang.
"""

import argparse
import os
import signal
import socket
import subprocess
import sys
import threading
import time

from ecpsata.host import netns
from ecpsata.host.server import argv as server_argv
from ecpsata.platforms import ecpix5_sim
from ecpsata.platforms import sim as simplatform
from ecpsata.platforms.sim import (clock_placement, default_vdrive, parse_clock_seed,
                                   write_sim_config)

from ecpsata.paths import ROOT as REPO
from ecpsata.soc import boards
LOOPBACK = "127.0.0.1"


class SimBoardError(Exception):
    pass


def parse_vdrive(config):
    """A virtual drive configuration string as {key: value}, in order; a key given twice keeps
    its last value (ecpsata/sim/vdrive/README.md: comma-separated key=value, spaces trimmed)."""
    keys = {}
    for item in config.split(","):
        if not item.strip():
            continue
        key, eq, value = item.partition("=")
        if not eq:
            raise SimBoardError(f"--vdrive: missing '=' after key '{key.strip()}'")
        keys.pop(key.strip(), None)     # re-inserted: the order follows the last occurrence
        keys[key.strip()] = value.strip()
    return keys


def merge_vdrive(defaults, user):
    """The user's keys over the default configuration: the defaults' keys keep their place and
    take the user's value, new keys follow in the user's order."""
    keys = parse_vdrive(defaults)
    for key, value in parse_vdrive(user).items():
        keys[key] = value
    return ",".join(f"{k}={v}" for k, v in keys.items())


def port_is_free(port):
    for addr in (LOOPBACK, "0.0.0.0"):
        with socket.socket() as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                s.bind((addr, port))
            except OSError:
                return False
    return True


def pick_free_port():
    with socket.socket() as s:
        s.bind((LOOPBACK, 0))
        return s.getsockname()[1]


def wait_for_port(port, proc, what, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SimBoardError(f"{what} exited with code {proc.returncode} before listening on port {port}")
        try:
            return socket.create_connection((LOOPBACK, port), timeout=1.0)
        except OSError:
            time.sleep(0.1)
    raise SimBoardError(f"{what} did not listen on {LOOPBACK}:{port} within {timeout:.0f} s")


class SimBoard:
    """The simulated SoC plus litex_server; a context manager. vdrive: configuration keys of the
    virtual drive, merged over the default drive (ecpsata/platforms/sim.py default_vdrive of `persona`).
    clock_seed: the clocks' placement (ecpsata/platforms/sim.py clock_placement; None: nominal)."""
    def __init__(self, build_dir=None, console_port=None, bridge_port=None, server_port=1234,
                 vdrive=None, log_dir=None, boot_timeout=120.0, persona="ideal", board="sim",
                 bridge="uart", clock_seed=None):
        simulated = boards.names("simulated")
        if board not in simulated:
            raise SimBoardError(f"no simulated board {board!r} (one of {', '.join(simulated)})")
        if bridge not in ("uart", "etherbone"):
            raise SimBoardError(f"bridge must be uart or etherbone, not {bridge!r}")
        if bridge == "etherbone":
            if board != "ecpix5_sim":
                raise SimBoardError("Etherbone: only the simulated ECPIX-5 (--board ecpix5_sim) has it")
            if not os.environ.get(netns.ENV):
                raise SimBoardError("Etherbone on the simulated ECPIX-5 runs in a network namespace of "
                                    "its own: python -m ecpsata.host.netns -- python -m ecpsata.host.simboard ... "
                                    "(make bench BOARD=ecpix5 BRIDGE=sim does this)")
        self.board = board
        self.bridge = bridge
        self.build_dir = build_dir or os.path.join(REPO, "build", board)
        self.gateware = os.path.join(self.build_dir, "gateware")
        self.ports = {"console": console_port or pick_free_port(),
                      "bridge": bridge_port or pick_free_port(),
                      "litex_server": server_port or pick_free_port()}
        # ports we picked (not given): another may be tried when one is taken before it is bound
        self.picked = {"console": not console_port, "bridge": not bridge_port}
        self.log_dir = log_dir or os.path.join(self.build_dir, "run")
        # VDRIVE=... adds to the default drive (image, statistics file) instead of replacing it;
        # its persona, if any, also names the default model.
        persona = parse_vdrive(vdrive or "").get("persona", persona)
        periods = (simplatform if board == "sim" else ecpix5_sim).CLOCK_PERIODS_PS
        self.clocks = clock_placement(clock_seed, periods)
        self.vdrive = self.clocks.vdrive(merge_vdrive(default_vdrive(self.log_dir, persona),
                                                      vdrive or ""))
        self.boot_timeout = boot_timeout
        self.procs = []
        self.console_sock = None
        self.console_closed = None
        self.console_text = []
        self._console_lock = threading.Lock()

    @property
    def server_port(self):
        return self.ports["litex_server"]

    def start(self):
        vsim = os.path.join(self.gateware, "obj_dir", "Vsim")
        if not os.path.exists(vsim):
            raise SimBoardError(f"{vsim} not found: build the simulated SoC first (make sim-build)")
        busy = [f"{name} port {p}" for name, p in self.ports.items() if not port_is_free(p)]
        if busy:
            raise SimBoardError("busy: " + ", ".join(busy) + " (another simulation or litex_server "
                                "running? stop it or choose other ports)")
        os.makedirs(self.log_dir, exist_ok=True)
        self._start_simulation(vsim)
        if self.bridge == "etherbone":
            link = ["--udp", "--udp-ip", ecpix5_sim.BOARD_IP]
        else:
            link = ["--uart", "--uart-port", f"socket://{LOOPBACK}:{self.ports['bridge']}"]
        self._start_server(link)
        return self

    def _start_simulation(self, vsim, tries=3):
        """The simulation, listening on self.ports. A port was free when it was picked, but another
        program (a client's connection takes a free port too) may bind it before the simulation
        does: the simulation then stops at once ("Address already in use" in its log), and
        another free port is tried for each port we picked."""
        listening = "console" if self.board == "sim" else "bridge"
        # The simulated ECPIX-5's console is a UART behind the bridge: it binds the bridge only.
        bound = ("console", "bridge") if self.board == "sim" else ("bridge",)
        config = os.path.join(self.gateware, "sim_config.js")
        for attempt in range(tries):
            if self.board == "sim":
                write_sim_config(config, console="tcp", console_port=self.ports["console"],
                                 bridge_port=self.ports["bridge"], vdrive=self.vdrive,
                                 clocks=self.clocks)
            else:
                # The board's layout: the console is a crossover UART behind the bridge.
                ecpix5_sim.write_sim_config(config, bridge_port=self.ports["bridge"],
                                            vdrive=self.vdrive, etherbone=self.bridge == "etherbone",
                                            clocks=self.clocks)
            self._spawn([vsim], "sim.log", cwd=self.gateware)
            proc = self.procs[-1]
            try:
                sock = wait_for_port(self.ports[listening], proc, "the simulation", self.boot_timeout)
                break
            except SimBoardError:
                with open(os.path.join(self.log_dir, "sim.log"), errors="replace") as f:
                    taken = proc.poll() is not None and "Address already in use" in f.read()
                repick = [name for name in bound if self.picked[name]]
                if not taken or not repick or attempt + 1 == tries:
                    raise
                proc.wait()
                self.procs.pop()
                for name in repick:
                    self.ports[name] = pick_free_port()
                print(f"[simboard] a port of the simulation was taken before it bound it; trying "
                      + ", ".join(f"{n} port {self.ports[n]}" for n in repick),
                      file=sys.stderr, flush=True)
        if self.board == "sim":
            self.console_sock = sock
            self.console_sock.settimeout(None)
            threading.Thread(target=self._drain_console, daemon=True).start()
        else:
            sock.close()

    def _start_server(self, link, tries=3):
        """litex_server on self.ports["litex_server"]. The port was free when it was picked, but
        the simulation boots before the server binds it, and meanwhile another program (another
        simulation, in parallel tests) may take it: the server then fails to bind, and a client
        would reach the other program. So the server must answer with its own greeting (litex_server
        names its bridge and port on every connection); otherwise another free port is tried."""
        for attempt in range(tries):
            port = self.ports["litex_server"]
            self._spawn(server_argv(*link, bind_ip=LOOPBACK, bind_port=port), "litex_server.log",
                        cwd=REPO)
            proc = self.procs[-1]
            greeting = ""
            try:
                with wait_for_port(port, proc, "litex_server", 30) as probe:
                    probe.settimeout(0.2)
                    deadline = time.monotonic() + 10.0
                    while not greeting and proc.poll() is None and time.monotonic() < deadline:
                        try:
                            greeting = probe.recv(256).decode(errors="replace")
                        except socket.timeout:
                            pass
            except (SimBoardError, OSError):
                pass
            if proc.poll() is None and greeting.endswith(f":{port}"):
                return
            proc.kill()
            proc.wait()
            self.procs.pop()
            if attempt + 1 < tries:
                self.ports["litex_server"] = pick_free_port()
                print(f"[simboard] litex_server could not serve port {port} (taken meanwhile?); "
                      f"trying port {self.ports['litex_server']}", file=sys.stderr, flush=True)
        raise SimBoardError(f"litex_server did not start on a free port after {tries} tries "
                            f"(see {self.log_dir}/litex_server.log)")

    def _spawn(self, cmd, log, cwd=None):
        f = open(os.path.join(self.log_dir, log), "w")
        self.procs.append(subprocess.Popen(cmd, cwd=cwd, stdout=f, stderr=subprocess.STDOUT,
                                           stdin=subprocess.DEVNULL, start_new_session=True))

    def _drain_console(self):
        """Reader thread: everything the console sends goes to console_text and console.log. The
        socket blocks without a timeout (a firmware command may print nothing for many seconds of
        wall-clock time); when the connection ends, console_closed says why."""
        with open(os.path.join(self.log_dir, "console.log"), "w") as log:
            while True:
                try:
                    data = self.console_sock.recv(4096)
                except OSError as e:
                    self.console_closed = f"console connection failed: {e}"
                    return
                if not data:
                    self.console_closed = "the simulation closed the console connection"
                    return
                text = data.decode(errors="replace")
                log.write(text)
                log.flush()
                with self._console_lock:
                    self.console_text.append(text)

    def wait_prompt(self, timeout=None):
        """Press Enter until the firmware's prompt answers: the SoC is up. (A board whose console
        is behind the bridge is up once litex_server is.)"""
        if self.console_sock is None:
            return ""
        deadline = time.monotonic() + (timeout or self.boot_timeout)
        while True:
            try:
                return self.console("", "ecpsata>", timeout=2.0)
            except SimBoardError:
                if time.monotonic() > deadline or self.procs[0].poll() is not None:
                    raise SimBoardError(f"no console prompt within {timeout or self.boot_timeout:.0f} s "
                                        f"(see {self.log_dir}/sim.log)") from None

    def console(self, line, expect, timeout=60.0):
        """Type a line on the console and wait until `expect` appears in what follows."""
        return self.console_send(line.encode() + b"\r", expect, timeout)

    def console_send(self, data, expect, timeout=60.0):
        """Send raw bytes in one write (several lines, bytes no keyboard types) and wait until
        `expect` appears in what follows."""
        with self._console_lock:
            self.console_text.clear()
        self.console_sock.sendall(data)
        return self.console_wait(expect, timeout)

    def console_wait(self, expect, timeout=60.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._console_lock:
                text = "".join(self.console_text)
            if expect in text:
                return text
            if self.procs[0].poll() is not None:
                raise SimBoardError(f"the simulation exited (code {self.procs[0].returncode})")
            if self.console_closed:
                raise SimBoardError(f"{self.console_closed}; got {text[-400:]!r}")
            time.sleep(0.05)
        raise SimBoardError(f"console: {expect!r} did not appear within {timeout:.0f} s; got {text[-400:]!r}")

    def stop(self):
        if self.console_sock is not None:
            try:
                self.console_sock.close()
            except OSError:
                pass
        for p in reversed(self.procs):
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        for p in reversed(self.procs):
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
        self.procs.clear()

    def __enter__(self):
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, *exc):
        self.stop()


def interactive(args):
    """`make sim`: the simulated SoC with its console on this terminal."""
    try:
        board = SimBoard(vdrive=args.vdrive, persona=args.persona, clock_seed=args.clock_seed)
    except SimBoardError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    os.makedirs(board.log_dir, exist_ok=True)
    vsim = os.path.join(board.gateware, "obj_dir", "Vsim")
    if not os.path.exists(vsim):
        print(f"error: {vsim} not found: run make sim-build", file=sys.stderr)
        return 2
    bridge = board.ports["bridge"]
    write_sim_config(os.path.join(board.gateware, "sim_config.js"), console="stdio",
                     bridge_port=bridge, vdrive=board.vdrive, clocks=board.clocks)
    print(f"[simboard] console on this terminal (Ctrl-C quits). litex_server bridge: "
          f"litex_server --uart --uart-port socket://{LOOPBACK}:{bridge}; clocks "
          f"{board.clocks.describe()}", flush=True)
    try:
        return subprocess.call([vsim], cwd=board.gateware)
    except KeyboardInterrupt:
        return 0


def _port(text):
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a port number, not {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"must be 0..65535, not {port}")
    return port


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--server-port", type=_port, default=os.environ.get("SERVER_PORT", "1234"),
                   help="litex_server port on 127.0.0.1 (default 1234, or $SERVER_PORT; 0 = any "
                        "free port)")
    p.add_argument("--vdrive", default=None, help="virtual drive configuration string")
    p.add_argument("--persona", default="ideal",
                   help="virtual drive persona when --vdrive is not given (ideal, slc, mlc28, hdd7200)")
    p.add_argument("--board", choices=boards.names("simulated"), default="sim",
                   help="simulated board (default sim; ecpix5_sim: the ECPIX-5's SoC on the DCUA "
                        "model)")
    p.add_argument("--bridge", choices=("uart", "etherbone"), default="uart",
                   help="litex_server's link to the board (etherbone: ecpix5_sim only, inside "
                        "python -m ecpsata.host.netns)")
    p.add_argument("--clock-seed", default=os.environ.get("CLOCK_SEED", "nominal"),
                   help="the clocks' placement: a seed (each clock shifted against sys, the "
                        "drive's clock off ours within 350 ppm), random, or nominal (the default, "
                        "or $CLOCK_SEED): every clock in phase")
    p.add_argument("--interactive", action="store_true",
                   help="console on this terminal; litex_server's bridge on a loopback port")
    p.add_argument("command", nargs=argparse.REMAINDER, help="command to run once the board is up; "
                   "{port} and {csr_csv} are replaced")
    args = p.parse_args(argv)
    try:
        args.clock_seed = parse_clock_seed(args.clock_seed)
    except ValueError as e:
        p.error(str(e))
    cmd = [c for c in args.command if c != "--"]
    if args.interactive:
        return interactive(args)
    if not cmd:
        p.error("no command given")
    # SIGTERM (e.g. from make or CI) ends like Ctrl-C, so that the finally below runs.
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    try:
        board = SimBoard(server_port=args.server_port, vdrive=args.vdrive, persona=args.persona,
                         board=args.board, bridge=args.bridge, clock_seed=args.clock_seed)
        t0 = time.monotonic()
        print(f"[simboard] starting the simulated SoC (logs in {board.log_dir}); clocks "
              f"{board.clocks.describe()}", flush=True)
        with board:
            board.wait_prompt()
            print(f"[simboard] up in {time.monotonic() - t0:.1f} s; litex_server on "
                  f"{LOOPBACK}:{board.server_port}", flush=True)
            cmd = [c.replace("{port}", str(board.server_port))
                    .replace("{csr_csv}", os.path.join(board.build_dir, "csr.csv")) for c in cmd]
            rc = subprocess.call(cmd)
        print("[simboard] stopped", flush=True)
        return rc
    except SimBoardError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("[simboard] interrupted: stopped everything", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
