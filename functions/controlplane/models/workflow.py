"""Step I/O: the state every workflow passes from Task to Task."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from controlplane.models.clusters import ImportedNetwork, NetworkPlan
from controlplane.models.common import View
from controlplane.models.features import FeatureChanges
from controlplane.models.hyperpod import HyperPodPlan
from controlplane.models.instance_groups import InstanceGroupChange, SoftwareUpdatePlan
from controlplane.models.operations import OperationKind
from controlplane.models.storage import StoragePlan


class PollState(View):
    """Output of a check step that a Wait → Task → Choice loop reads."""

    done: bool
    attempts: int
    waitSeconds: int
    status: str | None = None


class WorkflowInput(View):
    """Execution input; every step receives it (plus `poll` inside wait loops, `error` on failure)."""

    operationId: str
    kind: OperationKind
    clusterTag: str
    region: str
    accountId: str | None = None
    eksClusterName: str
    hyperPodClusterName: str | None = None
    imported: bool = False
    importedNetwork: ImportedNetwork | None = None
    kubernetesVersion: str | None = None
    network: NetworkPlan | None = None
    hyperpod: HyperPodPlan | None = None
    storage: StoragePlan | None = None
    instanceGroup: InstanceGroupChange | None = None
    softwareUpdate: SoftwareUpdatePlan | None = None
    features: FeatureChanges | None = None
    poll: PollState | None = None
    error: dict[str, Any] | None = None


def parse_input(state: Mapping[str, Any]) -> WorkflowInput:
    """The workflow input a step receives: the one place that reads an execution state's shape."""
    return WorkflowInput.model_validate(state)
