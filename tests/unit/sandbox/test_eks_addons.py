"""EKS add-ons and Pod Identity in the sandbox, driven by boto3 (botocore validation) against moto."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError
from moto import mock_aws
from moto.eks import urls as eks_urls

from sandbox.eks_addons import ADDON_CATALOG, KUBERNETES_VERSIONS, TRAINING_OPERATOR, EksAddonsExtension

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
class Env:
    eks: Any
    role_arn: str
    extension: EksAddonsExtension
    changes: list[tuple[str, str, str, dict[str, Any]]] = field(default_factory=list)

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
def account() -> Iterator[Env]:
    """One moto account and one installed extension for the module; creating boto3 clients is the slow part."""
    with mock_aws():
        changes: list[tuple[str, str, str, dict[str, Any]]] = []
        extension = EksAddonsExtension(seconds_to_active=DELAY, on_change=lambda *event: changes.append(event))
        extension.install()
        try:
            iam = boto3.client("iam", region_name=REGION)
            role_arn = iam.create_role(RoleName="hp-role", AssumeRolePolicyDocument=json.dumps(TRUST))["Role"]["Arn"]
            yield Env(
                eks=boto3.client("eks", region_name=REGION), role_arn=role_arn, extension=extension, changes=changes
            )
        finally:
            extension.uninstall()


@pytest.fixture
def env(account: Env) -> Env:
    """A fresh Kubernetes 1.34 cluster with no add-ons or associations."""
    for name in account.eks.list_clusters()["clusters"]:
        account.eks.delete_cluster(name=name)
    account.extension.reset()
    account.changes.clear()
    account.eks.create_cluster(
        name=CLUSTER,
        version="1.34",
        roleArn=account.role_arn,
        resourcesVpcConfig={"subnetIds": ["subnet-1", "subnet-2"], "securityGroupIds": ["sg-1"]},
    )
    return account


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
    assert [c[3]["status"] for c in env.changes if c[2] == "addon"] == ["CREATING", "ACTIVE"]
    assert env.changes[-1][:3] == (REGION, CLUSTER, "addon")


def test_the_addon_active_waiter_passes_once_the_addon_is_active(env: Env) -> None:
    env.eks.create_addon(clusterName=CLUSTER, addonName="metrics-server")

    env.eks.get_waiter("addon_active").wait(
        clusterName=CLUSTER, addonName="metrics-server", WaiterConfig={"Delay": DELAY, "MaxAttempts": 20}
    )


def test_an_addon_without_a_version_gets_the_default_for_the_cluster_kubernetes_version(env: Env) -> None:
    addon = env.eks.create_addon(clusterName=CLUSTER, addonName="eks-pod-identity-agent")["addon"]

    assert addon["addonVersion"] == "v1.3.8-eksbuild.2"
    assert "serviceAccountRoleArn" not in addon


def test_listing_addons_names_every_addon_of_the_cluster_with_pagination(env: Env) -> None:
    for name in ("metrics-server", "cert-manager", "aws-ebs-csi-driver"):
        env.eks.create_addon(clusterName=CLUSTER, addonName=name)

    first = env.eks.list_addons(clusterName=CLUSTER, maxResults=2)
    second = env.eks.list_addons(clusterName=CLUSTER, maxResults=2, nextToken=first["nextToken"])

    assert first["addons"] + second["addons"] == ["aws-ebs-csi-driver", "cert-manager", "metrics-server"]
    assert "nextToken" not in second


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


def test_updating_an_addon_returns_an_update_and_goes_updating_then_active(env: Env) -> None:
    env.install_active("cert-manager")

    update = env.eks.update_addon(
        clusterName=CLUSTER,
        addonName="cert-manager",
        addonVersion="v1.18.2-eksbuild.2",
        resolveConflicts="OVERWRITE",
        configurationValues="{}",
    )["update"]

    assert update["type"] == "AddonUpdate"
    assert update["status"] == "InProgress"
    assert {"type": "AddonVersion", "value": "v1.18.2-eksbuild.2"} in update["params"]
    assert env.eks.describe_addon(clusterName=CLUSTER, addonName="cert-manager")["addon"]["status"] == "UPDATING"
    active = env.wait_addon("cert-manager", "ACTIVE")
    assert active["addonVersion"] == "v1.18.2-eksbuild.2"
    described = env.eks.describe_update(name=CLUSTER, updateId=update["id"], addonName="cert-manager")["update"]
    assert described["status"] == "Successful"


def test_updating_an_addon_that_is_still_creating_is_refused(env: Env) -> None:
    env.eks.create_addon(clusterName=CLUSTER, addonName="cert-manager")

    with pytest.raises(ClientError) as error:
        env.eks.update_addon(clusterName=CLUSTER, addonName="cert-manager", addonVersion="v1.18.2-eksbuild.2")

    assert error_code(error) == "ResourceInUseException"


def test_a_deleted_addon_is_deleting_and_then_gone(env: Env) -> None:
    env.install_active("metrics-server")

    deleting = env.eks.delete_addon(clusterName=CLUSTER, addonName="metrics-server", preserve=True)["addon"]

    assert deleting["status"] == "DELETING"
    env.wait_gone("metrics-server")
    with pytest.raises(ClientError) as error:
        env.eks.describe_addon(clusterName=CLUSTER, addonName="metrics-server")
    assert error_code(error) == "ResourceNotFoundException"
    last = [c[3] for c in env.changes if c[2] == "addon"][-1]
    assert last["status"] == "DELETED" and last["deleted"] and last["preserve"]


def test_the_addon_deleted_waiter_passes_once_the_addon_is_gone(env: Env) -> None:
    env.install_active("metrics-server")
    env.eks.delete_addon(clusterName=CLUSTER, addonName="metrics-server")

    env.eks.get_waiter("addon_deleted").wait(
        clusterName=CLUSTER, addonName="metrics-server", WaiterConfig={"Delay": DELAY, "MaxAttempts": 20}
    )


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


def test_pod_identity_associations_can_be_created_described_listed_updated_and_deleted(env: Env) -> None:
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

    other_role = env.role_arn.replace("hp-role", "other-role")
    updated = env.eks.update_pod_identity_association(
        clusterName=CLUSTER, associationId=association_id, roleArn=other_role
    )["association"]
    assert updated["roleArn"] == other_role

    deleted = env.eks.delete_pod_identity_association(clusterName=CLUSTER, associationId=association_id)
    assert deleted["association"]["associationId"] == association_id
    with pytest.raises(ClientError) as error:
        env.eks.describe_pod_identity_association(clusterName=CLUSTER, associationId=association_id)
    assert error_code(error) == "ResourceNotFoundException"
    kinds = [(c[2], c[3].get("deleted", False)) for c in env.changes]
    assert kinds.count(("pod-identity-association", True)) == 1


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


def test_updating_an_addon_replaces_the_associations_it_owns(env: Env) -> None:
    env.eks.create_addon(
        clusterName=CLUSTER,
        addonName="aws-mountpoint-s3-csi-driver",
        podIdentityAssociations=[{"serviceAccount": "s3-csi-driver-sa", "roleArn": env.role_arn}],
    )
    env.wait_addon("aws-mountpoint-s3-csi-driver", "ACTIVE")

    env.eks.update_addon(clusterName=CLUSTER, addonName="aws-mountpoint-s3-csi-driver", podIdentityAssociations=[])

    assert env.eks.list_pod_identity_associations(clusterName=CLUSTER, namespace="kube-system")["associations"] == []
    addon = env.eks.describe_addon(clusterName=CLUSTER, addonName="aws-mountpoint-s3-csi-driver")["addon"]
    assert addon["podIdentityAssociations"] == []


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


# --- catalog -----------------------------------------------------------------------------------


def test_describe_addon_versions_serves_the_whole_catalog(env: Env) -> None:
    addons = env.eks.describe_addon_versions()["addons"]

    assert {a["addonName"] for a in addons} == set(ADDON_CATALOG)
    for addon in addons:
        for version in addon["addonVersions"]:
            assert re.fullmatch(r"v\d+\.\d+\.\d+-eksbuild\.\d+", version["addonVersion"])
        for kubernetes_version in KUBERNETES_VERSIONS:
            defaults = [
                v
                for v in addon["addonVersions"]
                for c in v["compatibilities"]
                if c["clusterVersion"] == kubernetes_version and c["defaultVersion"]
            ]
            assert len(defaults) == 1, (addon["addonName"], kubernetes_version)


def test_describe_addon_versions_filters_by_name_and_kubernetes_version(env: Env) -> None:
    [addon] = env.eks.describe_addon_versions(addonName="cert-manager", kubernetesVersion="1.35")["addons"]

    versions = [v["addonVersion"] for v in addon["addonVersions"]]
    assert versions == ["v1.18.2-eksbuild.2", "v1.18.2-eksbuild.1"]
    assert all(c["clusterVersion"] == "1.35" for v in addon["addonVersions"] for c in v["compatibilities"])
    assert env.eks.describe_addon_versions(addonName="not-an-addon")["addons"] == []
    storage = env.eks.describe_addon_versions(types=["storage"])["addons"]
    assert {a["addonName"] for a in storage} == {
        "aws-mountpoint-s3-csi-driver",
        "aws-fsx-csi-driver",
        "aws-ebs-csi-driver",
    }


def test_describe_addon_versions_pages_through_the_catalog(env: Env) -> None:
    paginator = env.eks.get_paginator("describe_addon_versions")

    pages = list(paginator.paginate(PaginationConfig={"PageSize": 3}))

    assert len(pages) == (len(ADDON_CATALOG) + 2) // 3
    assert sorted(a["addonName"] for p in pages for a in p["addons"]) == sorted(ADDON_CATALOG)


def test_describe_addon_configuration_names_the_pod_identity_service_accounts(env: Env) -> None:
    configuration = env.eks.describe_addon_configuration(addonName=TRAINING_OPERATOR, addonVersion="v1.2.0-eksbuild.1")

    [account] = configuration["podIdentityConfiguration"]
    assert account["serviceAccount"] == "hp-training-operator-controller-manager"


# --- housekeeping ------------------------------------------------------------------------------


def test_forgetting_a_cluster_drops_its_addons_and_associations(env: Env) -> None:
    env.eks.create_addon(clusterName=CLUSTER, addonName="metrics-server")
    env.eks.create_pod_identity_association(
        clusterName=CLUSTER, namespace="team-a", serviceAccount="trainer", roleArn=env.role_arn
    )

    env.extension.forget_cluster(REGION, CLUSTER)

    assert env.eks.list_addons(clusterName=CLUSTER)["addons"] == []
    assert env.eks.list_pod_identity_associations(clusterName=CLUSTER)["associations"] == []


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

    env.extension.uninstall()

    removed = before - set(eks_urls.url_paths)
    assert removed and all("addons" in p or "pod-identity" in p or "updates" in p for p in removed)
    with pytest.raises(ClientError) as error:
        env.eks.list_addons(clusterName=CLUSTER)
    assert error.value.response["ResponseMetadata"]["HTTPStatusCode"] == 404
    env.extension.install()


def test_a_refused_update_changes_nothing(env: Env) -> None:
    env.eks.create_addon(clusterName=CLUSTER, addonName="cert-manager", addonVersion="v1.18.2-eksbuild.1")
    env.wait_addon("cert-manager", "ACTIVE")

    with pytest.raises(ClientError) as error:
        env.eks.update_addon(
            clusterName=CLUSTER, addonName="cert-manager", addonVersion="v1.18.2-eksbuild.2", configurationValues="["
        )

    assert error_code(error) == "InvalidParameterException"
    addon = env.eks.describe_addon(clusterName=CLUSTER, addonName="cert-manager")["addon"]
    assert (addon["status"], addon["addonVersion"]) == ("ACTIVE", "v1.18.2-eksbuild.1")
