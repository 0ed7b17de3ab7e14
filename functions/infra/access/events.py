"""The HyperPod events function's role (`infra.events`): it records each event, ends the waits it wakes, and starts
the node operation a remediation policy decides on, as the API would (the node's state read first); and the role
EventBridge assumes in other Regions to deliver their HyperPod events here."""

from __future__ import annotations

from controlplane.access.grant import FunctionAccess, Grant
from controlplane.access.hyperpod import HYPERPOD_CLUSTERS, HYPERPOD_READS_REASON
from controlplane.access.workflows import HOME_BUS, SEND_TASK_SUCCESS, START_EXECUTION

EVENTS_ACCESS = FunctionAccess(
    (
        Grant(("sagemaker:DescribeClusterNode",), HYPERPOD_CLUSTERS, reason=HYPERPOD_READS_REASON),
        START_EXECUTION,
        SEND_TASK_SUCCESS,
    ),
    tables=("events_table", "event_waits_table", "clusters_table", "operations_table", "audit_table"),
)

# The forwarding role: one action, on this Region's default bus.
EVENT_FORWARDING_GRANTS = (Grant(("events:PutEvents",), (HOME_BUS,)),)
