"""The performance benchmark (`make bench`): one run, one index, one query set, every figure.

Prints ratios first (these machines are shared and noisy; ratios measured in the
same run hold up better than absolute times), then the absolute figures. It
reports and never fails on timings.

Measured on a synthetic 4 MiB index in five tongues (bench/synth_index.py):
- index build (parse + precompute, i.e. ``load_index``) against ``json.loads`` plus
  tokenizing every field once with the same tokenizer;
- per-query median and p99 of this project, of the straightforward spec scan
  (tests/oracle.py, the tests' oracle) and of lunr.py with fields boosted 8/3/1,
  on the same queries;
- handler-level warm latency of a direct invocation with metering off
  (``CODEX_DAILY_PER_USER=0``), the index served by a loopback stand-in for binaric.tech;
- cold-start import time of each handler module against the floor
  ``import boto3, httpx`` plus the Powertools pieces the handlers use, each in a fresh
  interpreter configured as in Lambda (tracing on);
- peak RSS of a fresh process after a handler has fetched and loaded the index.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PATHS = [str(ROOT / "shared"), str(ROOT / "functions" / "codex"), str(ROOT / "functions" / "web"), str(ROOT)]
for _path in reversed(PATHS):
    if _path not in sys.path:
        sys.path.insert(0, _path)

from bench.lunr_peer import build_lunr, search_lunr  # noqa: E402
from bench.synth_index import MAX_INDEX_BYTES, generate_index, generate_queries, index_stats  # noqa: E402
from codex_tool.inscriptions import parse_index  # noqa: E402
from codex_tool.ranking import load_index  # noqa: E402
from codex_tool.text import query_terms, tokenize  # noqa: E402
from tests.oracle import oracle_search  # noqa: E402

INDEX_URL = "https://binaric.tech/search-index.json"
LIMIT = 5
FLOOR_IMPORT = (
    "import boto3, httpx\n"
    "from aws_lambda_powertools import Logger, Metrics, Tracer\n"
    "from aws_lambda_powertools.event_handler import LambdaFunctionUrlResolver\n"
)
# As deployed by template.yaml (X-Ray SDK off; see luma_shared.observability).
LAMBDA_ENV = {
    "LAMBDA_TASK_ROOT": "/var/task",
    "POWERTOOLS_TRACE_DISABLED": "true",
    "AWS_LAMBDA_FUNCTION_NAME": "bench",
    "AWS_REGION": "us-east-1",
    "AWS_DEFAULT_REGION": "us-east-1",
    "POWERTOOLS_METRICS_NAMESPACE": "Luma",
    "PYTHONPATH": os.pathsep.join(PATHS),
}


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (nearest rank) of ``values``."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered)) - 1))]


def per_query_times(run: Callable[[int], object], count: int, passes: int) -> list[float]:
    """Seconds per query: for each query the median of ``passes`` timed runs."""
    samples: list[list[float]] = [[] for _ in range(count)]
    clock = time.perf_counter
    for _ in range(passes):
        for i in range(count):
            started = clock()
            run(i)
            samples[i].append(clock() - started)
    return [statistics.median(s) for s in samples]


def alternate(first: Callable[[], object], second: Callable[[], object], rounds: int) -> tuple[float, float]:
    """Median seconds of two workloads timed in alternation (so drift hits both alike)."""
    a: list[float] = []
    b: list[float] = []
    for _ in range(rounds):
        for fn, out in ((first, a), (second, b)):
            started = time.perf_counter()
            fn()
            out.append(time.perf_counter() - started)
    return statistics.median(a), statistics.median(b)


def import_seconds(code: str, extra_env: dict[str, str]) -> float:
    """Seconds a fresh interpreter spends running ``code`` (imports), interpreter start excluded."""
    script = f"import time\n_t = time.perf_counter()\n{code}\nprint(time.perf_counter() - _t)\n"
    env = {**os.environ, **LAMBDA_ENV, **extra_env}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    return float(done.stdout.strip().splitlines()[-1])


@contextlib.contextmanager
def served(body: bytes) -> Iterator[str]:
    """Serve ``body`` on a loopback port; yields the URL."""
    from tests.loopback import Route, loopback_server

    with loopback_server({"/search-index.json": Route(body=body)}) as srv:
        yield f"{srv.base}/search-index.json"


PEAK_RSS_SCRIPT = """
import json, os, sys
from tests.loopback import Route, loopback_server
body = open(sys.argv[1], "rb").read()
with loopback_server({"/search-index.json": Route(body=body)}) as srv:
    os.environ.update({"ENABLE_CODEX": "true", "CODEX_DAILY_PER_USER": "0",
                       "CODEX_INDEX_URL": srv.base + "/search-index.json", "GUARD_ALLOW_HOSTS": srv.host_port})
    del body
    from types import SimpleNamespace
    from codex_tool import handler
    ctx = SimpleNamespace(function_name="b", memory_limit_in_mb=256, aws_request_id="r",
                          invoked_function_arn="arn:aws:lambda:us-east-1:0:function:b")
    out = handler.lambda_handler({"user_id": "1", "query": "omnissiah machine"}, ctx)
    assert "results" in out, out
# VmHWM, not ru_maxrss: Linux carries ru_maxrss over from the (large) parent across fork and exec.
status = dict(line.split(":", 1) for line in open("/proc/self/status") if ":" in line)
kib = lambda key: int(status[key].split()[0]) * 1024
print(json.dumps({"peak": kib("VmHWM"), "current": kib("VmRSS")}))
"""


def machine() -> str:
    """A one-line description of where the numbers came from."""
    cpu = platform.processor() or platform.machine()
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    return (
        f"{cpu}, {os.cpu_count()} cores, {platform.system()} {platform.machine()}, Python {platform.python_version()}"
    )


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print the report."""
    parser = argparse.ArgumentParser(description="Luma codex_search benchmark")
    parser.add_argument("--bytes", type=int, default=MAX_INDEX_BYTES, help="synthetic index size")
    parser.add_argument("--queries", type=int, default=1000, help="queries for this project's figures")
    parser.add_argument("--peer-queries", type=int, default=200, help="queries shared with the scan and lunr")
    parser.add_argument("--rounds", type=int, default=9, help="repeats of build and import timings")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    raw = generate_index(args.bytes, args.seed)
    stats = index_stats(raw)
    queries = generate_queries(args.queries, args.seed)
    peer = queries[: args.peer_queries]
    terms = [query_terms(q) for q, _ in queries]

    # Build: load_index against json.loads + tokenizing every field once.
    def baseline() -> None:
        for entry in json.loads(raw):
            tokenize(entry["title"]), tokenize(entry["summary"]), tokenize(entry["body"])

    base_s, build_s = alternate(baseline, lambda: load_index(raw, INDEX_URL), args.rounds)
    index = load_index(raw, INDEX_URL)
    inscriptions = parse_index(raw, INDEX_URL)

    # Queries: this project on all queries; all three on the shared peer set.
    ours_all = per_query_times(lambda i: index.search(terms[i], queries[i][1], LIMIT), len(queries), passes=5)
    ours = ours_all[: len(peer)]
    scan = per_query_times(lambda i: oracle_search(inscriptions, terms[i], peer[i][1], LIMIT), len(peer), passes=1)
    entries = json.loads(raw)
    lunr_build_started = time.perf_counter()
    lunr_index = build_lunr(entries)
    lunr_build_s = time.perf_counter() - lunr_build_started
    lunr = per_query_times(lambda i: search_lunr(lunr_index, peer[i][0], LIMIT), len(peer), passes=3)

    # Handler: warm direct invocations with metering off.
    with served(raw) as url:
        os.environ.update(
            {
                "ENABLE_CODEX": "true",
                "CODEX_DAILY_PER_USER": "0",
                "CODEX_INDEX_URL": url,
                "GUARD_ALLOW_HOSTS": url.split("/")[2],
                "POWERTOOLS_TRACE_DISABLED": "true",
                "POWERTOOLS_METRICS_NAMESPACE": "Luma",
            }
        )
        from types import SimpleNamespace

        from codex_tool import handler

        ctx: Any = SimpleNamespace(
            function_name="bench",
            memory_limit_in_mb=256,
            aws_request_id="r",
            invoked_function_arn="arn:aws:lambda:us-east-1:000000000000:function:bench",
        )
        events = [{"user_id": "123456789012345678", "query": q, "lang": lang} for q, lang in queries]
        sink = io.StringIO()
        with contextlib.redirect_stdout(sink):
            cold_started = time.perf_counter()
            first = handler.lambda_handler(events[0], ctx)
            cold_s = time.perf_counter() - cold_started
            assert "results" in first, first
            warm = per_query_times(lambda i: handler.lambda_handler(events[i], ctx), len(events), passes=2)

    # Cold start: imports in fresh interpreters, as in Lambda (tracing on), alternating.
    floor, codex_import, web_import, traced_import = [], [], [], []
    for _ in range(args.rounds):
        floor.append(import_seconds(FLOOR_IMPORT, {}))
        codex_import.append(import_seconds("import codex_tool.handler", {}))
        web_import.append(import_seconds("import web_tool.handler", {}))
        traced_import.append(import_seconds("import codex_tool.handler", {"POWERTOOLS_TRACE_DISABLED": "false"}))
    floor_s, codex_s, web_s, traced_s = (statistics.median(x) for x in (floor, codex_import, web_import, traced_import))

    # Memory: a fresh process that fetched and loaded the index through the handler.
    index_file = ROOT / "bench" / "out" / f"synth-{args.bytes}-{args.seed}.json"
    index_file.parent.mkdir(exist_ok=True)
    index_file.write_bytes(raw)
    env = {**os.environ, **LAMBDA_ENV, "POWERTOOLS_TRACE_DISABLED": "true"}
    rss = json.loads(
        subprocess.run(
            [sys.executable, "-c", PEAK_RSS_SCRIPT, str(index_file)],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        .stdout.strip()
        .splitlines()[-1]
    )

    med = statistics.median
    us, ms, mib = 1e6, 1e3, 1024 * 1024
    tongues = ", ".join(f"{lang} {s['entries']}" for lang, s in stats.items())
    rows = [
        ("query vs spec scan (median, same queries)", f"{med(scan) / med(ours):,.0f}×", "≥ 200×"),
        ("query vs lunr.py (median, same queries)", f"{med(lunr) / med(ours):,.0f}×", "≥ 100×"),
        ("index build / (json.loads + tokenize once)", f"{build_s / base_s:.2f}×", "≤ 2×"),
        ("codex handler import / floor", f"{codex_s / floor_s:.2f}×", "≤ 1.3×"),
        ("web handler import / floor", f"{web_s / floor_s:.2f}×", "≤ 1.3×"),
    ]
    print(f"Luma codex_search benchmark  ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())})")
    print(f"machine: {machine()}")
    print(f"index:   {len(raw):,} bytes synthetic, {len(inscriptions):,} inscriptions ({tongues}), seed {args.seed}")
    print(f"queries: {len(queries)} generated (first {len(peer)} shared with the scan and lunr.py)\n")
    print("RATIOS (same run)")
    for name, value, target in rows:
        print(f"  {name:<46} {value:>10}   target {target}")
    print("\nABSOLUTE")

    def line(name: str, figure: str, note: str = "") -> None:
        print(f"  {name:<24}{figure}{'   ' + note if note else ''}")

    def spread(values: Sequence[float], scale: float, unit: str, digits: int = 1) -> str:
        p50, p99 = med(values) * scale, percentile(values, 99) * scale
        return f"median {p50:8.{digits}f} {unit}   p99 {p99:8.{digits}f} {unit}"

    line("this project, query", spread(ours_all, us, "µs"), f"(target median ≤ 100 µs; {len(ours_all)} queries)")
    line(f"this project, first {len(peer)}", spread(ours, us, "µs"))
    line("spec scan (oracle)", spread(scan, ms, "ms", 2))
    line("lunr.py 0.8.0", spread(lunr, ms, "ms", 2), f"build {lunr_build_s:.2f} s")
    line("index build", f"{build_s * ms:8.1f} ms", f"(json.loads + tokenize once: {base_s * ms:.1f} ms)")
    line("handler warm invoke", spread(warm, us, "µs"), "(target median ≤ 1 ms; metering off)")
    line("handler first invoke", f"{cold_s * ms:8.1f} ms", "(fetch over loopback + parse + build)")
    line("import codex handler", f"{codex_s * ms:8.1f} ms", f"web {web_s * ms:.1f} ms, floor {floor_s * ms:.1f} ms")
    line("  with X-Ray SDK on", f"{traced_s * ms:8.1f} ms", "(POWERTOOLS_TRACE_DISABLED=false)")
    resident = f"(resident {rss['current'] / mib:.1f} MiB; target ≤ 128 MiB)"
    line("peak RSS, index loaded", f"{rss['peak'] / mib:8.1f} MiB", resident)
    return 0


if __name__ == "__main__":
    sys.exit(main())
