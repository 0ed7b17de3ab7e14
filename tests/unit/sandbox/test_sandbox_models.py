"""A sandbox started after another in the same process loads no AWS service model from disk again: moto starts
every mock with no default boto3 session, and the sandbox's session shares the process's loader."""

from __future__ import annotations

from typing import Any

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
