"""Step Functions and EventBridge grants that the steps, the API and the events function share: starting this
deployment's workflows, reading or stopping their executions, ending a task-token wait, and the home Region's bus
that other Regions' HyperPod events are forwarded to."""

from __future__ import annotations

from controlplane.access.grant import NO_RESOURCE_LEVEL_REASON, Grant

# Starting an operation's workflow: this deployment's state machines only.
START_EXECUTION = Grant(("states:StartExecution",), ("{state_machine_arn}",))
EXECUTIONS = ("arn:{partition}:states:{region}:{account}:execution:{state_machine_name}:*",)
EXECUTIONS_REASON = (
    "Execution names are chosen per operation at run time; the pattern admits only executions of "
    "this stack's own state machines"
)
# Ending a task-token wait (the token names its execution). SendTaskSuccess has no resource-level permissions: a
# statement naming the state machines never matched it.
SEND_TASK_SUCCESS = Grant(("states:SendTaskSuccess",), ("*",), reason=NO_RESOURCE_LEVEL_REASON)
HOME_BUS = "arn:{partition}:events:{region}:{account}:event-bus/default"
