"""Observability: the X-Ray SDK (and its cold-start cost) is loaded only when tracing is on."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from luma_shared.observability import capture_handler, subsegment, tracing_enabled
from tests.conftest import ROOT

PYTHONPATH = os.pathsep.join(str(ROOT / p) for p in ("shared", "functions/codex", "functions/web", "."))


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"LAMBDA_TASK_ROOT": "/var/task"}, True),
        ({"LAMBDA_TASK_ROOT": "/var/task", "POWERTOOLS_TRACE_DISABLED": "true"}, False),
        ({"LAMBDA_TASK_ROOT": "/var/task", "AWS_SAM_LOCAL": "true"}, False),
        ({}, False),
    ],
)
def test_tracing_enabled(env: dict[str, str], expected: bool) -> None:
    """GIVEN where we run and the flag WHEN asked THEN tracing only inside real Lambda with the flag not set."""
    assert tracing_enabled(env) is expected


def test_without_tracer_the_handler_is_unchanged() -> None:
    """GIVEN tracing off WHEN decorating THEN the very same function, and subsegments are no-ops."""

    def handler(event: object, context: object) -> str:
        return "ok"

    assert capture_handler(None)(handler) is handler
    with subsegment(None, "x"):
        pass


@pytest.mark.parametrize(("disabled", "loaded"), [("true", False), ("false", True)])
def test_xray_sdk_is_imported_only_when_tracing(disabled: str, loaded: bool) -> None:
    """GIVEN a fresh interpreter configured as in Lambda WHEN a handler is imported THEN aws_xray_sdk is loaded
    only with POWERTOOLS_TRACE_DISABLED=false, and boto3 is never loaded at import."""
    env = {
        **os.environ,
        "PYTHONPATH": PYTHONPATH,
        "LAMBDA_TASK_ROOT": "/var/task",
        "AWS_REGION": "us-east-1",
        "POWERTOOLS_TRACE_DISABLED": disabled,
    }
    code = "import sys, codex_tool.handler; print('aws_xray_sdk' in sys.modules, 'boto3' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.split() == [str(loaded), "False"]
