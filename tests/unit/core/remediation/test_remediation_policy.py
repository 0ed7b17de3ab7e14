"""RemediationPolicyService against in-memory fakes: a policy that replaces nodes (their volumes destroyed, with no
one asked each time) is stored only with the token of its plan; every other policy is stored at once."""

from __future__ import annotations

import pytest

from controlplane.core.auth import Actor, Role
from controlplane.core.remediation.policy import RemediationPolicyService
from controlplane.models.errors import ConfirmationRequiredError
from controlplane.models.events import RemediationPolicy
from tests.fakes.events import InMemoryEventStore
from tests.unit.core.hyperpod.world import World

ADMIN = Actor(principal="alice", role=Role.ADMIN)
OTHER_ADMIN = Actor(principal="bob", role=Role.ADMIN)
REPLACE = RemediationPolicy(action="replace", maxActionsPerHour=4, maxActionsPerGroupPerHour=2)


@pytest.fixture
def policies() -> RemediationPolicyService:
    world = World()
    world.register()
    return RemediationPolicyService(world.clusters, InMemoryEventStore(), world.confirmations, world.clock)


def asked_token(policies: RemediationPolicyService, policy: RemediationPolicy, actor: Actor = ADMIN) -> str:
    with pytest.raises(ConfirmationRequiredError) as asked:
        policies.set_policy("demo", policy, actor, dry_run=False, token=None)
    return str((asked.value.details or {})["confirmationToken"])


def test_a_replacing_policy_without_a_token_is_refused_with_its_plan_and_stores_nothing(policies):
    with pytest.raises(ConfirmationRequiredError) as asked:
        policies.set_policy("demo", REPLACE, ADMIN, dry_run=False, token=None)

    plan = asked.value.details or {}
    assert plan["confirmationToken"] and plan["expiresAt"]
    (action,) = plan["actions"]
    assert (action["action"], action["resource"], action["name"]) == ("update", "Remediation policy", "demo")
    assert "volumes" in action["detail"] and "4 per hour" in action["detail"] and "was notify" in action["detail"]
    assert "Ask the person to confirm" in asked.value.message
    assert policies.policy("demo").action == "notify"


def test_a_replacing_policy_is_stored_with_the_token_of_its_plan_once(policies):
    token = asked_token(policies, REPLACE)

    stored = policies.set_policy("demo", REPLACE, ADMIN, dry_run=False, token=token)

    assert (stored.action, stored.updatedBy) == ("replace", "alice")
    assert policies.policy("demo").action == "replace"
    policies.set_policy("demo", RemediationPolicy(action="notify"), ADMIN, dry_run=False, token=None)
    with pytest.raises(ConfirmationRequiredError):
        policies.set_policy("demo", REPLACE, ADMIN, dry_run=False, token=token)
    assert policies.policy("demo").action == "notify"


def test_a_token_confirms_only_its_caller_and_the_policy_planned(policies):
    token = asked_token(policies, REPLACE)

    with pytest.raises(ConfirmationRequiredError):
        policies.set_policy("demo", REPLACE, OTHER_ADMIN, dry_run=False, token=token)
    with pytest.raises(ConfirmationRequiredError):
        more = REPLACE.model_copy(update={"maxActionsPerHour": 50})
        policies.set_policy("demo", more, ADMIN, dry_run=False, token=token)
    assert policies.policy("demo").action == "notify"


def test_a_token_planned_against_another_stored_policy_confirms_nothing(policies):
    token = asked_token(policies, REPLACE)
    policies.set_policy("demo", RemediationPolicy(action="reboot"), OTHER_ADMIN, dry_run=False, token=None)

    with pytest.raises(ConfirmationRequiredError, match="state that has changed"):
        policies.set_policy("demo", REPLACE, ADMIN, dry_run=False, token=token)
    assert policies.policy("demo").action == "reboot"


@pytest.mark.parametrize(
    "policy",
    [
        RemediationPolicy(action="notify"),
        RemediationPolicy(action="reboot", maxActionsPerHour=10),
        RemediationPolicy(action="replace", recordOnly=True),
    ],
)
def test_a_policy_that_replaces_nothing_is_stored_at_once(policies, policy):
    assert policies.set_policy("demo", policy, ADMIN, dry_run=False, token=None).action == policy.action
    assert policies.policy("demo").action == policy.action


def test_resending_the_replacing_policy_in_force_changes_nothing_and_needs_no_token(policies):
    policies.set_policy("demo", REPLACE, ADMIN, dry_run=False, token=asked_token(policies, REPLACE))

    again = policies.set_policy("demo", REPLACE, OTHER_ADMIN, dry_run=False, token=None)

    assert (again.action, again.updatedBy) == ("replace", "alice")


def test_a_dry_run_of_a_policy_change_stores_nothing_and_needs_no_token(policies):
    view = policies.set_policy("demo", REPLACE, ADMIN, dry_run=True, token=None)
    assert view.action == "replace"
    assert policies.policy("demo").action == "notify"


def test_a_health_check_policy_may_replace_nodes_so_it_needs_a_token(policies):
    with pytest.raises(ConfirmationRequiredError) as asked:
        policies.set_policy("demo", RemediationPolicy(action="health-check"), ADMIN, dry_run=False, token=None)
    assert "deep health checked, replaced if it fails" in str(asked.value.details)
