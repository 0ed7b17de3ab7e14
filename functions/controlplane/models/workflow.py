"""Step I/O: the state every workflow passes from Task to Task, one input model per workflow kind.

`WorkflowInput` is a union discriminated on `kind`: each kind's model requires exactly the parts its steps
read, so a step never checks whether a field is there. The common fields come from the cluster's registry
record (`core.operations` builds every input, in one place). Steps that several workflows share take the
shape they read: `EksStageInput` (stage 1), `GroupPlanInput` (a group to create), `StorageStageInput`,
`FeatureChangesInput`, `InstanceGroupInput` (one group to wait on), `NodeActionInput` (reboot, replace or
delete nodes); steps that read only the common fields take `WorkflowState`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, TypeAdapter, computed_field

from controlplane.models.clusters import ImportedNetwork, NetworkPlan
from controlplane.models.common import View
from controlplane.models.downloads import DownloadPlan
from controlplane.models.features import FeatureChanges
from controlplane.models.governance import TeamNamespacePlan
from controlplane.models.health_checks import DeepHealthCheck
from controlplane.models.hyperpod import HyperPodPlan
from controlplane.models.instance_groups import InstanceGroupChange, SoftwareUpdatePlan
from controlplane.models.nodes import NodeAction, NodeTarget
from controlplane.models.operations import OperationKind
from controlplane.models.storage import StoragePlan


class PollState(View):
    """Output of a check step that a Wait → Task → Choice loop reads (`core.polling` computes it)."""

    done: bool
    attempts: int
    waitSeconds: int
    status: str | None = None
    startedAt: datetime | None = Field(default=None, description="When the loop's first check ran.")
    checkedAt: datetime | None = Field(
        default=None,
        description="When this round's check began, before it observed anything (the step handler sets it): an "
        "event handled from then on ends the round's wait for events at once.",
    )
    byEvent: bool = Field(
        default=False,
        exclude=True,
        description="An event ends the loop's waits early (set by its ASL, never by a step).",
    )

    @computed_field  # type: ignore[prop-decorator]
    @property
    def timeoutSeconds(self) -> int:  # noqa: N802 - a wire name, as the fields are
        """The wait as the timeout of the task-token Task an event-ended loop waits in: Step Functions requires a
        positive integer there, where a Wait state takes zero (the sandbox's waits)."""
        return max(1, self.waitSeconds)


class WorkflowState(View):
    """What every workflow's state holds: the cluster's facts from its record, plus what the ASL adds
    (`poll` inside wait loops, `error` once caught). A field the state does not declare is refused."""

    model_config = ConfigDict(extra="forbid")

    operationId: str
    clusterTag: str
    incarnation: str = Field(
        description="The cluster's incarnation the operation was created for; steps refuse another."
    )
    region: str
    accountId: str
    eksClusterName: str
    hyperPodClusterName: str = Field(description="hp-cluster-<tag>, or the adopted cluster's own name.")
    imported: bool
    importedNetwork: ImportedNetwork | None = None
    poll: PollState | None = None
    error: dict[str, Any] | None = None

    def attempt(self) -> int:
        """The number of this poll in a wait loop (1 on the first check)."""
        return (self.poll.attempts if self.poll else 0) + 1


# --- what steps shared by several workflows read ---------------------------------------------------


class EksStageInput(WorkflowState):
    """Stage 1: the network plan and the Kubernetes version, fixed when the operation was accepted."""

    kubernetesVersion: str
    network: NetworkPlan


class GroupPlanInput(WorkflowState):
    """An instance group to create: the first one (stage 4) or an added one."""

    hyperpod: HyperPodPlan


class StorageStageInput(WorkflowState):
    """Stage 5: the bucket, claims and optional FSx file system."""

    storage: StoragePlan


class FeatureChangesInput(WorkflowState):
    """Every feature with its change; storage with FSx enables fsxCsiDriver through the feature's own step."""

    features: FeatureChanges


class InstanceGroupInput(WorkflowState):
    """A workflow that acts on one instance group of the HyperPod cluster; each kind says which."""

    @property
    def instance_group_name(self) -> str:
        raise NotImplementedError


class GroupChangeInput(InstanceGroupInput):
    instanceGroup: InstanceGroupChange

    @property
    def instance_group_name(self) -> str:
        return self.instanceGroup.instanceGroupName


class ActedNodes(View):
    """What a node action's batch call was accepted for (kept in the state for the check that follows)."""

    nodeIds: list[str]


class NodeActionInput(WorkflowState):
    """Reboot, replace or delete nodes: the nodes with their groups, when the request was accepted (a
    replacement is a node its group launched since), and, once the batch call ran, the nodes it took."""

    nodes: list[NodeTarget]
    requestedAt: datetime
    acted: ActedNodes | None = None

    @property
    def action(self) -> NodeAction:
        raise NotImplementedError


# --- one input per workflow kind ---------------------------------------------------------------------


class CreateEksClusterInput(EksStageInput):
    kind: Literal[OperationKind.CREATE_EKS_CLUSTER] = OperationKind.CREATE_EKS_CLUSTER


class CreateClusterInput(EksStageInput, GroupPlanInput, StorageStageInput, FeatureChangesInput):
    kind: Literal[OperationKind.CREATE_CLUSTER] = OperationKind.CREATE_CLUSTER


class ConfigureClusterDependenciesInput(WorkflowState):
    kind: Literal[OperationKind.CONFIGURE_CLUSTER_DEPENDENCIES] = OperationKind.CONFIGURE_CLUSTER_DEPENDENCIES


class CreateHyperPodClusterInput(GroupPlanInput):
    kind: Literal[OperationKind.CREATE_HYPERPOD_CLUSTER] = OperationKind.CREATE_HYPERPOD_CLUSTER


class ConfigureStorageInput(StorageStageInput, FeatureChangesInput):
    kind: Literal[OperationKind.CONFIGURE_STORAGE] = OperationKind.CONFIGURE_STORAGE


class DeleteEksClusterInput(WorkflowState):
    kind: Literal[OperationKind.DELETE_EKS_CLUSTER] = OperationKind.DELETE_EKS_CLUSTER


class AddInstanceGroupInput(GroupPlanInput, InstanceGroupInput):
    kind: Literal[OperationKind.ADD_INSTANCE_GROUP] = OperationKind.ADD_INSTANCE_GROUP

    @property
    def instance_group_name(self) -> str:
        return self.hyperpod.instanceGroupName


class UpdateInstanceGroupInput(GroupChangeInput):
    kind: Literal[OperationKind.UPDATE_INSTANCE_GROUP] = OperationKind.UPDATE_INSTANCE_GROUP


class DeleteInstanceGroupInput(GroupChangeInput):
    kind: Literal[OperationKind.DELETE_INSTANCE_GROUP] = OperationKind.DELETE_INSTANCE_GROUP


class UpdateClusterSoftwareInput(WorkflowState):
    kind: Literal[OperationKind.UPDATE_CLUSTER_SOFTWARE] = OperationKind.UPDATE_CLUSTER_SOFTWARE
    softwareUpdate: SoftwareUpdatePlan


class UpdateClusterFeaturesInput(FeatureChangesInput):
    kind: Literal[OperationKind.UPDATE_CLUSTER_FEATURES] = OperationKind.UPDATE_CLUSTER_FEATURES


class ImportClusterInput(WorkflowState):
    kind: Literal[OperationKind.IMPORT_CLUSTER] = OperationKind.IMPORT_CLUSTER


class RestoreClusterAccessInput(WorkflowState):
    kind: Literal[OperationKind.RESTORE_CLUSTER_ACCESS] = OperationKind.RESTORE_CLUSTER_ACCESS


class RebootNodesInput(NodeActionInput):
    kind: Literal[OperationKind.REBOOT_NODES] = OperationKind.REBOOT_NODES

    @property
    def action(self) -> NodeAction:
        return "reboot"


class ReplaceNodesInput(NodeActionInput):
    kind: Literal[OperationKind.REPLACE_NODES] = OperationKind.REPLACE_NODES

    @property
    def action(self) -> NodeAction:
        return "replace"


class DeleteNodesInput(NodeActionInput):
    kind: Literal[OperationKind.DELETE_NODES] = OperationKind.DELETE_NODES

    @property
    def action(self) -> NodeAction:
        return "delete"


class CheckNodeHealthInput(WorkflowState):
    """A deep health check: the nodes with their groups, the checks, when the request was accepted (a replacement is
    a node its group launched since), and, once StartClusterHealthCheck ran, the nodes it took."""

    kind: Literal[OperationKind.CHECK_NODE_HEALTH] = OperationKind.CHECK_NODE_HEALTH
    nodes: list[NodeTarget]
    checks: list[DeepHealthCheck]
    requestedAt: datetime
    acted: ActedNodes | None = None


class DownloadToStorageInput(WorkflowState):
    kind: Literal[OperationKind.DOWNLOAD_TO_STORAGE] = OperationKind.DOWNLOAD_TO_STORAGE
    download: DownloadPlan


class TeamNamespaceInput(WorkflowState):
    """A team's namespace made ready for workloads, or its preparation removed (`core.governance.namespace`)."""

    team: TeamNamespacePlan


class PrepareTeamNamespaceInput(TeamNamespaceInput):
    kind: Literal[OperationKind.PREPARE_TEAM_NAMESPACE] = OperationKind.PREPARE_TEAM_NAMESPACE


class RemoveTeamNamespaceInput(TeamNamespaceInput):
    kind: Literal[OperationKind.REMOVE_TEAM_NAMESPACE] = OperationKind.REMOVE_TEAM_NAMESPACE


WorkflowInput = Annotated[
    CreateEksClusterInput
    | CreateClusterInput
    | ConfigureClusterDependenciesInput
    | CreateHyperPodClusterInput
    | ConfigureStorageInput
    | DeleteEksClusterInput
    | AddInstanceGroupInput
    | UpdateInstanceGroupInput
    | DeleteInstanceGroupInput
    | UpdateClusterSoftwareInput
    | UpdateClusterFeaturesInput
    | ImportClusterInput
    | RestoreClusterAccessInput
    | RebootNodesInput
    | ReplaceNodesInput
    | DeleteNodesInput
    | CheckNodeHealthInput
    | DownloadToStorageInput
    | PrepareTeamNamespaceInput
    | RemoveTeamNamespaceInput,
    Field(discriminator="kind"),
]
_WORKFLOW_INPUT: TypeAdapter[WorkflowInput] = TypeAdapter(WorkflowInput, config=ConfigDict(defer_build=True))


def parse_input(state: Any) -> WorkflowInput:
    """The execution state as its kind's input model (raises a pydantic ValidationError if it is not one)."""
    return _WORKFLOW_INPUT.validate_python(state)
