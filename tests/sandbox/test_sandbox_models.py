"""What a sandbox start loads.

- A sandbox started after another in the same process loads no AWS service model from disk again: moto starts every
  mock with no default boto3 session, and the sandbox's session shares the process's loader.
- Its EC2 holds no catalogue of public images: moto would parse thousands into every Region's backend.
"""

from __future__ import annotations

import os
from typing import Any

import boto3
import pytest
from botocore.loaders import JSONFileLoader

from sandbox.runtime import Sandbox, SandboxOptions
from tests.conftest import SANDBOX_TIMINGS


def test_a_second_sandbox_reads_no_service_model_from_disk(monkeypatch: pytest.MonkeyPatch) -> None:
    options = SandboxOptions(kubernetes_url="http://127.0.0.1:9", **SANDBOX_TIMINGS)
    first = Sandbox(options)
    first.start()
    first.stop()

    loaded: list[str] = []
    load_file = JSONFileLoader.load_file

    def counted(loader: JSONFileLoader, file_path: str) -> Any:
        loaded.append(file_path)
        return load_file(loader, file_path)

    monkeypatch.setattr(JSONFileLoader, "load_file", counted)
    second = Sandbox(options)
    second.start()
    second.stop()
    assert loaded == []


def test_a_sandbox_s_ec2_has_no_public_image_catalogue_and_the_setting_ends_with_it() -> None:
    sandbox = Sandbox(SandboxOptions(kubernetes_url="http://127.0.0.1:9", **SANDBOX_TIMINGS))
    sandbox.start()
    try:
        assert boto3.client("ec2", region_name="us-west-2").describe_images(Owners=["amazon"])["Images"] == []
    finally:
        sandbox.stop()
    assert "MOTO_EC2_LOAD_DEFAULT_AMIS" not in os.environ
