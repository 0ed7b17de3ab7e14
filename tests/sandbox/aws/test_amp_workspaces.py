"""Amazon Managed Service for Prometheus workspaces in the sandbox take time, as in AMP: CREATING before ACTIVE,
DELETING before gone (moto makes them ACTIVE, and forgets them, at once)."""

from collections.abc import Iterator

import boto3
import pytest
from moto import mock_aws

from sandbox.aws.amp import AmpWorkspaces


@pytest.fixture
def amp() -> Iterator[tuple[object, AmpWorkspaces]]:
    with mock_aws():
        workspaces = AmpWorkspaces(seconds=3600)
        workspaces.install()
        try:
            yield boto3.client("amp", region_name="us-west-2"), workspaces
        finally:
            workspaces.uninstall()


def test_a_workspace_is_creating_then_active_and_deleting_then_gone(amp) -> None:
    client, workspaces = amp
    created = client.create_workspace(alias="demo", tags={"team": "ml"})
    workspace_id = created["workspaceId"]

    assert created["status"]["statusCode"] == "CREATING"
    assert client.describe_workspace(workspaceId=workspace_id)["workspace"]["status"]["statusCode"] == "CREATING"
    workspaces.seconds = 0  # the simulated wait has passed
    assert client.describe_workspace(workspaceId=workspace_id)["workspace"]["status"]["statusCode"] == "ACTIVE"

    workspaces.seconds = 3600
    client.delete_workspace(workspaceId=workspace_id)
    (listed,) = client.list_workspaces(alias="demo")["workspaces"]
    assert listed["status"]["statusCode"] == "DELETING"
    workspaces.seconds = 0
    assert client.list_workspaces(alias="demo")["workspaces"] == []
