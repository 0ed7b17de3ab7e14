"""EKS add-on and Pod Identity routes, driven by boto3 (botocore validation) against moto."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError, WaiterError
from moto import mock_aws
from moto.eks import urls as eks_urls

from sandbox.aws.eks.addon_routes import AddonRoutes
from sandbox.aws.eks.catalog import TRAINING_OPERATOR
from sandbox.aws.eks.health import can_run_pods

ACCOUNT = "123456789012"
REGION = "us-west-2"
CLUSTER = "hp-eks"
DELAY = 0.05
TRUST = {
    "Version": "2012-10-17",
    "Statement": [
        {
            "Effect": "Allow",
            "Principal": {"Service": ["eks.amazonaws.com", "pods.eks.amazonaws.com"]},
            "Action": ["sts:AssumeRole", "sts:TagSession"],
        }
    ],
}


@dataclass
class Account:
    eks: Any
    role_arn: str


def ready_node(name: str = "node-1", taints: list[dict[str, str]] | None = None) -> dict[str, Any]:
    return {
        "metadata": {"name": name},
        "spec": {"taints": taints or []},
        "status": {"conditions": [{"type": "Ready", "status": "True"}]},
    }


@dataclass
class Env(Account):
    routes: AddonRoutes
    nodes: dict[str, list[dict[str, Any]]]  # each cluster's Node objects (a cluster not listed has none)

    def wait_addon(self, name: str, *statuses: str, cluster: str = CLUSTER) -> dict[str, Any]:
        deadline = time.monotonic() + 3
        while True:
            addon = self.eks.describe_addon(clusterName=cluster, addonName=name)["addon"]
            if addon["status"] in statuses or time.monotonic() > deadline:
                return addon
            time.sleep(DELAY / 2)

    def wait_gone(self, name: str) -> None:
        deadline = time.monotonic() + 3
        while name in self.eks.list_addons(clusterName=CLUSTER)["addons"]:
            assert time.monotonic() < deadline, f"{name} still listed"
            time.sleep(DELAY / 2)

    def install_active(self, *names: str) -> None:
        for name in names:
            self.eks.create_addon(clusterName=CLUSTER, addonName=name)
        for name in names:
            assert self.wait_addon(name, "ACTIVE")["status"] == "ACTIVE"


@pytest.fixture(scope="module")
def account() -> Iterator[Account]:
    """One moto account for the module; creating boto3 clients is the slow part."""
    with mock_aws():
        iam = boto3.client("iam", region_name=REGION)
        role_arn = iam.create_role(RoleName="hp-role", AssumeRolePolicyDocument=json.dumps(TRUST))["Role"]["Arn"]
        yield Account(eks=boto3.client("eks", region_name=REGION), role_arn=role_arn)


@pytest.fixture
def env(account: Account) -> Iterator[Env]:
    """Fresh routes and a fresh Kubernetes 1.34 cluster with one Ready node and no add-ons or associations."""
    for name in account.eks.list_clusters()["clusters"]:
        account.eks.delete_cluster(name=name)
    nodes = {CLUSTER: [ready_node()]}
    routes = AddonRoutes(
        ACCOUNT,
        seconds=DELAY,
        schedulable=lambda name, tolerates: any(can_run_pods(node, tolerates) for node in nodes.get(name, [])),
    )
    routes.install()
    account.eks.create_cluster(
        name=CLUSTER,
        version="1.34",
        roleArn=account.role_arn,
        resourcesVpcConfig={"subnetIds": ["subnet-1", "subnet-2"], "securityGroupIds": ["sg-1"]},
    )
    yield Env(**vars(account), routes=routes, nodes=nodes)
    routes.uninstall()


def error_code(error: pytest.ExceptionInfo[ClientError]) -> str:
    return str(error.value.response["Error"]["Code"])


# --- add-on lifecycle --------------------------------------------------------------------------


def test_a_created_addon_is_creating_and_then_becomes_active(env: Env) -> None:
    created = env.eks.create_addon(
        clusterName=CLUSTER,
        addonName="cert-manager",
        addonVersion="v1.18.2-eksbuild.1",
        tags={"team": "ml"},
        configurationValues=json.dumps({"replicaCount": 2}),
    )["addon"]

    assert created["status"] == "CREATING"
    active = env.wait_addon("cert-manager", "ACTIVE")
    assert active["status"] == "ACTIVE"
    assert active["addonVersion"] == "v1.18.2-eksbuild.1"
    assert active["health"] == {"issues": []}
    assert active["tags"] == {"team": "ml"}
    assert json.loads(active["configurationValues"]) == {"replicaCount": 2}
    assert re.fullmatch(
        rf"arn:aws:eks:{REGION}:\d{{12}}:addon/{CLUSTER}/cert-manager/[0-9a-f-]{{36}}", active["addonArn"]
    )
    assert active["createdAt"] <= active["modifiedAt"]


def test_the_addon_active_waiter_passes_once_the_addon_is_active(env: Env) -> None:
    env.eks.create_addon(clusterName=CLUSTER, addonName="metrics-server")

    env.eks.get_waiter("addon_active").wait(
        clusterName=CLUSTER, addonName="metrics-server", WaiterConfig={"Delay": DELAY, "MaxAttempts": 20}
    )


def test_an_addon_without_a_version_gets_the_default_for_the_cluster_kubernetes_version(env: Env) -> None:
    addon = env.eks.create_addon(clusterName=CLUSTER, addonName="eks-pod-identity-agent")["addon"]

    assert addon["addonVersion"] == "v1.3.8-eksbuild.2"
    assert "serviceAccountRoleArn" not in addon


def test_listing_addons_names_every_addon_of_the_cluster_in_order(env: Env) -> None:
    for name in ("metrics-server", "cert-manager", "aws-ebs-csi-driver"):
        env.eks.create_addon(clusterName=CLUSTER, addonName=name)

    listed = env.eks.list_addons(clusterName=CLUSTER)

    assert listed["addons"] == ["aws-ebs-csi-driver", "cert-manager", "metrics-server"]
    assert "nextToken" not in listed


def test_creating_an_addon_twice_is_a_resource_in_use_conflict(env: Env) -> None:
    env.eks.create_addon(clusterName=CLUSTER, addonName="metrics-server")

    with pytest.raises(ClientError) as error:
        env.eks.create_addon(clusterName=CLUSTER, addonName="metrics-server")

    assert error_code(error) == "ResourceInUseException"
    assert error.value.response["ResponseMetadata"]["HTTPStatusCode"] == 409


def test_a_retry_with_the_same_client_request_token_returns_the_same_addon(env: Env) -> None:
    first = env.eks.create_addon(clusterName=CLUSTER, addonName="metrics-server", clientRequestToken="t-1")
    again = env.eks.create_addon(clusterName=CLUSTER, addonName="metrics-server", clientRequestToken="t-1")

    assert again["addon"]["addonArn"] == first["addon"]["addonArn"]


def test_a_deleted_addon_is_deleting_and_then_gone(env: Env) -> None:
    env.install_active("metrics-server")

    deleting = env.eks.delete_addon(clusterName=CLUSTER, addonName="metrics-server")["addon"]

    assert deleting["status"] == "DELETING"
    env.wait_gone("metrics-server")
    with pytest.raises(ClientError) as error:
        env.eks.describe_addon(clusterName=CLUSTER, addonName="metrics-server")
    assert error_code(error) == "ResourceNotFoundException"


def test_the_addon_deleted_waiter_passes_once_the_addon_is_gone(env: Env) -> None:
    env.install_active("metrics-server")
    env.eks.delete_addon(clusterName=CLUSTER, addonName="metrics-server")

    env.eks.get_waiter("addon_deleted").wait(
        clusterName=CLUSTER, addonName="metrics-server", WaiterConfig={"Delay": DELAY, "MaxAttempts": 20}
    )


# --- health: add-ons whose Deployments need nodes --------------------------------------------------


def test_an_addon_running_a_deployment_is_degraded_for_want_of_replicas_on_a_cluster_without_nodes(env: Env) -> None:
    env.nodes[CLUSTER] = []
    env.eks.create_addon(clusterName=CLUSTER, addonName="cert-manager")

    degraded = env.wait_addon("cert-manager", "DEGRADED")

    assert degraded["status"] == "DEGRADED"
    assert degraded["health"]["issues"] == [
        {
            "code": "InsufficientNumberOfReplicas",
            "message": "The add-on is unhealthy because it doesn't have the desired number of replicas.",
        }
    ]
    with pytest.raises(WaiterError):
        env.eks.get_waiter("addon_active").wait(
            clusterName=CLUSTER, addonName="cert-manager", WaiterConfig={"Delay": DELAY, "MaxAttempts": 2}
        )


def test_a_daemonset_only_addon_is_active_on_a_cluster_without_nodes(env: Env) -> None:
    env.nodes[CLUSTER] = []
    env.eks.create_addon(clusterName=CLUSTER, addonName="eks-pod-identity-agent")

    assert env.wait_addon("eks-pod-identity-agent", "ACTIVE")["status"] == "ACTIVE"


def test_a_degraded_addon_becomes_active_once_a_node_joins_and_degraded_again_when_it_goes(env: Env) -> None:
    env.nodes[CLUSTER] = []
    env.eks.create_addon(clusterName=CLUSTER, addonName="metrics-server")
    assert env.wait_addon("metrics-server", "DEGRADED")["status"] == "DEGRADED"

    env.nodes[CLUSTER] = [ready_node()]
    active = env.wait_addon("metrics-server", "ACTIVE")
    assert (active["status"], active["health"]["issues"]) == ("ACTIVE", [])

    env.nodes[CLUSTER] = []
    assert env.wait_addon("metrics-server", "DEGRADED")["status"] == "DEGRADED"


@pytest.mark.parametrize(
    ("node", "runs"),
    [
        (ready_node(), True),
        ({**ready_node(), "status": {"conditions": [{"type": "Ready", "status": "False"}]}}, False),
        ({**ready_node(), "spec": {"unschedulable": True}}, False),
        (ready_node(taints=[{"key": "sagemaker.amazonaws.com/node-health-status", "effect": "NoSchedule"}]), False),
        (ready_node(taints=[{"key": "dedicated", "effect": "NoExecute"}]), False),
        (ready_node(taints=[{"key": "dedicated", "effect": "PreferNoSchedule"}]), True),
    ],
    ids=["ready", "not-ready", "cordoned", "tainted-no-schedule", "tainted-no-execute", "preferred-only"],
)
def test_only_a_ready_uncordoned_node_without_an_untolerated_taint_runs_the_addons_pods(
    env: Env, node: dict[str, Any], runs: bool
) -> None:
    env.nodes[CLUSTER] = [node]
    env.eks.create_addon(clusterName=CLUSTER, addonName="cert-manager")

    settled = env.wait_addon("cert-manager", "ACTIVE", "DEGRADED")

    assert settled["status"] == ("ACTIVE" if runs else "DEGRADED")


def test_coredns_tolerates_the_critical_addons_only_taint_that_cert_manager_does_not(env: Env) -> None:
    env.nodes[CLUSTER] = [ready_node(taints=[{"key": "CriticalAddonsOnly", "effect": "NoSchedule"}])]
    for name in ("coredns", "cert-manager"):
        env.eks.create_addon(clusterName=CLUSTER, addonName=name)

    assert env.wait_addon("coredns", "ACTIVE")["status"] == "ACTIVE"
    assert env.wait_addon("cert-manager", "DEGRADED")["status"] == "DEGRADED"


# --- versions ----------------------------------------------------------------------------------


def test_addon_versions_list_what_a_kubernetes_version_supports_newest_first(env: Env) -> None:
    pages = env.eks.get_paginator("describe_addon_versions").paginate(
        addonName="cert-manager", kubernetesVersion="1.35"
    )
    (info,) = [addon for page in pages for addon in page["addons"]]

    versions = [version["addonVersion"] for version in info["addonVersions"]]
    assert versions == ["v1.18.2-eksbuild.2"]
    (compatibility,) = [c for c in info["addonVersions"][0]["compatibilities"] if c["clusterVersion"] == "1.35"]
    assert compatibility["defaultVersion"] is True
    older = env.eks.describe_addon_versions(addonName="cert-manager", kubernetesVersion="1.34")["addons"][0]
    assert [version["addonVersion"] for version in older["addonVersions"]] == [
        "v1.18.2-eksbuild.2",
        "v1.18.2-eksbuild.1",
        "v1.17.2-eksbuild.1",
    ]


def test_addon_versions_page_through_every_addon_and_know_no_unknown_addon(env: Env) -> None:
    first = env.eks.describe_addon_versions(maxResults=2)
    rest = env.eks.describe_addon_versions(maxResults=100, nextToken=first["nextToken"])

    names = [addon["addonName"] for addon in first["addons"] + rest["addons"]]
    assert len(first["addons"]) == 2 and "nextToken" not in rest
    assert {"cert-manager", "metrics-server", "eks-pod-identity-agent", TRAINING_OPERATOR} <= set(names)
    assert env.eks.describe_addon_versions(addonName="not-an-addon")["addons"] == []


# --- validation --------------------------------------------------------------------------------


def test_an_addon_version_missing_from_the_catalog_is_an_invalid_parameter(env: Env) -> None:
    with pytest.raises(ClientError) as error:
        env.eks.create_addon(clusterName=CLUSTER, addonName="cert-manager", addonVersion="v9.9.9-eksbuild.1")

    assert error_code(error) == "InvalidParameterException"


def test_an_addon_version_not_compatible_with_the_cluster_kubernetes_version_is_an_invalid_parameter(env: Env) -> None:
    env.eks.create_cluster(
        name="newest",
        version="1.35",
        roleArn=env.role_arn,
        resourcesVpcConfig={"subnetIds": ["subnet-1"], "securityGroupIds": ["sg-1"]},
    )

    with pytest.raises(ClientError) as error:
        env.eks.create_addon(clusterName="newest", addonName="cert-manager", addonVersion="v1.17.2-eksbuild.1")

    assert error_code(error) == "InvalidParameterException"


def test_an_unknown_addon_name_is_an_invalid_parameter(env: Env) -> None:
    with pytest.raises(ClientError) as error:
        env.eks.create_addon(clusterName=CLUSTER, addonName="not-an-addon")

    assert error_code(error) == "InvalidParameterException"


def test_configuration_values_that_are_not_json_are_an_invalid_parameter(env: Env) -> None:
    with pytest.raises(ClientError) as error:
        env.eks.create_addon(clusterName=CLUSTER, addonName="metrics-server", configurationValues="replicas: [")

    assert error_code(error) == "InvalidParameterException"
    assert env.eks.list_addons(clusterName=CLUSTER)["addons"] == []


@pytest.mark.parametrize(
    "call",
    [
        lambda eks: eks.create_addon(clusterName="nope", addonName="metrics-server"),
        lambda eks: eks.describe_addon(clusterName="nope", addonName="metrics-server"),
        lambda eks: eks.list_addons(clusterName="nope"),
        lambda eks: eks.list_pod_identity_associations(clusterName="nope"),
    ],
)
def test_an_unknown_cluster_is_a_404_resource_not_found(env: Env, call: Any) -> None:
    with pytest.raises(ClientError) as error:
        call(env.eks)

    assert error_code(error) == "ResourceNotFoundException"
    assert error.value.response["ResponseMetadata"]["HTTPStatusCode"] == 404


def test_an_unknown_addon_is_resource_not_found(env: Env) -> None:
    with pytest.raises(ClientError) as error:
        env.eks.delete_addon(clusterName=CLUSTER, addonName="cert-manager")

    assert error_code(error) == "ResourceNotFoundException"


# --- dependencies ------------------------------------------------------------------------------


def test_the_training_operator_fails_to_create_without_cert_manager_and_the_pod_identity_agent(env: Env) -> None:
    env.eks.create_addon(clusterName=CLUSTER, addonName=TRAINING_OPERATOR)

    failed = env.wait_addon(TRAINING_OPERATOR, "CREATE_FAILED")

    assert failed["status"] == "CREATE_FAILED"
    [issue] = failed["health"]["issues"]
    assert issue["code"] == "ConfigurationConflict"
    assert "requires cert-manager" in issue["message"]
    assert set(issue["resourceIds"]) == {"cert-manager", "eks-pod-identity-agent"}


def test_the_training_operator_fails_while_its_dependencies_are_still_creating(env: Env) -> None:
    env.eks.create_addon(clusterName=CLUSTER, addonName="cert-manager")
    env.eks.create_addon(clusterName=CLUSTER, addonName="eks-pod-identity-agent")
    env.eks.create_addon(clusterName=CLUSTER, addonName=TRAINING_OPERATOR)

    assert env.wait_addon(TRAINING_OPERATOR, "CREATE_FAILED", "ACTIVE")["status"] == "CREATE_FAILED"
    assert env.wait_addon("cert-manager", "ACTIVE")["status"] == "ACTIVE"


def test_the_training_operator_becomes_active_when_cert_manager_and_the_pod_identity_agent_are_active(
    env: Env,
) -> None:
    env.install_active("cert-manager", "eks-pod-identity-agent")

    env.eks.create_addon(
        clusterName=CLUSTER,
        addonName=TRAINING_OPERATOR,
        podIdentityAssociations=[
            {"serviceAccount": "hp-training-operator-controller-manager", "roleArn": env.role_arn}
        ],
    )

    active = env.wait_addon(TRAINING_OPERATOR, "ACTIVE", "CREATE_FAILED")
    assert active["status"] == "ACTIVE"
    assert active["health"] == {"issues": []}


INFERENCE_CONFIGURATION = '{"executionRoleArn": "arn:aws:iam::123456789012:role/r", "tlsCertificateS3Bucket": "b"}'


def test_the_inference_operator_needs_its_storage_metrics_and_cert_manager_addons(env: Env) -> None:
    env.install_active("cert-manager", "metrics-server")
    env.eks.create_addon(
        clusterName=CLUSTER,
        addonName="amazon-sagemaker-hyperpod-inference",
        configurationValues=INFERENCE_CONFIGURATION,
    )

    failed = env.wait_addon("amazon-sagemaker-hyperpod-inference", "CREATE_FAILED")

    assert set(failed["health"]["issues"][0]["resourceIds"]) == {"aws-mountpoint-s3-csi-driver", "aws-fsx-csi-driver"}


def test_the_inference_operator_is_refused_without_its_execution_role_and_tls_bucket(env: Env) -> None:
    with pytest.raises(ClientError) as refused:
        env.eks.create_addon(
            clusterName=CLUSTER,
            addonName="amazon-sagemaker-hyperpod-inference",
            configurationValues='{"executionRoleArn": "arn:aws:iam::123456789012:role/r"}',
        )

    assert refused.value.response["Error"]["Code"] == "InvalidParameterException"
    assert "tlsCertificateS3Bucket" in refused.value.response["Error"]["Message"]
    assert env.eks.list_addons(clusterName=CLUSTER)["addons"] == []


# --- pod identity associations -----------------------------------------------------------------


def test_pod_identity_associations_can_be_created_described_listed_and_deleted(env: Env) -> None:
    created = env.eks.create_pod_identity_association(
        clusterName=CLUSTER, namespace="team-a", serviceAccount="trainer", roleArn=env.role_arn, tags={"k": "v"}
    )["association"]

    association_id = created["associationId"]
    assert re.fullmatch(r"a-[a-z0-9]{17}", association_id)
    assert created["associationArn"].endswith(f":podidentityassociation/{CLUSTER}/{association_id}")
    assert (created["clusterName"], created["namespace"], created["serviceAccount"]) == (CLUSTER, "team-a", "trainer")
    assert created["tags"] == {"k": "v"} and "ownerArn" not in created
    described = env.eks.describe_pod_identity_association(clusterName=CLUSTER, associationId=association_id)
    assert described["association"]["roleArn"] == env.role_arn

    env.eks.create_pod_identity_association(
        clusterName=CLUSTER, namespace="team-b", serviceAccount="trainer", roleArn=env.role_arn
    )
    by_namespace = env.eks.list_pod_identity_associations(clusterName=CLUSTER, namespace="team-a")["associations"]
    by_account = env.eks.list_pod_identity_associations(clusterName=CLUSTER, serviceAccount="trainer")["associations"]
    assert [a["associationId"] for a in by_namespace] == [association_id]
    assert len(by_account) == 2

    deleted = env.eks.delete_pod_identity_association(clusterName=CLUSTER, associationId=association_id)
    assert deleted["association"]["associationId"] == association_id
    with pytest.raises(ClientError) as error:
        env.eks.describe_pod_identity_association(clusterName=CLUSTER, associationId=association_id)
    assert error_code(error) == "ResourceNotFoundException"


def test_a_second_association_for_the_same_namespace_and_service_account_is_a_conflict(env: Env) -> None:
    env.eks.create_pod_identity_association(
        clusterName=CLUSTER, namespace="team-a", serviceAccount="trainer", roleArn=env.role_arn
    )

    with pytest.raises(ClientError) as error:
        env.eks.create_pod_identity_association(
            clusterName=CLUSTER, namespace="team-a", serviceAccount="trainer", roleArn=env.role_arn
        )

    assert error_code(error) == "ResourceInUseException"


def test_an_addon_creates_its_associations_in_its_namespace_and_removes_them_when_deleted(env: Env) -> None:
    env.install_active("cert-manager", "eks-pod-identity-agent")
    addon = env.eks.create_addon(
        clusterName=CLUSTER,
        addonName=TRAINING_OPERATOR,
        podIdentityAssociations=[
            {"serviceAccount": "hp-training-operator-controller-manager", "roleArn": env.role_arn}
        ],
    )["addon"]

    [summary] = env.eks.list_pod_identity_associations(clusterName=CLUSTER, namespace="aws-hyperpod")["associations"]
    assert summary["serviceAccount"] == "hp-training-operator-controller-manager"
    assert summary["ownerArn"] == addon["addonArn"]
    assert addon["podIdentityAssociations"] == [summary["associationArn"]]
    with pytest.raises(ClientError) as error:
        env.eks.delete_pod_identity_association(clusterName=CLUSTER, associationId=summary["associationId"])
    assert error_code(error) == "InvalidRequestException"

    env.wait_addon(TRAINING_OPERATOR, "ACTIVE")
    env.eks.delete_addon(clusterName=CLUSTER, addonName=TRAINING_OPERATOR)
    env.wait_gone(TRAINING_OPERATOR)

    assert env.eks.list_pod_identity_associations(clusterName=CLUSTER, namespace="aws-hyperpod")["associations"] == []


def test_an_addon_association_that_collides_with_an_existing_one_is_refused(env: Env) -> None:
    env.eks.create_pod_identity_association(
        clusterName=CLUSTER, namespace="kube-system", serviceAccount="fsx-csi-controller-sa", roleArn=env.role_arn
    )

    with pytest.raises(ClientError) as error:
        env.eks.create_addon(
            clusterName=CLUSTER,
            addonName="aws-fsx-csi-driver",
            podIdentityAssociations=[{"serviceAccount": "fsx-csi-controller-sa", "roleArn": env.role_arn}],
        )

    assert error_code(error) == "ResourceInUseException"
    assert env.eks.list_addons(clusterName=CLUSTER)["addons"] == []


# --- housekeeping ------------------------------------------------------------------------------


def test_a_cluster_deleted_and_created_again_starts_without_addons(env: Env) -> None:
    env.eks.create_addon(clusterName=CLUSTER, addonName="metrics-server")
    env.eks.delete_cluster(name=CLUSTER)
    env.eks.create_cluster(
        name=CLUSTER,
        version="1.34",
        roleArn=env.role_arn,
        resourcesVpcConfig={"subnetIds": ["subnet-1"], "securityGroupIds": ["sg-1"]},
    )

    assert env.eks.list_addons(clusterName=CLUSTER)["addons"] == []


def test_uninstall_removes_only_the_routes_it_added(env: Env) -> None:
    before = set(eks_urls.url_paths)

    env.routes.uninstall()

    removed = before - set(eks_urls.url_paths)
    assert removed and all("addons" in p or "pod-identity" in p for p in removed)
    with pytest.raises(ClientError) as error:
        env.eks.list_addons(clusterName=CLUSTER)
    assert error.value.response["ResponseMetadata"]["HTTPStatusCode"] == 404
    env.routes.install()
