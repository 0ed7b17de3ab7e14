"""Property-based fuzzing of the REST API through the sandbox: every operation of the OpenAPI document, with requests
that fit the schema and requests that break it, each sent once per role. No response is a 5xx, and every response
(status, content type, body) is one the document declares.

Bounded: `MAX_EXAMPLES` per operation and mode, derandomized so a run is repeatable. A request is generated once and
sent as every role: generating it costs more than the three calls. Requests that fit the schema mostly name clusters
that do not exist (404) or are refused by role (403); the few that are accepted start real sandbox workflows, which
the module's sandbox stops with it.
"""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, note, settings
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from api.app import openapi_document

MAX_EXAMPLES = 6
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


def fuzz(operation: Any, mode: GenerationMode, base_url: str) -> None:
    @settings(
        max_examples=MAX_EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(case=operation.as_strategy(generation_mode=mode))
    def run(case: schemathesis.Case) -> None:
        for token in ROLES:
            note(f"as {token}")
            case.call_and_validate(base_url=base_url, headers={"Authorization": f"Bearer {token}"}, checks=CHECKS)

    run()


@pytest.mark.parametrize(("operation", "mode"), CASES, ids=[f"{op.label} {mode.value}" for op, mode in CASES])
def test_no_response_is_a_server_error_or_off_schema(running_sandbox, operation, mode):
    fuzz(operation, mode, f"{running_sandbox.base_url}/api")
