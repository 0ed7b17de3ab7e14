"""HyperPod events in the workflows: a wait parked on its task token until an event of its topic wakes it, and the
rule that forwards the HyperPod events of a cluster's Region to the deployment's (stage 1 and import; delete)."""

from __future__ import annotations

from typing import Any

from controlplane import wiring
from controlplane.access.conditions import DEPLOYMENT, MANAGED_REQUEST, MANAGED_RESOURCE
from controlplane.access.grant import Grant
from controlplane.access.iam import pass_role
from controlplane.access.workflows import HOME_BUS, SEND_TASK_SUCCESS
from controlplane.core.naming import event_forwarding_rule_name
from controlplane.models.workflow import DeleteEksClusterInput, WorkflowState
from controlplane.workflows.spec import AWAIT_EVENT
from steps.groups import EVENT_FORWARDING, EVENT_FORWARDING_REMOVAL, EVENT_WAITS
from steps.step import Step, StepCall, work

# Another Region's rule forwarding HyperPod's events to this deployment's default bus (one per Region).
_FORWARDING_RULES = (f"arn:{{partition}}:events:*:{{account}}:rule/{event_forwarding_rule_name(DEPLOYMENT)}",)
_FORWARDING_RULES_REASON = (
    "The forwarding rule lives in each Region a cluster is created in, chosen per request; the pattern admits only "
    "this deployment's rule name (<deployment>-hyperpod-events-to-<its Region>)"
)
_READ_FORWARDING_RULES = Grant(
    ("events:DescribeRule", "events:ListTargetsByRule", "events:ListTagsForResource"),
    _FORWARDING_RULES,
    reason=_FORWARDING_RULES_REASON,
)


def _await_event(call: StepCall) -> dict[str, Any]:
    """A HyperPod wait parks its task token until an event of its topic wakes it (or its timeout ends it); an
    event handled since its round's check began ends it at once."""
    state = call.state
    what = f"{call.constants['topic']} events of {state['hyperPodClusterName']} ({state['operationId']})"
    poll = call.input.poll
    return wiring.event_wait_steps().park(
        str(state["region"]),
        str(state["hyperPodClusterName"]),
        str(call.constants["topic"]),
        str(call.constants["taskToken"]),
        what,
        poll.checkedAt if poll else None,
    )


STEPS = (
    # Stores the wait's task token, and ends its own wait when an event came between its check and the store.
    Step(AWAIT_EVENT, EVENT_WAITS, _await_event, (SEND_TASK_SUCCESS,), begins=False, tables=("event_waits_table",)),
    work(
        "Ensure Event Forwarding",
        EVENT_FORWARDING,
        WorkflowState,
        lambda ctx: wiring.event_forwarding_steps().ensure_event_forwarding(ctx),
        (
            _READ_FORWARDING_RULES,
            Grant(
                ("events:PutRule", "events:TagResource"), _FORWARDING_RULES, MANAGED_REQUEST, _FORWARDING_RULES_REASON
            ),
            # Its one target: the home Region's default bus, reached as the stack's forwarding role.
            Grant(
                ("events:PutTargets",),
                _FORWARDING_RULES,
                {**MANAGED_RESOURCE, "ArnEquals": {"events:TargetArn": HOME_BUS}},
                _FORWARDING_RULES_REASON,
            ),
            pass_role(("{event_forwarding_role_arn}",), "events.amazonaws.com"),
        ),
    ),
    work(
        "Remove Event Forwarding",
        EVENT_FORWARDING_REMOVAL,
        DeleteEksClusterInput,
        lambda ctx: wiring.event_forwarding_steps().remove_event_forwarding(ctx),
        (
            _READ_FORWARDING_RULES,
            Grant(
                ("events:RemoveTargets", "events:DeleteRule"),
                _FORWARDING_RULES,
                MANAGED_RESOURCE,
                _FORWARDING_RULES_REASON,
            ),
        ),
    ),
)
