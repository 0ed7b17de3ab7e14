"""A finished stage says what was done: no SUCCEEDED stage keeps an in-progress ("Waiting for …") message."""

from __future__ import annotations

from controlplane.models.operations import OperationKind
from controlplane.workflows.definitions import WORKFLOWS
from steps import registry
from tests.workflows.confirm import confirmed
from tests.workflows.test_create_hyperpod import FIRST_GROUP

STAGED = "msgstaged"
PIPELINE = "msgpipe"
BODY = {"region": "us-west-2", "hyperpod": FIRST_GROUP, "storage": {}}
GROUP = {
    "instanceGroupName": "extra",
    "instanceType": "ml.g6.4xlarge",
    "instanceCount": 1,
    "availabilityZone": "us-west-2c",
}


def test_in_every_workflow_a_stage_that_notes_a_wait_notes_what_was_done_after_it():
    """The steps table: after a step whose phase says "Waiting …", a later check of the same stage settles it."""
    for kind, workflow in WORKFLOWS.items():
        stages: dict[str | None, list[str]] = {}
        for stage, task in workflow.tasks():
            stages.setdefault(stage, []).append(task.step)
        for stage, steps in stages.items():
            for index, name in enumerate(steps):
                waiting = registry.step(name).waiting or ""
                if waiting.startswith("Waiting"):
                    later = [registry.step(step).settled for step in steps[index + 1 :]]
                    assert any(later), f"{kind.value}: stage {stage} keeps '{waiting}' once it is done"


def test_finished_operations_of_the_stage_workflows_the_pipeline_and_a_delete_carry_no_waiting_message(
    running_sandbox,
):
    def run(response) -> None:
        assert response.status_code == 202, response.text
        operation = running_sandbox.wait_terminal(response.json()["operationId"])
        assert operation["status"] == "SUCCEEDED", operation.get("error")

    running_sandbox.build_cluster(STAGED, storage=True, then=[("POST", f"/clusters/{STAGED}/instance-groups", GROUP)])
    with running_sandbox.client() as api:
        run(api.post("/clusters", json={"clusterTag": PIPELINE, **BODY}))
        run(confirmed(api, "DELETE", f"/clusters/{PIPELINE}"))
        operations = [
            operation
            for tag in (STAGED, PIPELINE)
            for operation in api.get("/operations", params={"clusterTag": tag}).json()["operations"]
        ]
    assert {operation["kind"] for operation in operations} == {
        OperationKind.CREATE_EKS_CLUSTER,
        OperationKind.CONFIGURE_CLUSTER_DEPENDENCIES,
        OperationKind.CREATE_HYPERPOD_CLUSTER,
        OperationKind.CONFIGURE_STORAGE,
        OperationKind.ADD_INSTANCE_GROUP,
        OperationKind.CREATE_CLUSTER,
        OperationKind.DELETE_EKS_CLUSTER,
    }
    messages = {
        (operation["kind"], stage["name"]): stage["message"]
        for operation in operations
        for stage in operation["stages"]
        if stage["status"] == "SUCCEEDED"
    }
    assert not {where: message for where, message in messages.items() if "Waiting" in (message or "")}, messages
    assert messages[(OperationKind.CREATE_EKS_CLUSTER, "eks-control-plane")] == f"eks-cluster-{STAGED} is ACTIVE"
    assert messages[(OperationKind.CREATE_HYPERPOD_CLUSTER, "hyperpod-cluster")] == (
        f"hp-cluster-{STAGED} and its instance group are InService"
    )
    assert messages[(OperationKind.CREATE_HYPERPOD_CLUSTER, "node-agents")] == (
        f"hp-cluster-{STAGED}: agents and device plugins Ready on 1 HyperPod node(s)"
    )
    # Stage 3 leaves the add-ons that run Deployments waiting for nodes; stage 4 ends once they are ACTIVE on them.
    assert messages[(OperationKind.CONFIGURE_CLUSTER_DEPENDENCIES, "addons")] == (
        "Add-ons ACTIVE: eks-pod-identity-agent, aws-mountpoint-s3-csi-driver; "
        "installed, waiting for nodes: cert-manager, metrics-server"
    )
    healthy = "Add-ons ACTIVE: eks-pod-identity-agent, aws-mountpoint-s3-csi-driver, cert-manager, metrics-server"
    assert messages[(OperationKind.CREATE_HYPERPOD_CLUSTER, "addon-health")] == healthy
    assert messages[(OperationKind.CREATE_CLUSTER, "hyperpod")] == healthy
    assert messages[(OperationKind.DELETE_EKS_CLUSTER, "eks-control-plane")] == f"eks-cluster-{PIPELINE} is DELETED"
