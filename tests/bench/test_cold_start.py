"""Cold-start import time of every Lambda entry point, beside the bare Powertools + boto3 import.

Run with `make bench`. Prints medians of fresh-interpreter imports and their ratio to two baselines:
the bare Powertools + boto3 import (the issue's reference; target for the API handler 1.3x) and the
frameworks the handlers are built on (Powertools' event handler, pydantic, boto3), which shows what the
project's own code adds. A measurement, not a timed assertion.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys

import pytest

RUNS = 7
BASELINE = "import aws_lambda_powertools, boto3"
FRAMEWORKS = "import boto3, pydantic; from aws_lambda_powertools.event_handler import APIGatewayRestResolver"
PROBE = "import time; t = time.perf_counter(); {statement}; print(time.perf_counter() - t)"


def import_seconds(statement: str) -> float:
    env = {**os.environ, "PYTHONPATH": "functions:.", "PYTHONDONTWRITEBYTECODE": "1"}
    samples = []
    for _ in range(RUNS):
        output = subprocess.run(
            [sys.executable, "-c", PROBE.format(statement=statement)],
            capture_output=True,
            text=True,
            env=env,
            check=True,
        ).stdout
        samples.append(float(output.strip()))
    return statistics.median(samples)


@pytest.mark.bench
def test_cold_start_import_times():
    baseline = import_seconds(BASELINE)
    frameworks = import_seconds(FRAMEWORKS)
    entries = {
        "api.handler": "import api.handler",
        "mcp_server.lambda_handler": "import mcp_server.lambda_handler",
        "steps.handler": "import steps.handler",
    }
    print(f"\n{'entry point':40} {'median ms':>10} {'x bare':>8} {'x frameworks':>13}")
    print(f"{'powertools + boto3 (bare baseline)':40} {baseline * 1000:10.1f} {1.0:8.2f} {baseline / frameworks:13.2f}")
    print(f"{'event handler + pydantic + boto3':40} {frameworks * 1000:10.1f} {frameworks / baseline:8.2f} {1.0:13.2f}")
    for name, statement in entries.items():
        seconds = import_seconds(statement)
        print(f"{name:40} {seconds * 1000:10.1f} {seconds / baseline:8.2f} {seconds / frameworks:13.2f}")
    assert baseline > 0
