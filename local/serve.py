"""Run Luma's search functions locally, no AWS account and no Docker needed.

What starts, all on 127.0.0.1:
- a stand-in for binaric.tech serving the bundled demo index (five tongues);
- moto in server mode as the DynamoDB the quota table lives in;
- codex_search and web_search, each on its own port, behind a tiny HTTP server
  that turns requests into Lambda Function URL events (payload 2.0) and calls the
  real handlers in-process, exactly as the Function URL would.

web_search uses EXA_API_KEY from your shell if set (real web results);
without it, it answers with a clear "not configured" error.

Usage: python -m local.serve [--codex-port 9001] [--web-port 9002]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import threading
import time
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, HTTPServer, ThreadingHTTPServer
from pathlib import Path
from types import SimpleNamespace
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEMO_INDEX = ROOT / "local" / "demo-index.json"
TABLE = "luma-quota-local"
# Same key schema as QuotaTable in template.yaml (a test keeps the two in step).
TABLE_SPEC: dict[str, Any] = {
    "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
    "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
    "BillingMode": "PAY_PER_REQUEST",
}
MAX_BODY = 1024 * 1024

Handler = Callable[[dict[str, Any], Any], dict[str, Any]]


def _serve(server: HTTPServer) -> threading.Thread:
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
    thread.start()
    return thread


@contextmanager
def demo_site(port: int = 0) -> Iterator[str]:
    """Serve local/demo-index.json at /search-index.json; yields the index URL."""
    body = DEMO_INDEX.read_bytes()

    class Site(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path.split("?", 1)[0] != "/search-index.json":
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", port), Site)
    _serve(server)
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/search-index.json"
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def local_dynamodb(port: int = 0) -> Iterator[str]:
    """moto's DynamoDB in server mode with the quota table created; yields its endpoint URL."""
    import boto3
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    endpoint = f"http://127.0.0.1:{server.get_host_and_port()[1]}"
    # moto keeps its state per process: start from (and leave) an empty account.
    reset = f"{endpoint}/moto-api/reset"
    try:
        urllib.request.urlopen(urllib.request.Request(reset, method="POST"), timeout=5).close()
        boto3.client("dynamodb", endpoint_url=endpoint).create_table(TableName=TABLE, **TABLE_SPEC)
        yield endpoint
    finally:
        urllib.request.urlopen(urllib.request.Request(reset, method="POST"), timeout=5).close()
        server.stop()


def _context(name: str) -> Any:
    return SimpleNamespace(
        function_name=name,
        function_version="$LATEST",
        memory_limit_in_mb=256,
        invoked_function_arn=f"arn:aws:lambda:us-east-1:000000000000:function:{name}",
        aws_request_id=str(uuid.uuid4()),
        get_remaining_time_in_millis=lambda: 10_000,
    )


def function_url_server(name: str, handler: Handler, port: int = 0) -> HTTPServer:
    """An HTTP server that hands each request to ``handler`` as a Function URL event, one at a time."""

    class FunctionUrl(BaseHTTPRequestHandler):
        def _invoke(self) -> None:
            host, port = self.connection.getsockname()[:2]
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_BODY:
                self.send_error(413)
                return
            raw = self.rfile.read(length) if length else b""
            path, _, query = self.path.partition("?")
            event = {
                "version": "2.0",
                "routeKey": "$default",
                "rawPath": path,
                "rawQueryString": query,
                "headers": {k.lower(): v for k, v in self.headers.items()},
                "requestContext": {
                    "accountId": "anonymous",
                    "apiId": name,
                    "domainName": f"{host}:{port}",
                    "domainPrefix": name,
                    "http": {
                        "method": self.command,
                        "path": path,
                        "protocol": "HTTP/1.1",
                        "sourceIp": self.client_address[0],
                        "userAgent": self.headers.get("User-Agent", ""),
                    },
                    "requestId": str(uuid.uuid4()),
                    "routeKey": "$default",
                    "stage": "$default",
                    "time": time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime()),
                    "timeEpoch": int(time.time() * 1000),
                },
                "body": raw.decode("utf-8", "replace"),
                "isBase64Encoded": False,
            }
            result = handler(event, _context(name))
            body = result.get("body", "").encode()
            self.send_response(int(result.get("statusCode", 200)))
            for key, value in (result.get("headers") or {}).items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = _invoke

        def log_message(self, *args: object) -> None:
            pass

    return HTTPServer(("127.0.0.1", port), FunctionUrl)


@dataclass
class LocalStack:
    """Where everything listens."""

    codex_url: str
    web_url: str
    index_url: str
    dynamodb_url: str


def set_local_defaults() -> None:
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # moto's request log is noise here
    """Dummy AWS credentials and a region (moto accepts any), and Powertools' local settings."""
    defaults = {
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_ACCESS_KEY_ID": "local",
        "AWS_SECRET_ACCESS_KEY": "local",
        "POWERTOOLS_TRACE_DISABLED": "true",
        "POWERTOOLS_METRICS_NAMESPACE": "Luma",
        "POWERTOOLS_METRICS_DISABLED": "true",
        "CODEX_DAILY_PER_USER": "50",
        "WEB_DAILY_PER_USER": "30",
    }
    for key, value in defaults.items():
        os.environ.setdefault(key, value)


def configure_environment(index_url: str, dynamodb_url: str) -> None:
    """Set the variables the functions read, as template.yaml would, pointed at the local stand-ins."""
    site = index_url.split("/")[2]
    os.environ.update(
        {
            "ENABLE_CODEX": "true",
            "ENABLE_WEB_SEARCH": "true",
            "CODEX_INDEX_URL": index_url,
            "GUARD_ALLOW_HOSTS": site,
            "QUOTA_TABLE": TABLE,
            "AWS_ENDPOINT_URL_DYNAMODB": dynamodb_url,
        }
    )


@contextmanager
def local_stack(codex_port: int = 9001, web_port: int = 9002) -> Iterator[LocalStack]:
    """Start the demo site, local DynamoDB and both functions; stop them all on exit."""
    set_local_defaults()
    with ExitStack() as stack:
        index_url = stack.enter_context(demo_site())
        dynamodb_url = stack.enter_context(local_dynamodb())
        configure_environment(index_url, dynamodb_url)
        # Imported only now: the handlers read their configuration on first use.
        from codex_tool.handler import lambda_handler as codex_handler
        from web_tool.handler import lambda_handler as web_handler

        servers = [
            function_url_server("codex", codex_handler, codex_port),
            function_url_server("web", web_handler, web_port),
        ]
        for server in servers:
            _serve(server)
            stack.callback(server.server_close)
            stack.callback(server.shutdown)
        yield LocalStack(
            codex_url=f"http://127.0.0.1:{servers[0].server_address[1]}",
            web_url=f"http://127.0.0.1:{servers[1].server_address[1]}",
            index_url=index_url,
            dynamodb_url=dynamodb_url,
        )


def banner(stack: LocalStack) -> str:
    """The ready-to-paste commands printed at start."""
    web_state = (
        "real Exa (EXA_API_KEY is set)" if os.environ.get("EXA_API_KEY") else "no EXA_API_KEY: answers 'not configured'"
    )
    search = json.dumps({"user_id": "123456789012345678", "query": "machine spirit", "lang": "en"})
    web = json.dumps({"user_id": "123456789012345678", "query": "Adeptus Mechanicus", "num_results": 3})
    return "\n".join(
        [
            "Luma search tools, served locally (Ctrl-C stops everything):",
            f"  codex_search  {stack.codex_url}   (demo index {stack.index_url})",
            f"  web_search    {stack.web_url}   ({web_state})",
            f"  DynamoDB      {stack.dynamodb_url}   (moto, table {TABLE})",
            "",
            "Try:",
            f"  curl -s {stack.codex_url}/search -H 'content-type: application/json' -d '{search}'",
            f"  curl -s {stack.codex_url}/tools",
            f"  curl -s {stack.web_url}/search -H 'content-type: application/json' -d '{web}'",
            "",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    """Serve until interrupted."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--codex-port", type=int, default=int(os.environ.get("CODEX_PORT", "9001")))
    parser.add_argument("--web-port", type=int, default=int(os.environ.get("WEB_PORT", "9002")))
    args = parser.parse_args(argv)
    try:
        with local_stack(args.codex_port, args.web_port) as stack:
            print(banner(stack), flush=True)
            while True:
                time.sleep(3600)
    except KeyboardInterrupt:
        return 0
    except OSError as e:
        print(f"could not start: {e} (is another server on those ports? try --codex-port/--web-port)", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
