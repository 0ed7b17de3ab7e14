"""The HyperPod adapter against botocore's Stubber (request shapes validated): a cluster whose deletion ends between
its describe and its tags read is gone, not an error (a delete's check once failed on that race)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from botocore.exceptions import ClientError
from botocore.stub import Stubber

from controlplane.adapters.aws import session
from controlplane.adapters.aws.sagemaker import AwsHyperPodGateway

ARN = "arn:aws:sagemaker:us-west-2:123456789012:cluster/abcdef123456"


@pytest.fixture
def sagemaker(monkeypatch) -> Iterator[Stubber]:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    session._client.cache_clear()
    with Stubber(session.client("sagemaker", "us-west-2")) as stubber:
        yield stubber
    session._client.cache_clear()


def test_a_cluster_deleted_between_its_describe_and_its_tags_is_gone(sagemaker: Stubber) -> None:
    sagemaker.add_response(
        "describe_cluster",
        {"ClusterArn": ARN, "ClusterName": "hp-cluster-x", "ClusterStatus": "Deleting", "InstanceGroups": []},
        {"ClusterName": "hp-cluster-x"},
    )
    sagemaker.add_client_error(
        "list_tags", "ResourceNotFound", http_status_code=400, expected_params={"ResourceArn": ARN}
    )

    assert AwsHyperPodGateway("us-west-2").find_cluster("hp-cluster-x") is None
    sagemaker.assert_no_pending_responses()


def test_another_error_reading_the_tags_is_raised(sagemaker: Stubber) -> None:
    sagemaker.add_response(
        "describe_cluster",
        {"ClusterArn": ARN, "ClusterName": "hp-cluster-x", "ClusterStatus": "InService", "InstanceGroups": []},
        {"ClusterName": "hp-cluster-x"},
    )
    sagemaker.add_client_error("list_tags", "AccessDeniedException", http_status_code=400)

    with pytest.raises(ClientError, match="AccessDenied"):
        AwsHyperPodGateway("us-west-2").find_cluster("hp-cluster-x")
