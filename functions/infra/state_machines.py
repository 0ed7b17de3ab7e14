"""The workflows: a nested stack per workflow family, holding the family's state machines with their roles and
log groups. Each machine is its `statemachines/<kind>.asl.json`, verbatim, with every `${<Step>FunctionArn}`
placeholder substituted by the ARN of the function that serves that step (`infra.step_lambdas`), and `${Partition}`
by the stack's partition (AWS::Partition)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from aws_cdk import Aws, CfnOutput, NestedStack, RemovalPolicy, Stack
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk import aws_stepfunctions as sfn
from constructs import Construct

from controlplane.core.naming import state_machine_name
from controlplane.models.operations import OperationKind
from controlplane.workflows import PARTITION, definition_text, placeholders, step_key
from infra.lambdas import LOG_RETENTION
from infra.nag import Acknowledgements
from infra.names import deployment_name, pascal

# One nested stack per family: a family's machines grow together, and each family has its own template budget.
WORKFLOW_FAMILIES: dict[str, tuple[OperationKind, ...]] = {
    "clusters": (
        OperationKind.CREATE_EKS_CLUSTER,
        OperationKind.CONFIGURE_CLUSTER_DEPENDENCIES,
        OperationKind.CREATE_HYPERPOD_CLUSTER,
        OperationKind.CONFIGURE_STORAGE,
        OperationKind.CREATE_CLUSTER,
        OperationKind.IMPORT_CLUSTER,
        OperationKind.RESTORE_CLUSTER_ACCESS,
        OperationKind.DELETE_EKS_CLUSTER,
    ),
    "instance_groups": (
        OperationKind.ADD_INSTANCE_GROUP,
        OperationKind.UPDATE_INSTANCE_GROUP,
        OperationKind.DELETE_INSTANCE_GROUP,
        OperationKind.UPDATE_CLUSTER_SOFTWARE,
    ),
    "features": (OperationKind.UPDATE_CLUSTER_FEATURES,),
    "nodes": (
        OperationKind.REBOOT_NODES,
        OperationKind.REPLACE_NODES,
        OperationKind.DELETE_NODES,
        OperationKind.CHECK_NODE_HEALTH,
    ),
    "downloads": (OperationKind.DOWNLOAD_TO_STORAGE,),
    "teams": (OperationKind.PREPARE_TEAM_NAMESPACE, OperationKind.REMOVE_TEAM_NAMESPACE),
}
LOG_DELIVERY_REASON = (
    "CDK grants the CloudWatch Logs delivery actions (logs:CreateLogDelivery, GetLogDelivery, "
    "UpdateLogDelivery, DeleteLogDelivery, ListLogDeliveries, PutResourcePolicy, "
    "DescribeResourcePolicies, DescribeLogGroups) and X-Ray trace writes, none of which has "
    "resource-level permissions"
)


class WorkflowFamilyStack(NestedStack):
    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        family: str,
        function_for: Callable[[str], lambda_.IFunction],
        acks: Acknowledgements,
    ) -> None:
        """`function_for(step)` is the function serving a step (a placeholder's step key)."""
        super().__init__(scope, construct_id, description=f"InstantStart workflows: {family}")
        self._function_for = function_for
        self._acks = acks
        self.state_machines = {kind: self._state_machine(kind) for kind in WORKFLOW_FAMILIES[family]}

    def _state_machine(self, kind: OperationKind) -> sfn.StateMachine:
        text = definition_text(kind)
        name = state_machine_name(deployment_name(self), kind)
        functions = {p: self._function_for(step_key(p)) for p in placeholders(text)}
        log_group = logs.LogGroup(
            self,
            f"{pascal(kind.value)}WorkflowLogs",
            # The vendedlogs prefix keeps the account's log resource policy from growing per machine.
            log_group_name=f"/aws/vendedlogs/states/{name}",
            retention=LOG_RETENTION,
            removal_policy=RemovalPolicy.DESTROY,
        )
        machine = sfn.StateMachine(
            self,
            f"{pascal(kind.value)}Workflow",
            state_machine_name=name,
            state_machine_type=sfn.StateMachineType.STANDARD,
            # The partition goes in as the AWS::Partition reference itself, so that the template's definition reads
            # `arn:${AWS::Partition}:…` like every other ARN of the stack (and cfn-lint can resolve it).
            definition_body=sfn.DefinitionBody.from_string(text.replace("${" + PARTITION + "}", Aws.PARTITION)),
            definition_substitutions={p: function.function_arn for p, function in sorted(functions.items())},
            logs=sfn.LogOptions(destination=log_group, level=sfn.LogLevel.ALL),
            tracing_enabled=True,
        )
        # Definitions from text get no automatic grants. The ASL names unqualified function ARNs,
        # so exactly those (no version/alias wildcard) may be invoked.
        machine.add_to_role_policy(
            iam.PolicyStatement(
                actions=["lambda:InvokeFunction"],
                resources=sorted({function.function_arn for function in functions.values()}, key=str),
            )
        )
        self._acks.add(machine, "AwsSolutions-IAM5[Resource::*]", LOG_DELIVERY_REASON)
        return machine


def workflows(
    scope: Construct, function_for: Callable[[str], lambda_.IFunction], acks: Acknowledgements
) -> dict[OperationKind, sfn.StateMachine]:
    """Every family's nested stack in `scope`; each workflow's state machine by operation kind (an output each)."""
    machines: dict[OperationKind, sfn.StateMachine] = {}
    for family in WORKFLOW_FAMILIES:
        stack = WorkflowFamilyStack(
            scope, f"{pascal(family)}Workflows", family=family, function_for=function_for, acks=acks
        )
        machines.update(stack.state_machines)
    for kind in OperationKind:
        CfnOutput(scope, f"{pascal(kind.value)}StateMachineArn", value=machines[kind].state_machine_arn)
    return {kind: machines[kind] for kind in OperationKind}


def state_machine_arns(scope: Construct, state_machines: Mapping[OperationKind, sfn.StateMachine]) -> str:
    """The `state_machine_arns` setting: each workflow's state machine by operation kind."""
    arns = {kind.value: machine.state_machine_arn for kind, machine in state_machines.items()}
    return Stack.of(scope).to_json_string(arns)
