"""Property-based fuzzing of the REST API through the sandbox: every operation of the OpenAPI document, with requests
that fit the schema and requests that break it, each sent once per role. No response is a 5xx, and every response
(status, content type, body) is one the document declares.

Bounded: `FUZZ_EXAMPLES` examples per operation and mode (a few by default, for the suite's time; `make fuzz` runs
25), derandomized so a run is repeatable. A request is generated once and sent as every role: generating it costs more
than the three calls. Half the requests of an operation with path parameters name what exists (a living cluster,
built with storage when the module starts, its instance group, a node, an operation, a recipe, its Region), so that
they reach past the lookups into the handlers; the rest mostly name what does not exist (404) or are refused by role
(403). The few that are accepted start real sandbox workflows, which the module's sandbox stops with it. The module
prints what it sent: operations, examples, requests and 5xx.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from api.app import openapi_document

DEFAULT_EXAMPLES = 6
LIVING_CLUSTER = "fuzzed"
ROLES = ("sandbox-admin", "sandbox-operator", "sandbox-viewer")
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]
SCHEMA = schemathesis.openapi.from_dict(openapi_document())
OPERATIONS = [result.ok() for result in SCHEMA.get_all_operations()]
# Only an operation with inputs has a request that breaks the schema.
CASES = [
    (operation, mode)
    for operation in OPERATIONS
    for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE)
    if mode is GenerationMode.POSITIVE or operation.path_parameters or operation.query or operation.body
]
# One connection pool for the module's requests: a new session per request would open a connection per request.
SESSION = requests.Session()
# What the module sent: examples, and responses by status (shrinking's replays count too).
SENT: Counter[str] = Counter()


def max_examples() -> int:
    return int(os.environ.get("FUZZ_EXAMPLES", DEFAULT_EXAMPLES))


@pytest.fixture(scope="module")
def living(running_sandbox) -> Iterator[dict[str, str]]:
    """The path parameters of what exists: a cluster built with storage, its instance group, a node, an operation."""
    running_sandbox.build_cluster(LIVING_CLUSTER, storage=True)
    with running_sandbox.client("sandbox-viewer") as api:
        cluster = f"/clusters/{LIVING_CLUSTER}"
        found = {
            "clusterTag": LIVING_CLUSTER,
            "region": api.get(cluster).json()["region"],
            "name": api.get(f"{cluster}/instance-groups").json()["instanceGroups"][0]["instanceGroupName"],
            "nodeId": api.get(f"{cluster}/nodes").json()["nodes"][0]["nodeId"],
            "operationId": api.get("/operations", params={"clusterTag": LIVING_CLUSTER}).json()["operations"][0][
                "operationId"
            ],
            "recipeName": api.get("/recipes").json()["recipes"][0]["name"],
        }
    SENT.clear()
    yield found
    server_errors = sum(count for status, count in SENT.items() if status.startswith("5"))
    print(
        f"\nfuzz: {len({op.label for op, _ in CASES})} operations, {len(CASES)} operation-modes, {SENT['examples']} "
        f"examples (at most {max_examples()} per operation and mode), {SENT.total() - SENT['examples']} requests "
        f"as {len(ROLES)} roles, {server_errors} 5xx; by status: "
        + ", ".join(f"{status}: {count}" for status, count in sorted(SENT.items()) if status != "examples")
    )


def cases(operation: Any, mode: GenerationMode, living: dict[str, str]) -> st.SearchStrategy[schemathesis.Case]:
    """The operation's requests; for one with path parameters, half of them name what exists."""
    generated = operation.as_strategy(generation_mode=mode)
    existing = {p.name: living[p.name] for p in operation.path_parameters if p.name in living}
    if not existing:
        return generated
    return st.one_of(generated, operation.as_strategy(generation_mode=mode, path_parameters=existing))


def fuzz(operation: Any, mode: GenerationMode, base_url: str, living: dict[str, str]) -> None:
    @settings(
        max_examples=max_examples(),
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(case=cases(operation, mode, living))
    def run(case: schemathesis.Case) -> None:
        SENT["examples"] += 1
        for token in ROLES:
            note(f"as {token}")
            headers = {"Authorization": f"Bearer {token}"}
            response = case.call(base_url=base_url, session=SESSION, headers=headers)
            SENT[str(response.status_code)] += 1
            case.validate_response(response, checks=CHECKS, headers=headers, transport_kwargs={"base_url": base_url})

    run()


@pytest.mark.parametrize(
    ("operation", "mode"), [pytest.param(op, mode, id=f"{op.label} {mode.value}") for op, mode in CASES]
)
def test_no_response_is_a_server_error_or_off_schema(running_sandbox, living, operation, mode):
    fuzz(operation, mode, f"{running_sandbox.base_url}/api", living)
