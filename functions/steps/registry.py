"""The steps table: each Task name → what it runs. `handler.py` dispatches on it; nothing else runs steps.

Names line up across layers: the Task "Create EKS Cluster" ⇄ its row here ⇄ `${CreateEksClusterFunctionArn}` in
the ASL ⇄ `EksStackService.create_eks_cluster`. A work row calls one service method (through
`controlplane.wiring`) on the parsed workflow input; the handler marks its stage RUNNING first. The three
bookkeeping rows record the operation's outcome and read the invocation itself.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cached_property, partial
from typing import Any, TypeVar

from pydantic import BaseModel

from controlplane import wiring
from controlplane.core.features import DISABLE_ORDER
from controlplane.models.clusters import StageName
from controlplane.models.errors import OperationStateError
from controlplane.models.features import Feature
from controlplane.models.workflow import (
    AddInstanceGroupInput,
    CreateClusterInput,
    DeleteEksClusterInput,
    DeleteInstanceGroupInput,
    DownloadToStorageInput,
    EksStageInput,
    FeatureChangesInput,
    GroupPlanInput,
    ImportClusterInput,
    InstanceGroupInput,
    NodeActionInput,
    StorageStageInput,
    UpdateClusterFeaturesInput,
    UpdateClusterSoftwareInput,
    UpdateInstanceGroupInput,
    WorkflowInput,
    WorkflowState,
    parse_input,
)
from controlplane.workflows.definitions import ensure_step, remove_step

Result = BaseModel | Mapping[str, Any]
Served = TypeVar("Served", bound=WorkflowState)


class UnknownStepError(LookupError):
    """A Task named a step this table does not have."""


@dataclass(frozen=True)
class StepCall:
    """One invocation as every Task sends it: `{"step", "state", "executionArn"}` plus the Task's constants."""

    step: str
    state: Mapping[str, Any]
    execution_arn: str
    constants: Mapping[str, Any]

    @classmethod
    def from_event(cls, event: Mapping[str, Any]) -> StepCall:
        constants = {key: value for key, value in event.items() if key not in ("step", "state", "executionArn")}
        return cls(str(event.get("step", "")), event.get("state") or {}, str(event.get("executionArn", "")), constants)

    @cached_property
    def input(self) -> WorkflowInput:
        """The state parsed once, on first use: a failure can be recorded even when the state is unreadable."""
        return parse_input(self.state)


@dataclass(frozen=True)
class Step:
    """One row. `begins`: mark the step's stage RUNNING before running it (work steps). `waiting`: the phase
    persisted after it, before the workflow starts polling. `settled`: the phase a poll's check persists once its
    output says `done`, saying what was done, so a finished stage never keeps a "Waiting for …" message. Both are
    formatted with the workflow state and the step's output."""

    run: Callable[[StepCall], Result]
    begins: bool = True
    waiting: str | None = None
    settled: str | None = None

    def phase(self, state: Mapping[str, Any], output: Mapping[str, Any]) -> str | None:
        """The stage message this run leaves, if the row notes one."""
        template = self.settled if self.settled and output.get("done") is True else self.waiting
        return template.format(**{**state, **output}) if template else None


def work(
    serves: type[Served],
    action: Callable[[Served], Result],
    waiting: str | None = None,
    settled: str | None = None,
) -> Step:
    """A row that runs one service method on the input shape it serves; another workflow's input is refused."""

    def run(call: StepCall) -> Result:
        ctx = call.input
        if not isinstance(ctx, serves):
            raise OperationStateError(f"Step {call.step} does not run in a {ctx.kind.value} workflow.")
        return action(ctx)

    return Step(run=run, waiting=waiting, settled=settled)


def _record_success(call: StepCall) -> dict[str, str]:
    """The operation SUCCEEDED; the registry reflects it and the cluster lock is free before the status says so."""
    operation = wiring.operations().succeed(call.input.operationId)
    return {"operationId": operation.operationId, "status": operation.status.value}


def _record_failure(call: StepCall) -> dict[str, str]:
    """The operation FAILED at the state the execution history names (right even when its Lambda never ran).

    Reads only `operationId` and `error` from the state: the rest of the state may be what went wrong.
    """
    state = call.state
    operation = wiring.operations().fail_execution(state["operationId"], call.execution_arn, state.get("error") or {})
    return {"operationId": operation.operationId, "status": operation.status.value}


def _record_stage_completed(call: StepCall) -> dict[str, str]:
    """Pipeline only: the registry shows a finished stage (the Task's constant `stage`) at once."""
    ctx = call.input
    if not isinstance(ctx, CreateClusterInput):
        raise OperationStateError(f"Record Stage Completed does not run in a {ctx.kind.value} workflow.")
    stage = StageName(str(call.constants["stage"]))
    wiring.clusters().record_stage(ctx, stage)
    return {"operationId": ctx.operationId, "stage": stage.value}


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


def _ensure_feature(feature: Feature, ctx: FeatureChangesInput) -> Result:
    return wiring.feature_steps(ctx.region).ensure(feature, ctx)


def _remove_feature(feature: Feature, ctx: UpdateClusterFeaturesInput) -> Result:
    return wiring.feature_steps(ctx.region).remove(feature, ctx)


def _feature_steps() -> dict[str, Step]:
    """One ensure and one remove step per feature, named as the workflow declarations name them."""
    rows: dict[str, Step] = {}
    for feature in Feature:
        rows[ensure_step(feature)] = work(FeatureChangesInput, partial(_ensure_feature, feature))
        rows[remove_step(feature)] = work(UpdateClusterFeaturesInput, partial(_remove_feature, feature))
    return rows


STEPS: dict[str, Step] = {
    # bookkeeping
    "Record Operation Success": Step(_record_success, begins=False),
    "Record Operation Failure": Step(_record_failure, begins=False),
    "Record Stage Completed": Step(_record_stage_completed, begins=False),
    "Await HyperPod Event": Step(_await_event, begins=False),
    # stage 1: network and EKS
    "Ensure VPC": work(EksStageInput, lambda ctx: wiring.eks_stack(ctx.region).ensure_vpc(ctx)),
    "Ensure Subnets": work(EksStageInput, lambda ctx: wiring.eks_stack(ctx.region).ensure_subnets(ctx)),
    "Ensure Internet Gateway": work(
        EksStageInput, lambda ctx: wiring.eks_stack(ctx.region).ensure_internet_gateway(ctx)
    ),
    "Ensure NAT Gateway": work(EksStageInput, lambda ctx: wiring.eks_stack(ctx.region).ensure_nat_gateway(ctx)),
    "Ensure Route Tables": work(EksStageInput, lambda ctx: wiring.eks_stack(ctx.region).ensure_route_tables(ctx)),
    "Ensure S3 Endpoint": work(EksStageInput, lambda ctx: wiring.eks_stack(ctx.region).ensure_s3_endpoint(ctx)),
    "Ensure Security Group": work(EksStageInput, lambda ctx: wiring.eks_stack(ctx.region).ensure_security_group(ctx)),
    "Ensure Cluster Role": work(EksStageInput, lambda ctx: wiring.eks_stack(ctx.region).ensure_cluster_role(ctx)),
    "Create EKS Cluster": work(
        EksStageInput,
        lambda ctx: wiring.eks_stack(ctx.region).create_eks_cluster(ctx),
        waiting="Waiting for {clusterName} to become ACTIVE",
    ),
    "Check EKS Cluster": work(
        EksStageInput,
        lambda ctx: wiring.eks_stack(ctx.region).check_eks_cluster(ctx),
        settled="{eksClusterName} is ACTIVE",
    ),
    "Ensure Access Entry": work(WorkflowState, lambda ctx: wiring.eks_stack(ctx.region).ensure_access_entry(ctx)),
    "Verify Kubernetes API": work(WorkflowState, lambda ctx: wiring.eks_stack(ctx.region).verify_kubernetes_api(ctx)),
    # stage 3: dependencies
    "Ensure OIDC Provider": work(
        WorkflowState, lambda ctx: wiring.cluster_dependencies_service(ctx.region).ensure_oidc_provider(ctx)
    ),
    "Ensure S3 CSI Driver Role": work(
        WorkflowState, lambda ctx: wiring.cluster_dependencies_service(ctx.region).ensure_s3_csi_driver_role(ctx)
    ),
    "Ensure Addons": work(
        WorkflowState, lambda ctx: wiring.cluster_dependencies_service(ctx.region).ensure_addons(ctx)
    ),
    "Check Addons": work(
        WorkflowState,
        lambda ctx: wiring.cluster_dependencies_service(ctx.region).check_addons(ctx),
        settled="Add-ons {status}",
    ),
    "Apply HyperPod Dependencies": work(
        WorkflowState, lambda ctx: wiring.cluster_dependencies_service(ctx.region).apply_hyperpod_dependencies(ctx)
    ),
    # stage 4: HyperPod
    "Ensure Execution Role": work(
        WorkflowState, lambda ctx: wiring.hyperpod_stage(ctx.region).ensure_execution_role(ctx)
    ),
    "Ensure Lifecycle Scripts": work(
        WorkflowState, lambda ctx: wiring.hyperpod_stage(ctx.region).ensure_lifecycle_scripts(ctx)
    ),
    "Ensure Compute Subnet": work(
        GroupPlanInput, lambda ctx: wiring.hyperpod_stage(ctx.region).ensure_compute_subnet(ctx)
    ),
    "Create HyperPod Cluster": work(
        GroupPlanInput,
        lambda ctx: wiring.hyperpod_stage(ctx.region).create_hyperpod_cluster(ctx),
        waiting="Waiting for {clusterName} and its instance group to be InService",
    ),
    "Check HyperPod Cluster": work(
        WorkflowState,
        lambda ctx: wiring.hyperpod_stage(ctx.region).check_hyperpod_cluster(ctx),
        settled="{hyperPodClusterName} and its instance group are InService",
    ),
    "Check Node Agents": work(
        WorkflowState,
        lambda ctx: wiring.node_agents(ctx.region).check_node_agents(ctx),
        settled="{hyperPodClusterName}: agents and device plugins {status}",
    ),
    "Check Addons Healthy": work(
        WorkflowState,
        lambda ctx: wiring.cluster_dependencies_service(ctx.region).check_addons_healthy(ctx),
        settled="Add-ons {status}",
    ),
    "Ensure Training Operator Identity": work(
        WorkflowState, lambda ctx: wiring.hyperpod_stage(ctx.region).ensure_training_operator_identity(ctx)
    ),
    # stage 5: storage
    "Ensure Data Bucket": work(
        StorageStageInput, lambda ctx: wiring.storage_service(ctx.region).ensure_data_bucket(ctx)
    ),
    "Grant Bucket Access": work(
        StorageStageInput, lambda ctx: wiring.storage_service(ctx.region).grant_bucket_access(ctx)
    ),
    "Apply Storage Claim": work(
        StorageStageInput, lambda ctx: wiring.storage_service(ctx.region).apply_storage_claim(ctx)
    ),
    "Create FSx File System": work(
        StorageStageInput, lambda ctx: wiring.storage_service(ctx.region).create_fsx_file_system(ctx)
    ),
    "Check FSx File System": work(
        StorageStageInput, lambda ctx: wiring.storage_service(ctx.region).check_fsx_file_system(ctx)
    ),
    "Apply FSx Claim": work(StorageStageInput, lambda ctx: wiring.storage_service(ctx.region).apply_fsx_claim(ctx)),
    # delete
    "Delete HyperPod Cluster": work(
        DeleteEksClusterInput,
        lambda ctx: wiring.hyperpod_stage(ctx.region).delete_hyperpod_cluster(ctx),
        waiting="Waiting for {clusterName} to be deleted",
    ),
    "Check HyperPod Cluster Deleted": work(
        DeleteEksClusterInput,
        lambda ctx: wiring.hyperpod_stage(ctx.region).check_hyperpod_cluster_deleted(ctx),
        settled="{hyperPodClusterName} is {status}",
    ),
    "Delete HyperPod Resources": work(
        DeleteEksClusterInput, lambda ctx: wiring.hyperpod_stage(ctx.region).delete_hyperpod_resources(ctx)
    ),
    "Delete FSx File Systems": work(
        DeleteEksClusterInput, lambda ctx: wiring.storage_service(ctx.region).delete_fsx_file_systems(ctx)
    ),
    "Check FSx File Systems Deleted": work(
        DeleteEksClusterInput, lambda ctx: wiring.storage_service(ctx.region).check_fsx_file_systems_deleted(ctx)
    ),
    "Release Imported Cluster": work(
        DeleteEksClusterInput, lambda ctx: wiring.cluster_import(ctx.region).release_imported_cluster(ctx)
    ),
    "Delete EKS Cluster": work(
        DeleteEksClusterInput,
        lambda ctx: wiring.eks_stack(ctx.region).delete_eks_cluster(ctx),
        waiting="Waiting for {clusterName} to be deleted",
    ),
    "Check EKS Cluster Deleted": work(
        DeleteEksClusterInput,
        lambda ctx: wiring.eks_stack(ctx.region).check_eks_cluster_deleted(ctx),
        settled="{eksClusterName} is {status}",
    ),
    "Delete Cluster Role": work(
        DeleteEksClusterInput, lambda ctx: wiring.eks_stack(ctx.region).delete_cluster_role(ctx)
    ),
    "Delete Dependency Identities": work(
        DeleteEksClusterInput,
        lambda ctx: wiring.cluster_dependencies_service(ctx.region).delete_dependency_identities(ctx),
    ),
    "Delete Feature Identities": work(
        DeleteEksClusterInput, lambda ctx: wiring.feature_steps(ctx.region).delete_identities(ctx, DISABLE_ORDER)
    ),
    "Release NAT Gateway": work(
        DeleteEksClusterInput, lambda ctx: wiring.eks_stack(ctx.region).release_nat_gateway(ctx)
    ),
    "Delete Network": work(DeleteEksClusterInput, lambda ctx: wiring.eks_stack(ctx.region).delete_network(ctx)),
    # instance groups and software
    "Add Instance Group": work(
        AddInstanceGroupInput, lambda ctx: wiring.instance_group_steps(ctx.region).add_instance_group(ctx)
    ),
    "Update Instance Group": work(
        UpdateInstanceGroupInput, lambda ctx: wiring.instance_group_steps(ctx.region).update_instance_group(ctx)
    ),
    "Check Instance Group": work(
        InstanceGroupInput, lambda ctx: wiring.instance_group_steps(ctx.region).check_instance_group(ctx)
    ),
    "Delete Instance Group": work(
        DeleteInstanceGroupInput, lambda ctx: wiring.instance_group_steps(ctx.region).delete_instance_group(ctx)
    ),
    "Check Instance Group Deleted": work(
        DeleteInstanceGroupInput, lambda ctx: wiring.instance_group_steps(ctx.region).check_instance_group_deleted(ctx)
    ),
    "Release Compute Subnet": work(
        DeleteInstanceGroupInput, lambda ctx: wiring.instance_group_steps(ctx.region).release_compute_subnet(ctx)
    ),
    "Start Software Update": work(
        UpdateClusterSoftwareInput, lambda ctx: wiring.instance_group_steps(ctx.region).start_software_update(ctx)
    ),
    "Check Software Update": work(
        UpdateClusterSoftwareInput, lambda ctx: wiring.instance_group_steps(ctx.region).check_software_update(ctx)
    ),
    # node actions
    "Reboot Nodes": work(NodeActionInput, lambda ctx: wiring.node_steps(ctx.region).act(ctx)),
    "Replace Nodes": work(NodeActionInput, lambda ctx: wiring.node_steps(ctx.region).act(ctx)),
    "Delete Nodes": work(NodeActionInput, lambda ctx: wiring.node_steps(ctx.region).act(ctx)),
    "Check Nodes Rebooted": work(
        NodeActionInput, lambda ctx: wiring.node_steps(ctx.region).check(ctx), waiting="{status}"
    ),
    "Check Nodes Replaced": work(
        NodeActionInput, lambda ctx: wiring.node_steps(ctx.region).check(ctx), waiting="{status}"
    ),
    "Check Nodes Deleted": work(
        NodeActionInput, lambda ctx: wiring.node_steps(ctx.region).check(ctx), waiting="{status}"
    ),
    # HyperPod events of the cluster's Region to the deployment's (stage 1 and import; delete)
    "Ensure Event Forwarding": work(
        WorkflowState, lambda ctx: wiring.event_forwarding_steps().ensure_event_forwarding(ctx)
    ),
    "Remove Event Forwarding": work(
        DeleteEksClusterInput, lambda ctx: wiring.event_forwarding_steps().remove_event_forwarding(ctx)
    ),
    # import
    "Tag Imported Cluster": work(
        ImportClusterInput, lambda ctx: wiring.cluster_import(ctx.region).tag_imported_cluster(ctx)
    ),
    "Discover Cluster Network": work(
        ImportClusterInput, lambda ctx: wiring.cluster_import(ctx.region).discover_cluster_network(ctx)
    ),
    "Discover Cluster Stages": work(
        ImportClusterInput, lambda ctx: wiring.cluster_import(ctx.region).discover_cluster_stages(ctx)
    ),
    # downloads into the S3 claim
    "Start Download Job": work(
        DownloadToStorageInput,
        lambda ctx: wiring.download_steps(ctx.region).start_download_job(ctx),
        waiting="Waiting for Job {jobName} to download {download[repoId]}",
    ),
    "Check Download Job": work(
        DownloadToStorageInput,
        lambda ctx: wiring.download_steps(ctx.region).check_download_job(ctx),
        settled="{download[repoId]} is in s3://{download[bucketName]}/{download[prefix]}",
    ),
    **_feature_steps(),
}


def step(name: str) -> Step:
    """The row of the Task `name`; an unknown name is an error that lists the known ones."""
    try:
        return STEPS[name]
    except KeyError:
        raise UnknownStepError(f"Unknown step {name!r}; the steps are: {', '.join(sorted(STEPS))}") from None
