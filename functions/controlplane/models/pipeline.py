"""The one-request pipeline: every stage's input in one body, each part the model of its stage route."""

from __future__ import annotations

from pydantic import Field

from controlplane.models.clusters import (
    DEFAULT_KUBERNETES_VERSION,
    CreateEksClusterRequest,
    KubernetesVersion,
    VpcCidr,
)
from controlplane.models.common import ClusterTag, Contract, Region
from controlplane.models.hyperpod import CreateHyperPodRequest
from controlplane.models.storage import ConfigureStorageRequest


class EksOptions(Contract):
    """Stage 1 options (the tag and Region are the pipeline's own)."""

    vpcCidr: VpcCidr | None = Field(default=None, description="As in POST /clusters/eks.")
    kubernetesVersion: KubernetesVersion = Field(default=DEFAULT_KUBERNETES_VERSION)


class CreateClusterRequest(Contract):
    """All stages in one operation: network and EKS, dependencies, HyperPod, storage."""

    clusterTag: ClusterTag = Field(examples=["demo"])
    region: Region = Field(examples=["us-west-2"])
    eks: EksOptions = Field(default_factory=EksOptions, description="Stage 1 options.")
    hyperpod: CreateHyperPodRequest = Field(description="Stage 4: the first instance group.")
    storage: ConfigureStorageRequest = Field(default_factory=ConfigureStorageRequest, description="Stage 5.")

    def eks_request(self) -> CreateEksClusterRequest:
        return CreateEksClusterRequest(
            clusterTag=self.clusterTag,
            region=self.region,
            vpcCidr=self.eks.vpcCidr,
            kubernetesVersion=self.eks.kubernetesVersion,
        )
