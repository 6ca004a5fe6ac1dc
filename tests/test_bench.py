"""The benchmark stays runnable: a tiny run prints every figure issue 4 asks for (timings are not judged)."""

from __future__ import annotations

import os
from unittest import mock

import pytest

from bench import run


def test_tiny_benchmark_prints_every_figure(capsys: pytest.CaptureFixture[str], fresh_handlers: None) -> None:
    """GIVEN a 200 kB index and 20 queries WHEN the benchmark runs THEN ratios come first and every figure is there."""
    with mock.patch.dict(os.environ):
        assert run.main(["--bytes", "200000", "--queries", "20", "--peer-queries", "10", "--rounds", "1"]) == 0
    out = capsys.readouterr().out
    assert out.index("RATIOS") < out.index("ABSOLUTE")
    for figure in (
        "vs spec scan",
        "vs lunr.py",
        "index build /",
        "handler import / floor",
        "handler warm invoke",
        "import codex handler",
        "peak RSS",
        "lunr.py 0.8.0",
        "spec scan (oracle)",
    ):
        assert figure in out, figure
