"""A tiny HTTP server on 127.0.0.1 for tests that need a real socket (timeouts, caps, redirects)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Route:
    """What the server answers on one path."""

    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds to wait before answering
    drip: float = 0.0  # seconds between 1-byte chunks of the body (0: send at once)
    send_length: bool = True


@dataclass
class Loopback:
    """The running server: its base URL, its routes and the requests it saw."""

    base: str
    host_port: str
    routes: dict[str, Route]
    hits: list[str] = field(default_factory=list)


@contextmanager
def loopback_server(routes: dict[str, Route]) -> Iterator[Loopback]:
    """Serve ``routes`` on 127.0.0.1 (a free port) for the duration of the block."""
    state: Loopback

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            if length:
                self.rfile.read(min(length, 1 << 20))  # drain a request body so the socket closes cleanly
            state.hits.append(self.path)
            route = state.routes.get(self.path.split("?", 1)[0], Route(status=404, body=b"not found"))
            if route.delay:
                time.sleep(route.delay)
            self.send_response(route.status)
            for name, value in route.headers.items():
                self.send_header(name, value)
            if route.send_length:
                self.send_header("Content-Length", str(len(route.body)))
            self.end_headers()
            try:
                if route.drip:
                    deadline = time.monotonic() + 5  # bounded, whatever the test asked
                    for i in range(len(route.body)):
                        if time.monotonic() > deadline:
                            break
                        self.wfile.write(route.body[i : i + 1])
                        self.wfile.flush()
                        time.sleep(route.drip)
                else:
                    self.wfile.write(route.body)
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
        server.shutdown()
        server.server_close()
