"""Stage 3 end to end: OIDC provider, add-ons and HyperPod dependencies, with a fault and resume at every step."""

from __future__ import annotations

import json

from controlplane.adapters.k8s.manifests import MANIFESTS_DIR
from controlplane.config import cluster_dependencies
from controlplane.core.naming import s3_csi_role_name
from controlplane.models.operations import OperationKind
from tests.conftest import aws_client
from tests.fakes.deployment import DEPLOYMENT
from tests.workflows.confirm import confirmed
from tests.workflows.faults import fail_each_step_in_turn

# The HyperPod Helm chart's objects stage 3 applies (the reviewed table), as (kind, namespace, name).
CHART_OBJECTS = {
    (entry["kind"], entry["namespace"], entry["name"])
    for entry in json.loads((MANIFESTS_DIR / "hyperpod-dependencies" / "chart-objects.json").read_text())["applied"]
}
KINDS = {
    "Namespace": ("", "v1", "namespaces"),
    "ServiceAccount": ("", "v1", "serviceaccounts"),
    "ClusterRole": ("rbac.authorization.k8s.io", "v1", "clusterroles"),
    "ClusterRoleBinding": ("rbac.authorization.k8s.io", "v1", "clusterrolebindings"),
    "DaemonSet": ("apps", "v1", "daemonsets"),
}


NEED_NODES = ["cert-manager", "metrics-server"]


def create_eks(running_sandbox, tag: str, **request: str) -> None:
    with running_sandbox.client() as api:
        accepted = api.post("/clusters/eks", json={"clusterTag": tag, "region": "us-west-2", **request}).json()
    assert running_sandbox.wait_terminal(accepted["operationId"])["status"] == "SUCCEEDED"


def configure(running_sandbox, tag: str):
    with running_sandbox.client() as api:
        return api.post(f"/clusters/{tag}/dependencies")


def dependency_inventory(running_sandbox, tag: str) -> dict[str, object]:
    eks = aws_client("eks", region_name="us-west-2")
    name = f"eks-cluster-{tag}"
    issuer = eks.describe_cluster(name=name)["cluster"]["identity"]["oidc"]["issuer"].removeprefix("https://")
    providers = [
        p["Arn"]
        for p in aws_client("iam").list_open_id_connect_providers()["OpenIDConnectProviderList"]
        if p["Arn"].endswith(issuer)
    ]
    store = running_sandbox.sandbox.emulator.store(name)
    chart_objects = {
        (kind, namespace, object_name)
        for kind, namespace, object_name in CHART_OBJECTS
        if store.get(*KINDS[kind], namespace, object_name) is not None
    }
    return {
        "oidc_providers": len(providers),
        "addons": sorted(eks.list_addons(clusterName=name)["addons"]),
        "s3_csi_role": aws_client("iam").get_role(RoleName=s3_csi_role_name(DEPLOYMENT, tag))["Role"]["RoleName"],
        "chart_objects": chart_objects,
    }


def expected(tag: str) -> dict[str, object]:
    return {
        "oidc_providers": 1,
        "addons": sorted(cluster_dependencies().addons),
        "s3_csi_role": s3_csi_role_name(DEPLOYMENT, tag),
        "chart_objects": CHART_OBJECTS,
    }


def test_dependencies_before_eks_is_finished_are_refused_with_409(running_sandbox):
    with running_sandbox.client() as api:
        accepted = api.post("/clusters/eks", json={"clusterTag": "early", "region": "us-west-2"}).json()
        refused = api.post("/clusters/early/dependencies")
        assert refused.status_code == 409, refused.text
        assert refused.json()["code"] in ("ClusterNotReady", "ClusterBusy")
        assert api.post("/clusters/nosuch/dependencies").status_code == 404
    running_sandbox.wait_terminal(accepted["operationId"])


def test_dependencies_are_installed_and_recorded_as_a_finished_stage(running_sandbox):
    create_eks(running_sandbox, "deps")
    with running_sandbox.client() as api:
        plan = api.post("/clusters/deps/dependencies", params={"dryRun": "true"})
        assert plan.status_code == 200
        assert {a["name"] for a in plan.json()["actions"]} >= set(cluster_dependencies().addons)
    response = configure(running_sandbox, "deps")
    assert response.status_code == 202, response.text
    assert response.json()["stages"] == ["oidc", "addons", "hyperpod-dependencies"]
    operation = running_sandbox.wait_terminal(response.json()["operationId"])
    assert operation["status"] == "SUCCEEDED", operation.get("error")
    assert dependency_inventory(running_sandbox, "deps") == expected("deps")
    addon = aws_client("eks", region_name="us-west-2").describe_addon(
        clusterName="eks-cluster-deps", addonName="aws-mountpoint-s3-csi-driver"
    )["addon"]
    assert addon["serviceAccountRoleArn"].endswith(f"role/{s3_csi_role_name(DEPLOYMENT, 'deps')}")
    assert addon["addonVersion"] == cluster_dependencies().addons["aws-mountpoint-s3-csi-driver"]
    # The role's inline policy is capped by the stack's workload boundary (IAM only lets the step create it so).
    role = aws_client("iam").get_role(RoleName=s3_csi_role_name(DEPLOYMENT, "deps"))["Role"]
    assert role["PermissionsBoundary"]["PermissionsBoundaryArn"].endswith(":policy/instantstart-workload-role-boundary")
    with running_sandbox.client("sandbox-viewer") as api:
        assert api.get("/clusters/deps").json()["stagesDone"] == ["eks", "dependencies"]


def test_on_a_new_cluster_without_nodes_the_addons_that_need_nodes_are_installed_and_wait_for_them(running_sandbox):
    """Regression: EKS reports an add-on that runs a Deployment DEGRADED (InsufficientNumberOfReplicas) while no node
    can run its pods, and a new cluster has none before stage 4; stage 3 failed on it, so no cluster got further."""
    create_eks(running_sandbox, "nonodes")
    operation = running_sandbox.wait_terminal(configure(running_sandbox, "nonodes").json()["operationId"])

    assert operation["status"] == "SUCCEEDED", operation.get("error")
    eks = aws_client("eks", region_name="us-west-2")
    health = {
        addon: eks.describe_addon(clusterName="eks-cluster-nonodes", addonName=addon)["addon"]
        for addon in cluster_dependencies().addons
    }
    assert sorted(name for name, addon in health.items() if addon["status"] == "DEGRADED") == NEED_NODES
    assert {issue["code"] for name in NEED_NODES for issue in health[name]["health"]["issues"]} == {
        "InsufficientNumberOfReplicas"
    }
    (addons,) = [stage for stage in operation["stages"] if stage["name"] == "addons"]
    assert "installed, waiting for nodes: cert-manager, metrics-server" in addons["message"]
    with running_sandbox.client("sandbox-viewer") as api:
        missing = api.get("/clusters/nonodes/status").json()["missing"]
    waiting = "ACTIVE (now installed, waiting for a schedulable node to run its pods)"
    addons_missing = [item for item in missing if item.startswith("add-on")]
    assert addons_missing == [f"add-on {name} {waiting}" for name in NEED_NODES]

    # A feature add-on that runs a Deployment, enabled before any node exists, settles waiting for nodes too.
    with running_sandbox.client() as api:
        accepted = api.patch("/clusters/nonodes/features", json={"fsxCsiDriver": {"enabled": True}})
        assert accepted.status_code == 202, accepted.text
        assert running_sandbox.wait_terminal(accepted.json()["operationId"])["status"] == "SUCCEEDED"
        fsx = api.get("/clusters/nonodes/features").json()["features"]["fsxCsiDriver"]
    assert (fsx["enabled"], fsx["status"]) == (True, "DEGRADED")


def test_on_a_kubernetes_version_a_pin_does_not_support_the_lowest_newer_version_eks_offers_is_installed(
    running_sandbox,
):
    """Regression: EKS offers Kubernetes 1.35 only newer builds of the cert-manager and metrics-server pins, and
    CreateAddon refused the pins, so stage 3 failed on every new 1.35 cluster."""
    create_eks(running_sandbox, "newest", kubernetesVersion="1.35")
    operation = running_sandbox.wait_terminal(configure(running_sandbox, "newest").json()["operationId"])

    assert operation["status"] == "SUCCEEDED", operation.get("error")
    eks = aws_client("eks", region_name="us-west-2")
    versions = {
        addon: eks.describe_addon(clusterName="eks-cluster-newest", addonName=addon)["addon"]["addonVersion"]
        for addon in cluster_dependencies().addons
    }
    assert versions == {
        **cluster_dependencies().addons,
        "cert-manager": "v1.18.2-eksbuild.2",
        "metrics-server": "v0.7.2-eksbuild.4",
    }


def test_every_dependency_step_fails_once_in_turn_and_resume_installs_everything_once(running_sandbox):
    create_eks(running_sandbox, "depfaults")
    fail_each_step_in_turn(
        running_sandbox,
        OperationKind.CONFIGURE_CLUSTER_DEPENDENCIES,
        lambda: configure(running_sandbox, "depfaults").json()["operationId"],
    )
    assert dependency_inventory(running_sandbox, "depfaults") == expected("depfaults")


def test_deleting_the_cluster_removes_the_identities_stage_3_created(running_sandbox):
    create_eks(running_sandbox, "depgone")
    assert running_sandbox.wait_terminal(configure(running_sandbox, "depgone").json()["operationId"])["status"] == (
        "SUCCEEDED"
    )
    with running_sandbox.client() as api:
        accepted = confirmed(api, "DELETE", "/clusters/depgone").json()
    assert running_sandbox.wait_terminal(accepted["operationId"])["status"] == "SUCCEEDED"
    iam = aws_client("iam")
    roles = [r["RoleName"] for r in iam.list_roles()["Roles"]]
    assert s3_csi_role_name(DEPLOYMENT, "depgone") not in roles
    tagged = [
        arn
        for arn in (p["Arn"] for p in iam.list_open_id_connect_providers()["OpenIDConnectProviderList"])
        if {"Key": "instantstart:cluster", "Value": "depgone"}
        in iam.list_open_id_connect_provider_tags(OpenIDConnectProviderArn=arn)["Tags"]
    ]
    assert tagged == []
