"""The EKS add-ons the sandbox offers: versions per Kubernetes version, dependencies, required configuration, and
what each runs in the cluster.

Covers the add-ons the control plane installs (config/cluster-dependencies.json, and the features' pins in
controlplane/core/features/catalog), their dependencies and EKS's default add-ons; versions are listed newest
first. A pin is not offered for every Kubernetes version: a newer one is often served only by a newer build (as EKS
publishes them). This is what EKS offers (AWS's behaviour), not a list of the product's features.

What an add-on runs decides its health (`sandbox.aws.eks.health`): a Deployment needs a node its pods can run on,
so EKS reports such an add-on DEGRADED (InsufficientNumberOfReplicas) on a cluster without one; a DaemonSet wants
no replica on a cluster without nodes. Each entry names the public source of its workload.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

KUBERNETES_VERSIONS = ("1.32", "1.33", "1.34", "1.35")
_ALL = KUBERNETES_VERSIONS
_OLDER = ("1.32", "1.33")
_NOT_NEWEST = ("1.32", "1.33", "1.34")

TRAINING_OPERATOR = "amazon-sagemaker-hyperpod-training-operator"
INFERENCE_OPERATOR = "amazon-sagemaker-hyperpod-inference"
OBSERVABILITY = "amazon-sagemaker-hyperpod-observability"
SPACES = "amazon-sagemaker-spaces"
TASK_GOVERNANCE = "amazon-sagemaker-hyperpod-taskgovernance"


@dataclass(frozen=True)
class AddonEntry:
    name: str
    publisher: str
    owner: str
    versions: tuple[tuple[str, tuple[str, ...]], ...]  # (add-on version, Kubernetes versions), newest first
    association_namespace: str = "kube-system"  # where the pod identity associations it creates live
    dependencies: dict[str, str | None] = field(default_factory=dict)  # add-on → minimum version (None: any)
    required_configuration: tuple[str, ...] = ()  # configurationValues keys it cannot install without
    deployments: tuple[str, ...] = ()  # the Deployments it runs (DaemonSets need no schedulable node)
    deployments_since: str | None = None  # the first version that runs them (None: every version)
    tolerates: tuple[str, ...] = ()  # the taint keys its Deployments' pods tolerate

    def needs_nodes(self, version: str) -> bool:
        """Whether this version runs a Deployment, whose replicas need a node to run on."""
        since = self.deployments_since
        return bool(self.deployments) and (since is None or version_key(version) >= version_key(since))

    def compatible(self, kubernetes_version: str) -> list[str]:
        """Versions for a cluster on ``kubernetes_version``; every version when the catalog does not know it."""
        known = kubernetes_version in KUBERNETES_VERSIONS
        return [version for version, kubernetes in self.versions if not known or kubernetes_version in kubernetes]


def addon_info(entry: AddonEntry, kubernetes_version: str | None) -> dict[str, Any]:
    """The add-on as DescribeAddonVersions returns it (`AddonInfo`): its versions for ``kubernetes_version`` (every
    version when None), newest first, each with the Kubernetes versions it supports (a version the catalog does not
    know is supported by every add-on version, as CreateAddon accepts them); a Kubernetes version's default is the
    newest add-on version that supports it."""
    listed = entry.compatible(kubernetes_version) if kubernetes_version else [version for version, _ in entry.versions]
    unknown = () if kubernetes_version in (None, *KUBERNETES_VERSIONS) else (kubernetes_version,)
    defaults: dict[str, str] = {}
    for version, kubernetes in entry.versions:
        for cluster_version in (*kubernetes, *unknown):
            defaults.setdefault(cluster_version, version)
    versions = [
        {
            "addonVersion": version,
            "architecture": ["amd64", "arm64"],
            "compatibilities": [
                {"clusterVersion": cluster, "platformVersions": ["*"], "defaultVersion": defaults[cluster] == version}
                for cluster in (*kubernetes, *unknown)
            ],
            "requiresConfiguration": bool(entry.required_configuration),
        }
        for version, kubernetes in entry.versions
        if version in listed
    ]
    return {"addonName": entry.name, "addonVersions": versions, "publisher": entry.publisher, "owner": entry.owner}


def version_key(version: str) -> tuple[int, ...]:
    """`v1.18.2-eksbuild.3` → (1, 18, 2, 3); `v1.18.2` → (1, 18, 2, 0)."""
    match = re.match(r"v?(\d+)\.(\d+)\.(\d+)(?:-eksbuild\.(\d+))?", version)
    if match is None:
        return (0,)
    return tuple(int(part or 0) for part in match.groups())


CATALOG: dict[str, AddonEntry] = {
    entry.name: entry
    for entry in (
        # DaemonSet eks-pod-identity-agent only [doc: EKS User Guide, "Set up the Amazon EKS Pod Identity Agent"].
        AddonEntry(
            "eks-pod-identity-agent",
            "eks",
            "aws",
            (("v1.3.8-eksbuild.2", _ALL), ("v1.3.7-eksbuild.2", _ALL), ("v1.3.4-eksbuild.1", _OLDER)),
        ),
        # v1: DaemonSet s3-csi-node only (the s3-csi-controller Deployment is behind `experimental.podMounter`);
        # v2 runs Mountpoint in pods of its own, placed by the s3-csi-controller Deployment [src:
        # awslabs/mountpoint-s3-csi-driver charts/aws-mountpoint-s3-csi-driver/templates/controller.yaml].
        AddonEntry(
            "aws-mountpoint-s3-csi-driver",
            "s3",
            "aws",
            (
                ("v2.1.0-eksbuild.1", _ALL),
                ("v1.15.0-eksbuild.1", _ALL),
                ("v1.14.1-eksbuild.1", _NOT_NEWEST),
                ("v1.11.0-eksbuild.1", _OLDER),
            ),
            deployments=("s3-csi-controller",),
            deployments_since="v2.0.0",
        ),
        # Deployment fsx-csi-controller and DaemonSet fsx-csi-node [src: kubernetes-sigs/aws-fsx-csi-driver
        # charts/aws-fsx-csi-driver/templates/controller-deployment.yaml, node-daemonset.yaml].
        AddonEntry(
            "aws-fsx-csi-driver",
            "eks",
            "aws",
            (("v1.7.0-eksbuild.1", _ALL), ("v1.6.0-eksbuild.1", _ALL), ("v1.5.0-eksbuild.1", _OLDER)),
            deployments=("fsx-csi-controller",),
        ),
        # Deployment ebs-csi-controller and DaemonSet ebs-csi-node [src: kubernetes-sigs/aws-ebs-csi-driver charts;
        # DEGRADED without nodes: apecloud/kubeblocks #2371].
        AddonEntry(
            "aws-ebs-csi-driver",
            "eks",
            "aws",
            (("v1.48.0-eksbuild.2", _ALL), ("v1.46.0-eksbuild.1", _ALL), ("v1.44.0-eksbuild.1", _NOT_NEWEST)),
            deployments=("ebs-csi-controller",),
        ),
        # Deployments cert-manager, cert-manager-cainjector and cert-manager-webhook [src: cert-manager's Helm chart,
        # deploy/charts/cert-manager/templates/deployment.yaml, cainjector-deployment.yaml, webhook-deployment.yaml].
        AddonEntry(
            "cert-manager",
            "eks",
            "community",
            (("v1.18.2-eksbuild.2", _ALL), ("v1.18.2-eksbuild.1", _NOT_NEWEST), ("v1.17.2-eksbuild.1", _NOT_NEWEST)),
            deployments=("cert-manager", "cert-manager-cainjector", "cert-manager-webhook"),
        ),
        # Deployment metrics-server [src: kubernetes-sigs/metrics-server
        # charts/metrics-server/templates/deployment.yaml].
        AddonEntry(
            "metrics-server",
            "eks",
            "community",
            (
                ("v0.8.0-eksbuild.2", _ALL),
                ("v0.7.2-eksbuild.4", _ALL),
                ("v0.7.2-eksbuild.3", _NOT_NEWEST),
                ("v0.7.2-eksbuild.1", _OLDER),
            ),
            deployments=("metrics-server",),
        ),
        # EKS's default add-ons. Deployment coredns, which tolerates CriticalAddonsOnly and the control-plane taint; a
        # cluster created without nodes has it DEGRADED [eksctl #4607 and PR #4332, aws/containers-roadmap #2328].
        AddonEntry(
            "coredns",
            "eks",
            "aws",
            (
                ("v1.12.4-eksbuild.1", ("1.34", "1.35")),
                ("v1.12.1-eksbuild.2", ("1.33", "1.34")),
                ("v1.11.4-eksbuild.2", _OLDER),
            ),
            deployments=("coredns",),
            tolerates=("CriticalAddonsOnly", "node-role.kubernetes.io/control-plane"),
        ),
        # DaemonSets kube-proxy and aws-node [doc: EKS User Guide, "Manage kube-proxy" and "Amazon VPC CNI"].
        AddonEntry(
            "kube-proxy",
            "eks",
            "aws",
            (
                ("v1.35.0-eksbuild.2", ("1.35",)),
                ("v1.34.0-eksbuild.2", ("1.34",)),
                ("v1.33.3-eksbuild.4", ("1.33",)),
                ("v1.32.6-eksbuild.8", ("1.32",)),
            ),
        ),
        AddonEntry("vpc-cni", "eks", "aws", (("v1.20.1-eksbuild.3", _ALL), ("v1.19.6-eksbuild.7", _NOT_NEWEST))),
        # Deployment hp-training-operator-controller-manager in aws-hyperpod [doc: SageMaker Developer Guide,
        # "Install the HyperPod training operator" (its pod identity association names that service account)].
        AddonEntry(
            TRAINING_OPERATOR,
            "eks",
            "aws",
            (("v1.2.0-eksbuild.1", _ALL), ("v1.1.1-eksbuild.1", _ALL), ("v1.0.0-eksbuild.1", _OLDER)),
            association_namespace="aws-hyperpod",
            dependencies={"cert-manager": None, "eks-pod-identity-agent": None},
            deployments=("hp-training-operator-controller-manager",),
        ),
        # Deployment hyperpod-inference-controller-manager, which the add-on packages [src: aws/sagemaker-hyperpod-cli
        # helm_chart/HyperPodHelmChart/charts/inference-operator/config/manager/manager.yaml].
        AddonEntry(
            INFERENCE_OPERATOR,
            "eks",
            "aws",
            (
                ("v2.0.0-eksbuild.2", _ALL),
                ("v2.0.0-eksbuild.1", _ALL),
                ("v1.1.0-eksbuild.1", _ALL),
                ("v1.0.0-eksbuild.1", _NOT_NEWEST),
            ),
            association_namespace="hyperpod-inference-system",
            dependencies={
                "aws-mountpoint-s3-csi-driver": "v1.14.1",
                "aws-fsx-csi-driver": "v1.6.0",
                "metrics-server": "v0.7.2",
                "cert-manager": "v1.18.2",
            },
            required_configuration=("executionRoleArn", "tlsCertificateS3Bucket"),
            deployments=("hyperpod-inference-controller-manager",),
        ),
        # The observability operator's Deployment, which runs the collectors [doc: SageMaker Developer Guide,
        # "HyperPod observability add-on"; its service account hyperpod-observability-operator-otel-collector is an
        # operator-managed collector's] [inferred: the Deployment's name].
        AddonEntry(
            OBSERVABILITY,
            "eks",
            "aws",
            (("v1.1.0-eksbuild.1", _ALL), ("v1.0.2-eksbuild.1", _NOT_NEWEST)),
            association_namespace="hyperpod-observability",
            deployments=("hyperpod-observability-operator",),
        ),
        # The spaces controller's Deployment (jupyter-k8s's controller manager, which the add-on packages) [src:
        # jupyter-infra/jupyter-k8s config/manager/manager.yaml; doc: SageMaker Developer Guide, "SageMaker Spaces on
        # HyperPod"] [inferred: the add-on's version names].
        AddonEntry(
            SPACES,
            "eks",
            "aws",
            (("v1.0.0-eksbuild.1", _ALL),),
            dependencies={"cert-manager": None},
            deployments=("jupyter-k8s-controller-manager",),
        ),
        # Kueue's controller manager in kueue-system, which the add-on packages (v1.6: Kueue v0.19.2) [doc: SageMaker
        # Developer Guide, "Upgrade the task governance add-on"] [inferred: the Deployment's name is Kueue's own].
        AddonEntry(
            TASK_GOVERNANCE,
            "eks",
            "aws",
            (("v1.6.0-eksbuild.1", _ALL), ("v1.3.0-eksbuild.1", _NOT_NEWEST)),
            deployments=("kueue-controller-manager",),
        ),
    )
}
