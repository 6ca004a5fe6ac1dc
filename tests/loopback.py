"""A tiny HTTP server on 127.0.0.1 for tests that need a real socket (timeouts, caps, redirects,
connection reuse). Every wait it makes is bounded and ends when the server stops."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MAX_DRIP_S = 5.0  # a dripping body stops after this long, whatever the test asked


@dataclass
class Route:
    """What the server answers on one path (GET or POST)."""

    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds to wait before the status line
    drip: float = 0.0  # seconds between 1-byte chunks of the body (0: send at once)
    send_length: bool = True  # False: no Content-Length, the body ends when the connection closes


@dataclass
class Loopback:
    """The running server: its base URL, its routes and the requests it saw."""

    base: str
    host_port: str
    routes: dict[str, Route]
    seen: list[tuple[str, dict[str, str], bytes]] = field(default_factory=list)  # (path, headers, body)
    client_ports: list[int] = field(default_factory=list)

    @property
    def hits(self) -> list[str]:
        """The paths requested, in order."""
        return [path for path, _, _ in self.seen]


@contextmanager
def loopback_server(routes: dict[str, Route]) -> Iterator[Loopback]:
    """Serve ``routes`` on 127.0.0.1 (a free port) for the duration of the block."""
    stop = threading.Event()
    state: Loopback

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, so tests can see connection reuse

        def do_GET(self) -> None:
            # Read the whole request first: closing with unread input would reset the connection.
            body = self.rfile.read(min(int(self.headers.get("Content-Length") or 0), 1 << 20))
            path = self.path.split("?", 1)[0]
            state.seen.append((path, dict(self.headers.items()), body))
            state.client_ports.append(self.client_address[1])
            route = state.routes.get(path, Route(status=404, body=b"not found"))
            if route.delay and stop.wait(route.delay):
                return
            self.send_response(route.status)
            for name, value in route.headers.items():
                self.send_header(name, value)
            if route.send_length:
                self.send_header("Content-Length", str(len(route.body)))
            else:
                self.send_header("Connection", "close")
                self.close_connection = True
            self.end_headers()
            try:
                if not route.drip:
                    self.wfile.write(route.body)
                    return
                deadline = time.monotonic() + MAX_DRIP_S
                for i in range(len(route.body)):
                    if stop.wait(route.drip) or time.monotonic() > deadline:
                        return
                    self.wfile.write(route.body[i : i + 1])
                    self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                pass

        do_POST = do_GET

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    port = server.server_address[1]
    state = Loopback(base=f"http://127.0.0.1:{port}", host_port=f"127.0.0.1:{port}", routes=routes)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        stop.set()
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
