"""The API's view of its callers: Cognito users, bound IAM roles, and the MCP server acting for a user."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from aws_lambda_powertools.utilities.data_classes.api_gateway_proxy_event import APIGatewayProxyEvent

from api.auth import ON_BEHALF_OF_HEADER, actor_of
from controlplane.core.auth import Role
from controlplane.models.errors import AuthenticationRequiredError, ForbiddenError
from controlplane.settings import settings
from mcp_server.auth import VerifiedUser

ACCOUNT = "123456789012"
MCP_ROLE = f"arn:aws:iam::{ACCOUNT}:role/InstantStart-McpRole"
MCP_CALLER = f"arn:aws:sts::{ACCOUNT}:assumed-role/InstantStart-McpRole/InstantStart-McpFunction"
OPERATOR_ROLE = f"arn:aws:iam::{ACCOUNT}:role/Automation"
OPERATOR_CALLER = f"arn:aws:sts::{ACCOUNT}:assumed-role/Automation/ci"


@pytest.fixture(autouse=True)
def configured(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("IS_IAM_ROLE_BINDINGS", json.dumps({OPERATOR_ROLE: "operator", MCP_ROLE: "viewer"}))
    monkeypatch.setenv("IS_MCP_ROLE_ARN", MCP_ROLE)
    monkeypatch.setenv("IS_MCP_MAX_ROLE", "operator")
    settings.cache_clear()
    yield
    settings.cache_clear()


def event(*, claims: dict[str, Any] | None = None, user_arn: str | None = None, on_behalf_of: str | None = None):
    headers = {"Content-Type": "application/json"}
    if on_behalf_of is not None:
        headers["X-InstantStart-On-Behalf-Of"] = on_behalf_of
    return APIGatewayProxyEvent(
        {
            "path": "/clusters",
            "httpMethod": "POST",
            "headers": headers,
            "requestContext": {
                "requestId": "r-1",
                "identity": {"userArn": user_arn},
                "authorizer": {"claims": claims} if claims else None,
            },
        }
    )


def through_mcp(user: VerifiedUser) -> APIGatewayProxyEvent:
    return event(user_arn=MCP_CALLER, on_behalf_of=user.header())


def test_a_cognito_user_gets_the_role_of_their_strongest_group():
    actor = actor_of(event(claims={"cognito:username": "alice", "cognito:groups": "viewer,admin"}))
    assert (actor.principal, actor.role, actor.via) == ("alice", Role.ADMIN, None)


def test_an_iam_caller_gets_the_role_bound_to_its_iam_role():
    actor = actor_of(event(user_arn=OPERATOR_CALLER))
    assert (actor.principal, actor.role, actor.via) == (OPERATOR_CALLER, Role.OPERATOR, None)


def test_the_actor_says_how_its_principal_signed_in_even_through_the_mcp_server():
    assert actor_of(event(claims={"cognito:username": "alice", "cognito:groups": "viewer"})).source == "cognito"
    assert actor_of(event(user_arn=OPERATOR_CALLER)).source == "iam"
    assert actor_of(through_mcp(VerifiedUser("bob", "cognito", ("viewer",)))).source == "cognito"
    assert actor_of(through_mcp(VerifiedUser(OPERATOR_CALLER, "iam"))).source == "iam"


def test_a_role_bound_with_its_path_matches_its_sessions_by_account_and_name(monkeypatch: pytest.MonkeyPatch):
    sso_role = f"arn:aws:iam::{ACCOUNT}:role/aws-reserved/sso.amazonaws.com/eu-west-1/AWSReservedSSO_Admin_0123abcd"
    monkeypatch.setenv("IS_IAM_ROLE_BINDINGS", json.dumps({sso_role: "admin"}))
    settings.cache_clear()
    session = f"arn:aws:sts::{ACCOUNT}:assumed-role/AWSReservedSSO_Admin_0123abcd/alice@example.com"
    assert actor_of(event(user_arn=session)).role == Role.ADMIN
    for stranger in (
        "arn:aws:sts::999999999999:assumed-role/AWSReservedSSO_Admin_0123abcd/alice@example.com",
        f"arn:aws:sts::{ACCOUNT}:assumed-role/AWSReservedSSO_Admin/alice@example.com",
        f"arn:aws-cn:sts::{ACCOUNT}:assumed-role/AWSReservedSSO_Admin_0123abcd/alice@example.com",
        f"arn:aws:iam::{ACCOUNT}:user/AWSReservedSSO_Admin_0123abcd",
    ):
        with pytest.raises(ForbiddenError):
            actor_of(event(user_arn=stranger))


def test_an_unbound_iam_caller_and_an_anonymous_event_are_refused():
    with pytest.raises(ForbiddenError):
        actor_of(event(user_arn=f"arn:aws:sts::{ACCOUNT}:assumed-role/Other/s"))
    with pytest.raises(AuthenticationRequiredError):
        actor_of(event())


def test_the_mcp_server_acts_for_its_user_with_the_users_own_role():
    actor = actor_of(through_mcp(VerifiedUser("bob", "cognito", ("viewer",))))
    assert (actor.principal, actor.role, actor.via) == ("bob", Role.VIEWER, MCP_CALLER)


def test_a_viewer_through_the_mcp_server_never_gains_the_servers_binding_or_ceiling():
    actor = actor_of(through_mcp(VerifiedUser("bob", "cognito", ("viewer",))))
    with pytest.raises(ForbiddenError):
        actor.require(Role.OPERATOR, "create a cluster")


def test_an_admin_through_the_mcp_server_is_capped_at_the_servers_ceiling():
    actor = actor_of(through_mcp(VerifiedUser("carol", "cognito", ("admin",))))
    assert actor.role == Role.OPERATOR  # IS_MCP_MAX_ROLE


def test_an_iam_user_through_the_mcp_server_gets_the_binding_of_their_own_role():
    actor = actor_of(through_mcp(VerifiedUser(OPERATOR_CALLER, "iam")))
    assert (actor.principal, actor.role, actor.via) == (OPERATOR_CALLER, Role.OPERATOR, MCP_CALLER)
    with pytest.raises(ForbiddenError, match="has no InstantStart role"):
        actor_of(through_mcp(VerifiedUser(f"arn:aws:sts::{ACCOUNT}:assumed-role/Other/s", "iam")))


def test_iam_groups_claimed_for_an_iam_user_are_ignored():
    unbound = VerifiedUser(f"arn:aws:sts::{ACCOUNT}:assumed-role/Other/s", "iam", ("admin",))
    with pytest.raises(ForbiddenError):
        actor_of(through_mcp(unbound))


def test_the_mcp_server_must_name_a_well_formed_user():
    with pytest.raises(ForbiddenError, match="must name the user"):
        actor_of(event(user_arn=MCP_CALLER))
    for malformed in ("alice", '{"principal": "", "source": "cognito"}', '{"principal": "a", "source": "oidc"}'):
        with pytest.raises(ForbiddenError, match="is not a user the MCP server verified"):
            actor_of(event(user_arn=MCP_CALLER, on_behalf_of=malformed))


def test_a_user_without_an_instantstart_group_gets_nothing_through_the_mcp_server():
    with pytest.raises(ForbiddenError, match="dave has no InstantStart role"):
        actor_of(through_mcp(VerifiedUser("dave", "cognito", ("everyone",))))


def test_the_header_of_any_other_caller_changes_nothing():
    claims = {"cognito:username": "eve", "cognito:groups": "viewer"}
    admin = VerifiedUser("root", "cognito", ("admin",)).header()
    actor = actor_of(event(claims=claims, on_behalf_of=admin))
    assert (actor.principal, actor.role, actor.via) == ("eve", Role.VIEWER, None)
    actor = actor_of(event(user_arn=OPERATOR_CALLER, on_behalf_of=admin))
    assert (actor.principal, actor.role, actor.via) == (OPERATOR_CALLER, Role.OPERATOR, None)


def test_the_header_name_is_the_one_the_mcp_client_sends():
    from mcp_server.client import ON_BEHALF_OF

    assert ON_BEHALF_OF.lower() == ON_BEHALF_OF_HEADER


class RecordingAuditLog:
    def __init__(self) -> None:
        self.entries: list[Any] = []

    def record(self, entry: Any) -> None:
        self.entries.append(entry)


@pytest.fixture
def audit_log(monkeypatch: pytest.MonkeyPatch) -> RecordingAuditLog:
    from api import audit

    log = RecordingAuditLog()
    monkeypatch.setattr(audit.wiring, "audit_log", lambda: log)
    return log


def test_the_audit_names_the_mcp_server_as_actor_and_its_user_as_on_behalf_of(audit_log):
    from api import audit

    audit.record(through_mcp(VerifiedUser("bob", "cognito", ("viewer",))).raw_event, {"statusCode": 403})
    (entry,) = audit_log.entries
    assert (entry.actor, entry.onBehalfOf, entry.role, entry.outcome) == (MCP_CALLER, "bob", "viewer", "403")


def test_the_audit_ignores_the_header_of_any_other_caller(audit_log):
    from api import audit

    claims = {"cognito:username": "eve", "cognito:groups": "viewer"}
    forged = event(claims=claims, on_behalf_of=VerifiedUser("root", "cognito", ("admin",)).header())
    audit.record(forged.raw_event, {"statusCode": 403})
    (entry,) = audit_log.entries
    assert (entry.actor, entry.onBehalfOf, entry.role) == ("eve", None, "viewer")
