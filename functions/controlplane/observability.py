"""Powertools logger and tracer, created on first use."""

from __future__ import annotations

from functools import cache

from aws_lambda_powertools import Logger


@cache
def logger() -> Logger:
    return Logger(service="instantstart")
