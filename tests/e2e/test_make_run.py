"""`make run`'s process (`python -m sandbox`): starts on PORT, prints the URL and tokens, creates a cluster."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import httpx

from controlplane.models.operations import TERMINAL_STATUSES
from tests.conftest import free_port


def test_the_sandbox_process_serves_the_readme_walkthrough():
    port = free_port()
    env = {**os.environ, "PORT": str(port), "PYTHONPATH": "functions:."}
    process = subprocess.Popen(
        [sys.executable, "-m", "sandbox"], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    try:
        banner = [process.stdout.readline() for _ in range(2)]
        assert f"http://127.0.0.1:{port}" in banner[0]
        assert "sandbox-admin" in banner[1] and "sandbox-viewer" in banner[1]
        api = httpx.Client(
            base_url=f"http://127.0.0.1:{port}/api", timeout=30, headers={"Authorization": "Bearer sandbox-admin"}
        )
        for _ in range(100):
            try:
                api.get("/clusters")
                break
            except httpx.TransportError:
                time.sleep(0.1)
        started = time.monotonic()
        accepted = api.post("/clusters/eks", json={"clusterTag": "demo", "region": "us-west-2"})
        assert accepted.status_code == 202, accepted.text
        operation = accepted.json()
        while operation["status"] not in TERMINAL_STATUSES and time.monotonic() - started < 60:
            operation = api.get(f"/operations/{operation['operationId']}/wait", params={"timeoutSeconds": 20}).json()
        assert operation["status"] == "SUCCEEDED", operation
        assert time.monotonic() - started < 60
        assert [stage["name"] for stage in operation["stages"]] == [
            "network",
            "iam",
            "eks-control-plane",
            "cluster-access",
            "kubernetes-api",
            "events",
        ]
        assert all(stage["startedAt"] and stage["endedAt"] for stage in operation["stages"])
    finally:
        process.terminate()
        process.wait(timeout=20)
