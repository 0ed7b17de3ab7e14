"""EKS cluster lifecycle and access entries in the sandbox, driven by boto3 against moto."""

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import boto3
import pytest
import urllib3
from botocore.exceptions import ClientError
from moto import mock_aws

from sandbox.aws.eks.access import AccessEntries
from sandbox.aws.eks.clusters import SANDBOX_CA, EksClusters
from sandbox.k8s.rbac import ApiAccess

ACCOUNT = "123456789012"
REGION = "us-west-2"
ADMIN = "arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy"
VIEW = "arn:aws:eks::aws:cluster-access-policy/AmazonEKSViewPolicy"
PRINCIPAL = f"arn:aws:iam::{ACCOUNT}:role/control-plane"


@dataclass
class Eks:
    client: Any
    clusters: EksClusters
    access: AccessEntries
    events: list[tuple[str, str]] = field(default_factory=list)

    def create(self, name: str = "demo", endpoint: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
        vpc = {"subnetIds": [], "securityGroupIds": ["sg-1"], **(endpoint or {})}
        return self.client.create_cluster(
            name=name, roleArn=f"arn:aws:iam::{ACCOUNT}:role/eks", resourcesVpcConfig=vpc, **extra
        )["cluster"]


@pytest.fixture
def eks() -> Iterator[Eks]:
    with mock_aws():
        events: list[tuple[str, str]] = []
        access = AccessEntries(ACCOUNT)
        clusters = EksClusters(
            endpoint_for=lambda name: f"http://127.0.0.1:9/k8s/{name}",
            seconds=0,
            on_active=lambda name: events.append(("active", name)),
            on_deleted=lambda region, name: (events.append(("deleted", name)), access.forget(region, name)),
        )
        clusters.install()
        access.install()
        try:
            yield Eks(boto3.client("eks", region_name=REGION), clusters, access, events)
        finally:
            access.uninstall()
            clusters.uninstall()


def test_a_cluster_is_creating_then_active_with_an_endpoint_ca_and_its_access_config(eks: Eks) -> None:
    created = eks.create(accessConfig={"authenticationMode": "API_AND_CONFIG_MAP"})

    described = eks.client.describe_cluster(name="demo")["cluster"]

    assert created["status"] == "CREATING"
    assert (described["status"], described["endpoint"]) == ("ACTIVE", "http://127.0.0.1:9/k8s/demo")
    assert described["certificateAuthority"]["data"] == SANDBOX_CA
    assert described["accessConfig"]["authenticationMode"] == "API_AND_CONFIG_MAP"
    assert eks.events == [("active", "demo")]


def test_a_cluster_s_endpoint_access_is_reported_with_eks_defaults(eks: Eks) -> None:
    eks.create("open")
    eks.create("private", {"endpointPublicAccess": False, "endpointPrivateAccess": True})

    opened = eks.client.describe_cluster(name="open")["cluster"]["resourcesVpcConfig"]
    private = eks.client.describe_cluster(name="private")["cluster"]["resourcesVpcConfig"]

    assert (opened["endpointPublicAccess"], opened["endpointPrivateAccess"], opened["publicAccessCidrs"]) == (
        True,
        False,
        ["0.0.0.0/0"],
    )
    assert (private["endpointPublicAccess"], private["publicAccessCidrs"]) == (False, [])
    assert private["securityGroupIds"] == ["sg-1"]


@pytest.mark.parametrize(
    "endpoint",
    [{"endpointPublicAccess": False, "endpointPrivateAccess": True}, {"publicAccessCidrs": ["203.0.113.0/24"]}],
    ids=["private-only", "public-to-other-cidrs"],
)
def test_an_endpoint_outside_the_control_plane_s_reach_times_out_until_it_is_public_to_any_address(
    eks: Eks, endpoint: dict[str, Any]
) -> None:
    from kubernetes import client as k8s

    eks.create("kept", endpoint)
    kept = eks.client.describe_cluster(name="kept")["cluster"]["endpoint"]

    with pytest.raises(urllib3.exceptions.MaxRetryError) as raised:
        k8s.VersionApi(k8s.ApiClient(k8s.Configuration(host=kept))).get_code()

    assert isinstance(raised.value.reason, urllib3.exceptions.ConnectTimeoutError)
    assert "not reachable from outside its VPC" in str(raised.value.reason.__cause__)  # not a DNS lookup
    assert kept.endswith(f".gr7.{REGION}.eks.amazonaws.com")
    eks.client.update_cluster_config(
        name="kept", resourcesVpcConfig={"endpointPublicAccess": True, "publicAccessCidrs": ["0.0.0.0/0"]}
    )
    opened = eks.client.describe_cluster(name="kept")["cluster"]
    assert opened["endpoint"] == "http://127.0.0.1:9/k8s/kept"
    assert opened["resourcesVpcConfig"]["securityGroupIds"] == ["sg-1"]


def test_a_cluster_without_access_config_gets_eks_default_mode(eks: Eks) -> None:
    eks.create()

    assert eks.client.describe_cluster(name="demo")["cluster"]["accessConfig"]["authenticationMode"] == "CONFIG_MAP"


def test_a_deleted_cluster_is_deleting_then_gone_from_the_list(eks: Eks) -> None:
    eks.create()
    eks.client.describe_cluster(name="demo")

    deleting = eks.client.delete_cluster(name="demo")["cluster"]

    assert deleting["status"] == "DELETING"
    assert eks.client.list_clusters()["clusters"] == []
    assert eks.events == [("active", "demo"), ("deleted", "demo")]


def test_access_entries_make_an_admin_only_with_the_admin_policy(eks: Eks) -> None:
    eks.create()
    eks.client.create_access_entry(clusterName="demo", principalArn=PRINCIPAL, tags={"k": "v"})
    assert not eks.access.is_admin("demo", PRINCIPAL)

    eks.client.associate_access_policy(
        clusterName="demo", principalArn=PRINCIPAL, policyArn=ADMIN, accessScope={"type": "cluster"}
    )

    assert eks.access.is_admin("demo", PRINCIPAL)
    assert eks.client.list_access_entries(clusterName="demo")["accessEntries"] == [PRINCIPAL]
    assert eks.client.describe_access_entry(clusterName="demo", principalArn=PRINCIPAL)["accessEntry"]["tags"] == {
        "k": "v"
    }
    policies = eks.client.list_associated_access_policies(clusterName="demo", principalArn=PRINCIPAL)
    assert [p["policyArn"] for p in policies["associatedAccessPolicies"]] == [ADMIN]
    with pytest.raises(ClientError) as twice:
        eks.client.create_access_entry(clusterName="demo", principalArn=PRINCIPAL)
    assert twice.value.response["Error"]["Code"] == "ResourceInUseException"

    eks.client.delete_access_entry(clusterName="demo", principalArn=PRINCIPAL)

    assert not eks.access.is_admin("demo", PRINCIPAL)
    with pytest.raises(ClientError) as gone:
        eks.client.describe_access_entry(clusterName="demo", principalArn=PRINCIPAL)
    assert gone.value.response["Error"]["Code"] == "ResourceNotFoundException"


def test_the_view_policy_reads_built_in_workload_kinds_but_no_secret_node_or_custom_resource(eks: Eks) -> None:
    eks.create()
    eks.client.create_access_entry(clusterName="demo", principalArn=PRINCIPAL)
    eks.client.associate_access_policy(
        clusterName="demo", principalArn=PRINCIPAL, policyArn=VIEW, accessScope={"type": "cluster"}
    )

    assert eks.access.allows("demo", PRINCIPAL, ApiAccess("get", "", "pods", "default"))
    assert eks.access.allows("demo", PRINCIPAL, ApiAccess("list", "", "configmaps", "default"))
    for verb in ("get", "list", "watch"):
        assert not eks.access.allows("demo", PRINCIPAL, ApiAccess(verb, "", "secrets", "default"))
    assert not eks.access.allows("demo", PRINCIPAL, ApiAccess("create", "", "pods", "default"))
    for access in (
        ApiAccess("get", "sagemaker.amazonaws.com", "hyperpodpytorchjobs", "default"),
        ApiAccess("list", "kueue.x-k8s.io", "workloads", "hyperpod-ns-a"),
        ApiAccess("list", "", "nodes"),
    ):
        assert not eks.access.allows("demo", PRINCIPAL, access), access


def test_update_access_entry_replaces_the_entrys_kubernetes_groups(eks: Eks) -> None:
    eks.create()
    eks.client.create_access_entry(clusterName="demo", principalArn=PRINCIPAL, kubernetesGroups=["a"])

    updated = eks.client.update_access_entry(clusterName="demo", principalArn=PRINCIPAL, kubernetesGroups=["b", "c"])

    assert updated["accessEntry"]["kubernetesGroups"] == ["b", "c"]
    assert eks.access.groups("demo", PRINCIPAL) == ["b", "c"]
    with pytest.raises(ClientError) as missing:
        eks.client.update_access_entry(clusterName="demo", principalArn=f"{PRINCIPAL}-other", kubernetesGroups=["b"])
    assert missing.value.response["Error"]["Code"] == "ResourceNotFoundException"


def test_kubernetes_groups_are_refused_on_entries_that_are_not_standard(eks: Eks) -> None:
    eks.create()
    with pytest.raises(ClientError) as created:
        eks.client.create_access_entry(
            clusterName="demo", principalArn=PRINCIPAL, type="EC2_LINUX", kubernetesGroups=["a"]
        )
    assert created.value.response["Error"]["Code"] == "InvalidParameterException"
    eks.client.create_access_entry(clusterName="demo", principalArn=PRINCIPAL, type="EC2_LINUX")

    with pytest.raises(ClientError) as updated:
        eks.client.update_access_entry(clusterName="demo", principalArn=PRINCIPAL, kubernetesGroups=["a"])

    assert updated.value.response["Error"]["Code"] == "InvalidParameterException"
    assert "STANDARD" in updated.value.response["Error"]["Message"]
    assert eks.access.groups("demo", PRINCIPAL) == []


def test_a_deleted_cluster_s_access_entries_are_forgotten(eks: Eks) -> None:
    eks.create()
    eks.client.create_access_entry(clusterName="demo", principalArn=PRINCIPAL)
    eks.client.associate_access_policy(
        clusterName="demo", principalArn=PRINCIPAL, policyArn=ADMIN, accessScope={"type": "cluster"}
    )

    eks.client.delete_cluster(name="demo")
    eks.client.list_clusters()

    assert not eks.access.is_admin("demo", PRINCIPAL)
    with pytest.raises(ClientError) as error:
        eks.client.list_access_entries(clusterName="demo")
    assert error.value.response["Error"]["Code"] == "ResourceNotFoundException"


@pytest.mark.parametrize(
    "role_arn",
    ["arn:aws:iam::123:role/eks", "arn:nowhere:iam::123456789012:role/eks", "arn:aws:iam::123456789012:user/eks"],
)
def test_a_role_arn_off_format_or_partition_is_refused_as_moto_refuses_it(eks: Eks, role_arn: str) -> None:
    vpc = {"subnetIds": [], "securityGroupIds": ["sg-1"]}
    with pytest.raises(ClientError) as refused:
        eks.client.create_cluster(name="demo", roleArn=role_arn, resourcesVpcConfig=vpc)
    assert refused.value.response["Error"]["Code"] == "InvalidParameterException"
    assert role_arn in refused.value.response["Error"]["Message"]
    assert eks.client.create_cluster(
        name="demo", roleArn=f"arn:aws-cn:iam::{ACCOUNT}:role/eks", resourcesVpcConfig=vpc
    )["cluster"]["roleArn"].startswith("arn:aws-cn:")
