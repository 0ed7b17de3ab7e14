"""The EKS add-ons the sandbox offers: versions per Kubernetes version, dependencies and required configuration.

Covers the add-ons the control plane installs (config/cluster-dependencies.json, config/feature-addons.json)
and their dependencies; versions are listed newest first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

KUBERNETES_VERSIONS = ("1.32", "1.33", "1.34", "1.35")
_ALL = KUBERNETES_VERSIONS
_OLDER = ("1.32", "1.33")
_NOT_NEWEST = ("1.32", "1.33", "1.34")

TRAINING_OPERATOR = "amazon-sagemaker-hyperpod-training-operator"
INFERENCE_OPERATOR = "amazon-sagemaker-hyperpod-inference"
OBSERVABILITY = "amazon-sagemaker-hyperpod-observability"


@dataclass(frozen=True)
class AddonEntry:
    name: str
    publisher: str
    owner: str
    versions: tuple[tuple[str, tuple[str, ...]], ...]  # (add-on version, Kubernetes versions), newest first
    association_namespace: str = "kube-system"  # where the pod identity associations it creates live
    dependencies: dict[str, str | None] = field(default_factory=dict)  # add-on → minimum version (None: any)
    required_configuration: tuple[str, ...] = ()  # configurationValues keys it cannot install without

    def compatible(self, kubernetes_version: str) -> list[str]:
        """Versions for a cluster on ``kubernetes_version``; every version when the catalog does not know it."""
        known = kubernetes_version in KUBERNETES_VERSIONS
        return [version for version, kubernetes in self.versions if not known or kubernetes_version in kubernetes]


def version_key(version: str) -> tuple[int, ...]:
    """`v1.18.2-eksbuild.3` → (1, 18, 2, 3); `v1.18.2` → (1, 18, 2, 0)."""
    match = re.match(r"v?(\d+)\.(\d+)\.(\d+)(?:-eksbuild\.(\d+))?", version)
    if match is None:
        return (0,)
    return tuple(int(part or 0) for part in match.groups())


CATALOG: dict[str, AddonEntry] = {
    entry.name: entry
    for entry in (
        AddonEntry(
            "eks-pod-identity-agent",
            "eks",
            "aws",
            (("v1.3.8-eksbuild.2", _ALL), ("v1.3.7-eksbuild.2", _ALL), ("v1.3.4-eksbuild.1", _OLDER)),
        ),
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
        ),
        AddonEntry(
            "aws-fsx-csi-driver",
            "eks",
            "aws",
            (("v1.7.0-eksbuild.1", _ALL), ("v1.6.0-eksbuild.1", _ALL), ("v1.5.0-eksbuild.1", _OLDER)),
        ),
        AddonEntry(
            "aws-ebs-csi-driver",
            "eks",
            "aws",
            (("v1.48.0-eksbuild.2", _ALL), ("v1.46.0-eksbuild.1", _ALL), ("v1.44.0-eksbuild.1", _NOT_NEWEST)),
        ),
        AddonEntry(
            "cert-manager",
            "eks",
            "community",
            (("v1.18.2-eksbuild.2", _ALL), ("v1.18.2-eksbuild.1", _ALL), ("v1.17.2-eksbuild.1", _NOT_NEWEST)),
        ),
        AddonEntry(
            "metrics-server",
            "eks",
            "community",
            (
                ("v0.8.0-eksbuild.2", _ALL),
                ("v0.7.2-eksbuild.4", _ALL),
                ("v0.7.2-eksbuild.3", _ALL),
                ("v0.7.2-eksbuild.1", _OLDER),
            ),
        ),
        AddonEntry(
            TRAINING_OPERATOR,
            "eks",
            "aws",
            (("v1.2.0-eksbuild.1", _ALL), ("v1.1.1-eksbuild.1", _ALL), ("v1.0.0-eksbuild.1", _OLDER)),
            association_namespace="aws-hyperpod",
            dependencies={"cert-manager": None, "eks-pod-identity-agent": None},
        ),
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
        ),
        AddonEntry(
            OBSERVABILITY,
            "eks",
            "aws",
            (("v1.1.0-eksbuild.1", _ALL), ("v1.0.2-eksbuild.1", _NOT_NEWEST)),
            association_namespace="hyperpod-observability",
        ),
    )
}
