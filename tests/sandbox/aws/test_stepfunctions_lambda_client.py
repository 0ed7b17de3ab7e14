"""moto's Lambda tasks share one boto3 client per Region and service, built once even when tasks start together."""

from __future__ import annotations

import threading
from typing import Any

from sandbox.aws.stepfunctions import lambda_client_for


def test_one_client_per_region_and_service_however_many_tasks_ask_at_once() -> None:
    built: list[tuple[str, str]] = []

    def build(region: str, service: str, state_credentials: Any = None) -> object:
        built.append((region, service))
        return object()

    client_for = lambda_client_for(build)
    clients: list[object] = []
    askers = [
        threading.Thread(target=lambda: clients.append(client_for(region="us-west-2", service="lambda")))
        for _ in range(8)
    ]
    for asker in askers:
        asker.start()
    for asker in askers:
        asker.join()

    assert built == [("us-west-2", "lambda")]
    assert len(clients) == 8 and len({id(client) for client in clients}) == 1
    assert client_for(region="eu-west-1", service="lambda") is not clients[0]
    assert built == [("us-west-2", "lambda"), ("eu-west-1", "lambda")]
