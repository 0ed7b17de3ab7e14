"""EKS add-ons as stage 3, stage 4, the cluster's status and the features judge them: which add-ons need nodes, how
healthy an add-on is on its cluster, and which version to install on a cluster's Kubernetes version.

Not here: which add-ons a stage installs (the reviewed pins, `controlplane.config`), or how (the stages' steps).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum

from controlplane.core.ports.eks import Addon, EksGateway
from controlplane.core.ports.kubernetes import KubernetesNode
from controlplane.models.errors import DependencyFailedError

REPLICAS_ISSUE = "InsufficientNumberOfReplicas"
SETTLING_STATES = frozenset({"CREATING", "UPDATING", "DELETING"})
# The add-ons whose workloads include a Deployment, from the first version that does ("v0": every version). EKS
# reports such an add-on DEGRADED (InsufficientNumberOfReplicas) within seconds of its creation and until a node
# can run its pods (eksctl #4607, terraform-aws-eks #3001, pulumi-eks #1819); a new cluster has no node before stage
# 4. The other add-ons the control plane installs run DaemonSets only (the pod identity agent, the S3 CSI driver's
# node plugin before v2).
NEEDS_NODES_FROM: dict[str, str] = {
    "cert-manager": "v0",  # cert-manager, cert-manager-cainjector, cert-manager-webhook
    "metrics-server": "v0",
    "coredns": "v0",
    "aws-fsx-csi-driver": "v0",  # fsx-csi-controller
    "aws-ebs-csi-driver": "v0",  # ebs-csi-controller
    "aws-mountpoint-s3-csi-driver": "v2.0.0",  # s3-csi-controller, which places v2's Mountpoint pods
    "amazon-sagemaker-hyperpod-training-operator": "v0",  # hp-training-operator-controller-manager
    "amazon-sagemaker-hyperpod-inference": "v0",  # hyperpod-inference-controller-manager
    "amazon-sagemaker-hyperpod-observability": "v0",  # the observability operator
    "amazon-sagemaker-hyperpod-taskgovernance": "v0",  # kueue-controller-manager
}


class Health(StrEnum):
    ACTIVE = "ACTIVE"
    WAITING_FOR_NODES = "installed, waiting for nodes"
    SETTLING = "settling"
    FAILED = "failed"


@dataclass(frozen=True)
class AddonHealth:
    addon: Addon
    health: Health

    def describe(self) -> str:
        """`cert-manager DEGRADED (InsufficientNumberOfReplicas: …)`, as a stage message or a failure names it."""
        issues = "; ".join(str(issue) for issue in self.addon.issues)
        return f"{self.addon.name} {self.addon.status}" + (f" ({issues})" if issues else "")


def version_key(version: str) -> tuple[int, ...]:
    """`v1.18.2-eksbuild.3` → (1, 18, 2, 3); `v1.18.2` → (1, 18, 2, 0); anything else sorts first."""
    match = re.match(r"v?(\d+)\.(\d+)\.(\d+)(?:-eksbuild\.(\d+))?", version)
    return tuple(int(part or 0) for part in match.groups()) if match else (0,)


def needs_nodes(addon: str, version: str | None) -> bool:
    """Whether this version of the add-on runs a Deployment, whose replicas need a node to run on."""
    since = NEEDS_NODES_FROM.get(addon)
    return since is not None and version_key(version or since) >= version_key(since)


def node_free_first(addons: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """(add-on, version) pairs, those that need no node first, each group in its given order."""
    return sorted(addons, key=lambda pair: needs_nodes(*pair))


def schedulable(nodes: Iterable[KubernetesNode]) -> bool:
    """Whether any node is Ready and schedulable (not cordoned, no NoSchedule taint)."""
    return any(node.ready and node.schedulable for node in nodes)


def addon_health(addon: Addon, schedulable_node: Callable[[], bool] | None) -> AddonHealth:
    """How an add-on stands. ACTIVE; settling while EKS works on it; WAITING_FOR_NODES when it runs Deployments and
    is DEGRADED only for want of replicas while the cluster has no node its pods could run on (`schedulable_node`,
    read only then; None: the nodes are not asked, and such an add-on counts as settling); FAILED otherwise
    (CREATE_FAILED, UPDATE_FAILED, DELETE_FAILED, or DEGRADED for another reason, or on an add-on needing no node)."""
    if addon.status == "ACTIVE":
        return AddonHealth(addon, Health.ACTIVE)
    if addon.status in SETTLING_STATES:
        return AddonHealth(addon, Health.SETTLING)
    short_of_replicas = bool(addon.issues) and all(issue.code == REPLICAS_ISSUE for issue in addon.issues)
    if addon.status == "DEGRADED" and short_of_replicas and needs_nodes(addon.name, addon.version):
        waits = schedulable_node is not None and not schedulable_node()
        return AddonHealth(addon, Health.WAITING_FOR_NODES if waits else Health.SETTLING)
    return AddonHealth(addon, Health.FAILED)


def failed(health: AddonHealth, remedy: str) -> DependencyFailedError:
    """The failure of a failed add-on: its status and health issues, and what to do."""
    addon = health.addon
    issues = "; ".join(str(issue) for issue in addon.issues) or "no health details"
    return DependencyFailedError(f"Add-on {addon.name} is {addon.status}: {issues}. {remedy}")


def resolve_version(eks: EksGateway, addon: str, pin: str, kubernetes_version: str | None) -> str:
    """The version of `addon` to install on a cluster of `kubernetes_version`, the reviewed pin as the floor.

    The pin itself when EKS offers it for that Kubernetes version (the reviewed version wins); otherwise the lowest
    offered version above the pin (the smallest step from what was reviewed: a newer build before a newer release);
    never one below the pin. EKS offering nothing at or above the pin is a DependencyFailedError naming the add-on,
    the pin and the Kubernetes version. A cluster whose version EKS does not report gets the pin.
    """
    if kubernetes_version is None:
        return pin
    offered = eks.addon_versions(addon, kubernetes_version)
    chosen = _floor(offered, pin)
    if chosen is not None:
        return chosen
    listed = ", ".join(sorted(offered, key=version_key, reverse=True)) or "none"
    raise DependencyFailedError(
        f"EKS offers no version of add-on {addon} at or above the reviewed pin {pin} for Kubernetes "
        f"{kubernetes_version} (offered: {listed}). Use a cluster on a Kubernetes version the pin supports, or "
        "review a newer pin in the control plane's add-on configuration."
    )


def installed_for_pin(eks: EksGateway, addon: str, pin: str, kubernetes_version: str | None, version: str) -> bool:
    """Whether `version` is what `resolve_version` installs for `pin` on this Kubernetes version (no EKS call when it
    is the pin)."""
    if version == pin:
        return True
    return kubernetes_version is not None and _floor(eks.addon_versions(addon, kubernetes_version), pin) == version


def _floor(offered: list[str], pin: str) -> str | None:
    if pin in offered:
        return pin
    newer = sorted((version for version in offered if version_key(version) > version_key(pin)), key=version_key)
    return newer[0] if newer else None
