"""Adopting an existing EKS cluster (and its HyperPod cluster), and giving it back: the adoption tag on the cluster
and its VPC, the reads that discover its network and finished stages; on delete, what the stages added inside it
(access entries, add-ons, pod identity associations, all carrying the ownership tags) and the adoption tags."""

from __future__ import annotations

from controlplane import wiring
from controlplane.access.conditions import ADOPTION_TAG_ONLY, ADOPTION_TAG_REASON, MANAGED_RESOURCE
from controlplane.access.ec2 import describe, ec2
from controlplane.access.eks import (
    ANY_ACCESS_ENTRY,
    ANY_EKS_CLUSTER,
    ANY_POD_IDENTITY,
    DELETE_ADDON,
    DESCRIBE_ADDONS,
    DESCRIBE_EKS_CLUSTER,
    KUBERNETES_PRINCIPALS,
    OWNED_SUB_RESOURCE_REASON,
    READ_ANY_CLUSTER_REASON,
    READ_POD_IDENTITIES,
)
from controlplane.access.grant import ASSUME_KUBERNETES_ROLE, Grant
from controlplane.access.hyperpod import DESCRIBE_HYPERPOD
from controlplane.access.iam import LIST_OIDC_PROVIDERS
from controlplane.models.workflow import DeleteEksClusterInput, ImportClusterInput
from steps.groups import IMPORT, IMPORTED_CLUSTER_RELEASE, KUBERNETES
from steps.step import work

STEPS = (
    work(
        "Tag Imported Cluster",
        IMPORT,
        ImportClusterInput,
        lambda ctx: wiring.cluster_import(ctx.region).tag_imported_cluster(ctx),
        (
            DESCRIBE_EKS_CLUSTER,
            Grant(("eks:TagResource",), ANY_EKS_CLUSTER, ADOPTION_TAG_ONLY, ADOPTION_TAG_REASON),
            describe("DescribeVpcs"),
            Grant(("ec2:CreateTags",), ec2("vpc"), ADOPTION_TAG_ONLY, ADOPTION_TAG_REASON),
        ),
    ),
    work(
        "Discover Cluster Network",
        IMPORT,
        ImportClusterInput,
        lambda ctx: wiring.cluster_import(ctx.region).discover_cluster_network(ctx),
        (DESCRIBE_EKS_CLUSTER, describe("DescribeVpcs", "DescribeRouteTables")),
    ),
    work(
        "Discover Cluster Stages",
        KUBERNETES,
        ImportClusterInput,
        lambda ctx: wiring.cluster_import(ctx.region).discover_cluster_stages(ctx),
        (DESCRIBE_EKS_CLUSTER, LIST_OIDC_PROVIDERS, DESCRIBE_ADDONS, DESCRIBE_HYPERPOD, ASSUME_KUBERNETES_ROLE),
    ),
    work(
        "Release Imported Cluster",
        IMPORTED_CLUSTER_RELEASE,
        DeleteEksClusterInput,
        lambda ctx: wiring.cluster_import(ctx.region).release_imported_cluster(ctx),
        (
            DESCRIBE_EKS_CLUSTER,
            ASSUME_KUBERNETES_ROLE,
            Grant(("eks:DescribeAccessEntry",), ANY_ACCESS_ENTRY, reason=READ_ANY_CLUSTER_REASON),
            Grant(
                ("eks:DeleteAccessEntry",),
                ANY_ACCESS_ENTRY,
                {"StringEquals": {**KUBERNETES_PRINCIPALS["StringEquals"], **MANAGED_RESOURCE["StringEquals"]}},
                OWNED_SUB_RESOURCE_REASON,
            ),
            *DELETE_ADDON,
            *READ_POD_IDENTITIES,
            Grant(("eks:DeletePodIdentityAssociation",), ANY_POD_IDENTITY, MANAGED_RESOURCE, OWNED_SUB_RESOURCE_REASON),
            Grant(("eks:UntagResource",), ANY_EKS_CLUSTER, ADOPTION_TAG_ONLY, ADOPTION_TAG_REASON),
            describe("DescribeVpcs"),
            Grant(("ec2:DeleteTags",), ec2("vpc"), ADOPTION_TAG_ONLY, ADOPTION_TAG_REASON),
        ),
    ),
)
