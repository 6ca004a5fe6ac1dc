"""Powertools Logger, Metrics and (when wanted) Tracer for a function, created once per container.

The X-Ray SDK costs ~90 ms of cold start here (``make bench``) the moment a Powertools
``Tracer`` is built, even a disabled one (it creates a botocore X-Ray client at import). So the
Tracer exists only when tracing is on: inside Lambda with
``POWERTOOLS_TRACE_DISABLED`` false. The template keeps it off by default
(Lambda's own active tracing still records every invocation); set it to false
to get subsegments and annotations from the SDK.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, Any, TypeVar

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.metrics import MetricUnit

if TYPE_CHECKING:
    from aws_lambda_powertools import Tracer

NAMESPACE = "Luma"
F = TypeVar("F", bound=Callable[..., Any])


def tracing_enabled(env: Mapping[str, str] | None = None) -> bool:
    """True inside Lambda (not sam local) unless POWERTOOLS_TRACE_DISABLED says otherwise."""
    env = os.environ if env is None else env
    disabled = env.get("POWERTOOLS_TRACE_DISABLED", "false").strip().lower() in ("1", "true", "yes", "on")
    in_lambda = bool(env.get("LAMBDA_TASK_ROOT")) and not env.get("AWS_SAM_LOCAL")
    return in_lambda and not disabled


def powertools(service: str) -> tuple[Logger, Tracer | None, Metrics]:
    """Logger, Tracer (None while tracing is off) and Metrics for ``service``."""
    tracer = None
    if tracing_enabled():
        from aws_lambda_powertools import Tracer

        tracer = Tracer(service=service)
    return Logger(service=service), tracer, Metrics(namespace=NAMESPACE, service=service)


def capture_handler(tracer: Tracer | None) -> Callable[[F], F]:
    """``tracer.capture_lambda_handler`` when tracing is on, else the handler unchanged."""
    if tracer is None:
        return lambda handler: handler
    return tracer.capture_lambda_handler(capture_response=False)


def subsegment(tracer: Tracer | None, name: str) -> AbstractContextManager[Any]:
    """An X-Ray subsegment when tracing is on, else a no-op context."""
    return tracer.provider.in_subsegment(name) if tracer is not None else nullcontext()


def metric_counter(metrics: Metrics) -> Callable[[str], None]:
    """A ``count(name)`` callable that adds one to a CloudWatch metric (for logic that must not know Powertools)."""

    def count(name: str) -> None:
        metrics.add_metric(name=name, unit=MetricUnit.Count, value=1)

    return count


def no_count(name: str) -> None:
    """The default ``count``: metrics are a handler concern, so logic alone counts nothing."""
