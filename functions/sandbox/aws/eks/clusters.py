"""EKS clusters as the sandbox needs them: a CREATING → ACTIVE → DELETING → gone lifecycle, an endpoint that
points at the sandbox's Kubernetes API server (one the control plane cannot reach when the cluster's endpoint access
keeps it out: `sandbox.aws.eks.endpoints`), a CA, ``resourcesVpcConfig`` with ``vpcId`` and EKS's endpoint-access
defaults (UpdateClusterConfig changes only the fields it names, as in EKS; moto replaces the whole structure), and
``accessConfig`` (moto drops it; EKS defaults to CONFIG_MAP, which HyperPod refuses).

moto checks a role ARN's partition against boto3's by loading boto3's endpoint table anew for every cluster and
node group (a fortieth of the e2e suite's CPU); the sandbox reads the partitions once.

Patches moto's EKS backend, response and role ARN check. Status changes are lazy: DescribeCluster and ListClusters
advance a cluster once ``seconds`` have passed, and then call ``on_active(name)`` or ``on_deleted(region, name)``.
"""

from __future__ import annotations

import base64
import re
import secrets
import time
from collections.abc import Callable
from functools import cache
from typing import Any

import boto3
import moto.eks.models
from moto.ec2.models import ec2_backends
from moto.eks.exceptions import InvalidParameterException
from moto.eks.models import EKSBackend
from moto.eks.responses import EKSResponse

from sandbox.aws.eks.endpoints import UnreachableEndpoints, reachable_from_outside, with_defaults
from sandbox.aws.patches import Patches

# A PEM-shaped CA so the production client path (decode, write to a file) runs unchanged.
SANDBOX_CA = base64.b64encode(
    b"-----BEGIN CERTIFICATE-----\nSU5TVEFOVFNUQVJULVNBTkRCT1gtQ0E=\n-----END CERTIFICATE-----\n"
).decode()

ROLE_ARN = re.compile(r"arn:(?P<partition>.+):iam::[0-9]{12}:role/.+")


@cache
def partitions() -> frozenset[str]:
    return frozenset(boto3.Session().get_available_partitions())


def validate_role_arn(arn: str) -> None:
    """moto's check of a cluster's or node group's role ARN, with boto3's partitions read once."""
    match = ROLE_ARN.match(arn or "")
    if match is None or match.group("partition") not in partitions():
        raise InvalidParameterException(message=f"Invalid Role Arn: '{arn}'")


class EksClusters:
    def __init__(
        self,
        endpoint_for: Callable[[str], str],
        seconds: float,
        on_active: Callable[[str], None],
        on_deleted: Callable[[str, str], None],
    ) -> None:
        self._endpoint_for = endpoint_for
        # How long a cluster takes to settle; a test may lengthen it to outlast a wait.
        self.seconds = seconds
        self._on_active = on_active
        self._on_deleted = on_deleted
        self._since: dict[tuple[str, str], float] = {}  # (region, cluster) → when its current transition began
        self._unreachable = UnreachableEndpoints()
        self._patches = Patches()

    def install(self) -> None:
        clusters = self
        create, describe, listing = EKSBackend.create_cluster, EKSBackend.describe_cluster, EKSBackend.list_clusters
        update = EKSBackend.update_cluster_config
        respond_create = EKSResponse.create_cluster

        def respond_create_cluster(response: EKSResponse) -> Any:
            result = respond_create(response)
            cluster = response.eks_backend.clusters[response._get_param("name")]
            cluster.access_config = response._get_param("accessConfig") or {"authenticationMode": "CONFIG_MAP"}  # type: ignore[attr-defined]
            return result

        def create_cluster(backend: EKSBackend, *args: Any, **kwargs: Any) -> Any:
            cluster = create(backend, *args, **kwargs)
            cluster.status = "CREATING"
            cluster.certificate_authority = {"data": SANDBOX_CA}
            cluster.resources_vpc_config = with_defaults(cluster.resources_vpc_config)
            cluster.endpoint = clusters._endpoint(backend.region_name, cluster)
            # EKS reports the VPC of the cluster's subnets; moto echoes the request only.
            subnets = cluster.resources_vpc_config.get("subnetIds") or []
            if subnets:
                subnet = ec2_backends[backend.account_id][backend.region_name].get_subnet(subnets[0])
                cluster.resources_vpc_config = {**cluster.resources_vpc_config, "vpcId": subnet.vpc_id}
            clusters._since[(backend.region_name, cluster.name)] = time.monotonic()
            return cluster

        def describe_cluster(backend: EKSBackend, name: str) -> Any:
            clusters._advance(backend, name)
            return describe(backend, name)

        def delete_cluster(backend: EKSBackend, name: str) -> Any:
            cluster = describe(backend, name)
            if cluster.status != "DELETING":
                cluster.status = "DELETING"
                clusters._since[(backend.region_name, name)] = time.monotonic()
            return cluster

        def update_cluster_config(
            backend: EKSBackend, name: str, resources_vpc_config: Any = None, **kwargs: Any
        ) -> Any:
            cluster = update(backend, name, resources_vpc_config={}, **kwargs)
            if resources_vpc_config:
                changed = {**cluster.resources_vpc_config, **resources_vpc_config}
                cluster.resources_vpc_config = with_defaults(changed)
                cluster.endpoint = clusters._endpoint(backend.region_name, cluster)
            return cluster

        def list_clusters(backend: EKSBackend, *args: Any, **kwargs: Any) -> Any:
            for name in list(backend.clusters):
                clusters._advance(backend, name)
            return listing(backend, *args, **kwargs)

        self._patches.replace(EKSBackend, "create_cluster", create_cluster)
        self._patches.replace(EKSBackend, "list_clusters", list_clusters)
        self._patches.replace(EKSBackend, "describe_cluster", describe_cluster)
        self._patches.replace(EKSBackend, "delete_cluster", delete_cluster)
        self._patches.replace(EKSBackend, "update_cluster_config", update_cluster_config)
        self._patches.replace(EKSResponse, "create_cluster", respond_create_cluster)
        self._patches.replace(moto.eks.models, "validate_role_arn", validate_role_arn)

        self._unreachable.install()

    def uninstall(self) -> None:
        self._unreachable.uninstall()
        self._patches.restore()

    def _endpoint(self, region: str, cluster: Any) -> str:
        """The sandbox's API server when the control plane may reach the cluster, else a host of its own that it
        cannot connect to (EKS's endpoint names look so)."""
        if reachable_from_outside(cluster.resources_vpc_config):
            return self._endpoint_for(cluster.name)
        host = f"{secrets.token_hex(16).upper()}.gr7.{region}.eks.amazonaws.com"
        self._unreachable.add(host)
        return f"https://{host}"

    def _advance(self, backend: EKSBackend, name: str) -> None:
        key = (backend.region_name, name)
        cluster = backend.clusters.get(name)
        started = self._since.get(key)
        if cluster is None or started is None or time.monotonic() - started < self.seconds:
            return
        del self._since[key]
        if cluster.status == "CREATING":
            cluster.status = "ACTIVE"
            self._on_active(name)
        elif cluster.status == "DELETING":
            backend.clusters.pop(name, None)
            self._on_deleted(backend.region_name, name)
