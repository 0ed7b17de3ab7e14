"""CPU time of a sandbox's start and stop in a process that has started one before (what every test module after
the first pays), with the process's shared botocore loader and, beside it in the same run, with a fresh loader per
start (moto's default: it drops boto3's default session at each start). Medians of RUNS, interleaved.

Run with `make bench`. A measurement, not a timed assertion.
"""

from __future__ import annotations

import statistics
import time

import botocore.loaders
import pytest

import sandbox.runtime
from sandbox.runtime import Sandbox, SandboxOptions
from tests.conftest import SANDBOX_TIMINGS

RUNS = 7


def start_and_stop(options: SandboxOptions) -> float:
    started = time.process_time()
    sandbox_ = Sandbox(options)
    sandbox_.start()
    sandbox_.stop()
    return time.process_time() - started


def test_sandbox_start_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    options = SandboxOptions(kubernetes_url="http://127.0.0.1:9", **SANDBOX_TIMINGS)
    start_and_stop(options)
    shared_loader = sandbox.runtime._SERVICE_MODELS
    shared, fresh = [], []
    for _ in range(RUNS):
        shared.append(start_and_stop(options))
        monkeypatch.setattr(sandbox.runtime, "_SERVICE_MODELS", botocore.loaders.create_loader())
        fresh.append(start_and_stop(options))
        monkeypatch.setattr(sandbox.runtime, "_SERVICE_MODELS", shared_loader)
    shared_s, fresh_s = statistics.median(shared), statistics.median(fresh)
    print(
        f"\nsandbox start+stop CPU, median of {RUNS}: shared loader {shared_s:.3f} s, "
        f"a fresh loader per start {fresh_s:.3f} s ({fresh_s / shared_s:.1f}x)"
    )
