"""The REST contract: the OpenAPI document is checked in, so any change to it is a reviewed change.

Regenerate the snapshot with `UPDATE_SNAPSHOTS=1 make contract` after an intended API change.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from api import app

SNAPSHOT = Path(__file__).with_name("openapi.snapshot.json")


def document() -> dict:
    return app.openapi_document()


def test_openapi_document_matches_the_snapshot():
    current = json.dumps(document(), indent=2, sort_keys=True) + "\n"
    if os.environ.get("UPDATE_SNAPSHOTS"):
        SNAPSHOT.write_text(current)
    assert current == SNAPSHOT.read_text(), "API changed: review it, then UPDATE_SNAPSHOTS=1 to accept"


def test_every_operation_has_an_id_a_summary_and_a_tag():
    operations = [op for path in document()["paths"].values() for op in path.values()]
    assert operations
    for operation in operations:
        assert operation["operationId"].islower() and "_" in operation["operationId"]
        assert operation["summary"]
        assert operation["tags"]


def test_errors_are_documented_with_the_one_error_body():
    for path in document()["paths"].values():
        for operation in path.values():
            assert "422" not in operation["responses"]
            assert operation["responses"]["400"]["content"]["application/json"]["schema"] == {
                "$ref": "#/components/schemas/ErrorBody"
            }


def test_request_bodies_refuse_unknown_fields():
    schemas = document()["components"]["schemas"]
    assert schemas["CreateEksClusterRequest"]["additionalProperties"] is False


def test_every_reference_resolves():
    """A dangling `$ref` breaks every generator that reads the document (the console's types among them)."""
    text = json.dumps(document())
    schemas = document()["components"]["schemas"]
    referenced = set(re.findall(r'"#/components/schemas/([^"]+)"', text))
    assert referenced, "the document references no schema"
    assert referenced <= set(schemas), f"dangling references: {sorted(referenced - set(schemas))}"


def test_no_two_models_share_a_schema_name():
    """Two models of one name get module-qualified names (`controlplane__models__…`), which clients then read."""
    assert [name for name in document()["components"]["schemas"] if "__" in name] == []


def test_a_model_service_and_a_managed_endpoint_are_called_with_the_same_chat_contract():
    paths = document()["paths"]
    chats = [paths[f"/clusters/{{clusterTag}}/{kind}/{{name}}/chat"]["post"] for kind in ("services", "endpoints")]
    requests = [chat["requestBody"]["content"]["application/json"]["schema"] for chat in chats]
    answers = [chat["responses"]["200"]["content"]["application/json"]["schema"] for chat in chats]
    assert requests == [{"$ref": "#/components/schemas/ChatCompletionRequest"}] * 2
    assert answers == [{"$ref": "#/components/schemas/ChatCompletion"}] * 2
