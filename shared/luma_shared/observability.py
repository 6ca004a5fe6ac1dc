"""Powertools Logger, Tracer and Metrics for a function, created once per container."""

from __future__ import annotations

from aws_lambda_powertools import Logger, Metrics, Tracer

NAMESPACE = "Luma"


def powertools(service: str) -> tuple[Logger, Tracer, Metrics]:
    """The three Powertools objects for ``service`` (env vars such as POWERTOOLS_* still apply)."""
    return Logger(service=service), Tracer(service=service), Metrics(namespace=NAMESPACE, service=service)
