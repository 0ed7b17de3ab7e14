"""Advanced features end to end: explicit diff, dependencies, closed both ways, faults then disable."""

from __future__ import annotations

import boto3
import pytest

from controlplane.core.features import CATALOG
from controlplane.models.operations import OperationKind
from controlplane.workflows import definition_text, placeholders, step_module

TAG = "feat"
REGION = "us-west-2"
ENSURE_STEPS = sorted(
    step_module(p) for p in placeholders(definition_text(OperationKind.UPDATE_CLUSTER_FEATURES)) if "Ensure" in p
)
# Steps that settle in their first round (server-side apply), so no later round exists to fail.
SINGLE_ROUND = {"ensure_kuberay_operator"}
FAULTS = [(step, 0) for step in ENSURE_STEPS] + [(step, 1) for step in ENSURE_STEPS if step not in SINGLE_ROUND]
# Features the stage-3 baseline leaves enabled (the dependencies stage installs cert-manager).
BASELINE_ENABLED = {"certManager"}
READ_PREFIXES = ("Describe", "List", "Get")
# The control plane's own bookkeeping (operation records, audit, idempotency) is not a change to the cluster.
BOOKKEEPING_SERVICES = ("dynamodb.", "sts.")


@pytest.fixture(scope="module")
def cluster(running_sandbox) -> str:
    group = {"availabilityZone": "us-west-2c", "instanceType": "ml.g6.4xlarge", "instanceCount": 1}
    with running_sandbox.client() as api:
        for path, body in (
            ("/clusters/eks", {"clusterTag": TAG, "region": REGION}),
            (f"/clusters/{TAG}/dependencies", None),
            (f"/clusters/{TAG}/hyperpod", group),
        ):
            accepted = api.post(path, json=body).json()
            assert running_sandbox.wait_terminal(accepted["operationId"])["status"] == "SUCCEEDED", path
    return TAG


def inventory(running_sandbox, tag: str = TAG) -> dict[str, object]:
    """Everything a feature may create, in the account and in the cluster."""
    iam = boto3.client("iam")
    eks = boto3.client("eks", region_name=REGION)
    name = f"eks-cluster-{tag}"
    store = running_sandbox.sandbox.emulator.store(name)
    prefix = f"instantstart-{tag}-"
    cluster = boto3.client("sagemaker", region_name=REGION).describe_cluster(ClusterName=f"hp-cluster-{tag}")
    associations = eks.list_pod_identity_associations(clusterName=name)["associations"]
    return {
        "roles": sorted(r["RoleName"] for r in iam.list_roles()["Roles"] if r["RoleName"].startswith(prefix)),
        "policies": sorted(
            p["PolicyName"] for p in iam.list_policies(Scope="Local")["Policies"] if p["PolicyName"].startswith(prefix)
        ),
        "oidc_providers": sorted(p["Arn"] for p in iam.list_open_id_connect_providers()["OpenIDConnectProviderList"]),
        "addons": sorted(eks.list_addons(clusterName=name)["addons"]),
        "pod_identity_associations": sorted(f"{a['namespace']}/{a['serviceAccount']}" for a in associations),
        "service_accounts": sorted(
            f"{a['metadata']['namespace']}/{a['metadata']['name']}" for a in store.list("", "v1", "serviceaccounts")
        ),
        "custom_resource_definitions": sorted(
            c["metadata"]["name"] for c in store.list("apiextensions.k8s.io", "v1", "customresourcedefinitions")
        ),
        "buckets": sorted(b["Name"] for b in boto3.client("s3").list_buckets()["Buckets"]),
        "tiered_storage_mode": (cluster.get("TieredStorageConfig") or {}).get("Mode", "Disable"),
    }


def patch(running_sandbox, body: dict, expect: int = 202) -> dict:
    with running_sandbox.client() as api:
        response = api.patch(f"/clusters/{TAG}/features", json=body)
    assert response.status_code == expect, response.text
    return response.json()


def change(running_sandbox, body: dict) -> dict:
    """PATCH and wait for the operation it starts to succeed."""
    result = patch(running_sandbox, body)
    operation = running_sandbox.wait_terminal(result["operationId"])
    assert operation["status"] == "SUCCEEDED", operation.get("error")
    return result


def live(running_sandbox) -> dict[str, dict]:
    with running_sandbox.client("sandbox-viewer") as api:
        response = api.get(f"/clusters/{TAG}/features")
    assert response.status_code == 200, response.text
    return response.json()["features"]


def mutating_calls(running_sandbox, mark: int) -> list[str]:
    return [
        call
        for call in running_sandbox.sandbox.aws_calls.since(mark)
        if not call.startswith(BOOKKEEPING_SERVICES) and not call.split(".", 1)[-1].startswith(READ_PREFIXES)
    ]


def test_the_panel_reads_every_feature_live(running_sandbox, cluster):
    features = live(running_sandbox)
    assert set(features) == {feature.value for feature in CATALOG}
    assert {name for name, state in features.items() if state["enabled"]} == BASELINE_ENABLED
    assert features["trainingOperator"]["requires"] == ["certManager"]
    assert features["observability"]["available"] is True
    assert features["tieredStorage"]["state"] == "disabled"


def test_enabling_tiered_storage_enables_only_that_and_a_repeat_changes_nothing(running_sandbox, cluster):
    before = inventory(running_sandbox)
    first = running_sandbox.sandbox.aws_calls.mark()
    result = change(running_sandbox, {"tieredStorage": {"enabled": True}})
    # The call log sees the chain being built, so an empty log below means nothing was changed.
    assert {"iam.CreatePolicy", "iam.CreateRole", "sagemaker.UpdateCluster"} <= set(
        mutating_calls(running_sandbox, first)
    )
    assert result["features"] == {"tieredStorage": {"outcome": "enabled", "stage": "tieredStorage"}}
    assert result["stages"] == ["tieredStorage"]
    features = live(running_sandbox)
    assert {name for name, state in features.items() if state["enabled"]} == BASELINE_ENABLED | {"tieredStorage"}
    assert features["tieredStorage"]["settings"]["configMode"] == "default"
    account = running_sandbox.sandbox.emulator.store(f"eks-cluster-{TAG}").get(
        "", "v1", "serviceaccounts", "default", "tiered-storage-sa"
    )
    assert account["metadata"]["annotations"]["eks.amazonaws.com/role-arn"].endswith(f"/instantstart-{TAG}-tiered-ckpt")
    role = boto3.client("iam").get_role(RoleName=f"instantstart-{TAG}-tiered-ckpt")["Role"]
    assert role["PermissionsBoundary"]["PermissionsBoundaryArn"].endswith(":policy/instantstart-workload-role-boundary")

    writes: list[str] = []
    running_sandbox.sandbox.emulator.add_listener(lambda cluster, event, obj: writes.append(f"{event} {obj['kind']}"))
    mark = running_sandbox.sandbox.aws_calls.mark()
    repeat = patch(running_sandbox, {"tieredStorage": {"enabled": True}}, expect=200)
    assert repeat == {
        "features": {"tieredStorage": {"outcome": "unchanged"}},
        "dryRun": False,
        "actions": [],
        "stages": [],
        "statusTool": "operation_wait",
    }
    assert mutating_calls(running_sandbox, mark) == []
    assert writes == []

    change(running_sandbox, {"tieredStorage": {"enabled": False}})
    assert inventory(running_sandbox) == before


def test_a_custom_percentage_is_an_update_and_omitting_it_keeps_it(running_sandbox, cluster):
    before = inventory(running_sandbox)
    change(running_sandbox, {"tieredStorage": {"enabled": True, "configMode": "custom", "percentage": 40}})
    updated = change(running_sandbox, {"tieredStorage": {"enabled": True, "configMode": "custom", "percentage": 60}})
    assert updated["features"]["tieredStorage"]["outcome"] == "updated"
    kept = patch(running_sandbox, {"tieredStorage": {"enabled": True}}, expect=200)
    assert kept["features"]["tieredStorage"]["outcome"] == "unchanged"
    config = boto3.client("sagemaker", region_name=REGION).describe_cluster(ClusterName=f"hp-cluster-{TAG}")
    assert config["TieredStorageConfig"] == {"Mode": "Enable", "InstanceMemoryAllocationPercentage": 60}
    change(running_sandbox, {"tieredStorage": {"enabled": False}})
    assert inventory(running_sandbox) == before


def test_a_patch_that_omits_a_feature_never_touches_it(running_sandbox, cluster):
    change(running_sandbox, {"trainingOperator": {"enabled": True}})
    result = change(running_sandbox, {"tieredStorage": {"enabled": True}})
    assert set(result["features"]) == {"tieredStorage"}
    assert live(running_sandbox)["trainingOperator"]["enabled"] is True
    change(running_sandbox, {"tieredStorage": {"enabled": False}, "trainingOperator": {"enabled": False}})


def test_the_seed_request_enables_tiered_storage_and_the_training_operator_in_one_operation(running_sandbox, cluster):
    before = inventory(running_sandbox)
    result = change(
        running_sandbox,
        {"tieredStorage": {"enabled": True, "configMode": "default"}, "trainingOperator": {"enabled": True}},
    )
    assert result["stages"] == ["tieredStorage", "trainingOperator"]
    assert {name: outcome["outcome"] for name, outcome in result["features"].items()} == {
        "tieredStorage": "enabled",
        "trainingOperator": "enabled",
    }
    features = live(running_sandbox)
    assert features["tieredStorage"]["enabled"] and features["trainingOperator"]["enabled"]
    assert "amazon-sagemaker-hyperpod-training-operator" in inventory(running_sandbox)["addons"]
    change(running_sandbox, {"tieredStorage": {"enabled": False}, "trainingOperator": {"enabled": False}})
    assert inventory(running_sandbox) == before


def test_disabling_cert_manager_while_the_training_operator_needs_it_is_refused_naming_it(running_sandbox, cluster):
    change(running_sandbox, {"trainingOperator": {"enabled": True}})
    before = inventory(running_sandbox)
    refused = patch(running_sandbox, {"certManager": {"enabled": False}}, expect=409)
    assert refused["code"] == "FeatureDependency"
    assert "trainingOperator" in refused["message"]
    assert inventory(running_sandbox) == before
    # Both in one request: the dependent goes first, then its dependency.
    both = change(running_sandbox, {"certManager": {"enabled": False}, "trainingOperator": {"enabled": False}})
    assert both["stages"] == ["trainingOperator", "certManager"]
    missing = patch(running_sandbox, {"trainingOperator": {"enabled": True}}, expect=409)
    assert "certManager" in missing["message"] and '"certManager": {"enabled": true}' in missing["message"]
    restored = change(running_sandbox, {"certManager": {"enabled": True}})
    assert restored["features"] == {"certManager": {"outcome": "enabled", "stage": "certManager"}}


@pytest.mark.parametrize("feature", sorted(feature.value for feature in CATALOG))
def test_enable_then_disable_leaves_the_account_and_the_cluster_as_before(running_sandbox, cluster, feature):
    baseline = feature in BASELINE_ENABLED
    if baseline:
        change(running_sandbox, {feature: {"enabled": False}})
    before = inventory(running_sandbox)
    change(running_sandbox, {feature: {"enabled": True}})
    assert live(running_sandbox)[feature]["enabled"] is True
    assert inventory(running_sandbox) != before
    change(running_sandbox, {feature: {"enabled": False}})
    assert inventory(running_sandbox) == before
    assert live(running_sandbox)[feature]["state"] == "disabled"
    if baseline:
        change(running_sandbox, {feature: {"enabled": True}})


@pytest.mark.parametrize(("step", "after"), FAULTS)
def test_a_fault_in_any_enable_step_then_disable_leaves_nothing(running_sandbox, cluster, step, after):
    change(running_sandbox, {"certManager": {"enabled": False}})
    before = inventory(running_sandbox)
    everything = {feature.value: {"enabled": True} for feature in CATALOG}
    # after=0: the step fails before it acts (earlier features are built); after=1: its first round does
    # its work and the next round fails, leaving the feature half-settled.
    running_sandbox.sandbox.add_fault(step, 1, after=after)
    started = patch(running_sandbox, everything)
    failed = running_sandbox.wait_terminal(started["operationId"])
    assert failed["status"] == "FAILED"
    running_sandbox.sandbox.faults.clear()
    with running_sandbox.client() as api:
        response = api.patch(f"/clusters/{TAG}/features", json={f.value: {"enabled": False} for f in CATALOG})
    disabled = response.json()
    built = [name for name, outcome in disabled["features"].items() if outcome["outcome"] == "disabled"]
    # Only what the failed run built is removed; with nothing built there is no operation at all.
    assert response.status_code == (202 if built else 200), response.text
    if built:
        assert running_sandbox.wait_terminal(disabled["operationId"])["status"] == "SUCCEEDED"
    assert inventory(running_sandbox) == before
    assert all(state["state"] == "disabled" for state in live(running_sandbox).values())
    change(running_sandbox, {"certManager": {"enabled": True}})


def test_a_failed_enable_resumes_to_the_same_end_state(running_sandbox, cluster):
    before = inventory(running_sandbox)
    running_sandbox.sandbox.add_fault("ensure_tiered_storage", 1, after=1)
    started = patch(running_sandbox, {"tieredStorage": {"enabled": True}})
    assert running_sandbox.wait_terminal(started["operationId"])["status"] == "FAILED"
    assert live(running_sandbox)["tieredStorage"]["state"] in ("partial", "enabled")
    with running_sandbox.client() as api:
        assert api.post(f"/operations/{started['operationId']}/resume").status_code == 202
    assert running_sandbox.wait_terminal(started["operationId"])["status"] == "SUCCEEDED"
    assert live(running_sandbox)["tieredStorage"]["enabled"] is True
    change(running_sandbox, {"tieredStorage": {"enabled": False}})
    assert inventory(running_sandbox) == before


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ({}, "name at least one feature"),
        ({"tieredStorage": {"enabled": True, "configMode": "custom"}}, "configMode custom needs percentage"),
        ({"tieredStorage": {"enabled": True, "configMode": "custom", "percentage": 10}}, "percentage"),
        ({"tieredStorage": {"enabled": False, "percentage": 50}}, "apply only with enabled true"),
        ({"notAFeature": {"enabled": True}}, "notAFeature"),
        ({"certManager": {"enabled": "maybe"}}, "enabled"),
    ],
)
def test_invalid_requests_are_refused_with_a_message_and_change_nothing(running_sandbox, cluster, body, fragment):
    before = inventory(running_sandbox)
    mark = running_sandbox.sandbox.aws_calls.mark()
    refused = patch(running_sandbox, body, expect=400)
    assert fragment in refused["message"]
    assert mutating_calls(running_sandbox, mark) == []
    assert inventory(running_sandbox) == before


def test_features_of_an_unknown_or_unready_cluster_are_refused(running_sandbox, cluster):
    with running_sandbox.client() as api:
        assert api.get("/clusters/ghost/features").status_code == 404
        assert api.patch("/clusters/ghost/features", json={"certManager": {"enabled": True}}).status_code == 404


def test_a_dry_run_reports_outcomes_and_actions_without_side_effects(running_sandbox, cluster):
    before = inventory(running_sandbox)
    with running_sandbox.client() as api:
        response = api.patch(
            f"/clusters/{TAG}/features", params={"dryRun": "true"}, json={"tieredStorage": {"enabled": True}}
        )
    assert response.status_code == 200, response.text
    plan = response.json()
    assert plan["dryRun"] is True and "operationId" not in plan
    assert plan["features"]["tieredStorage"]["outcome"] == "enabled"
    assert [action["resource"] for action in plan["actions"]] == ["tieredStorage"]
    assert inventory(running_sandbox) == before


def test_operators_and_viewers_cannot_change_features(running_sandbox, cluster):
    for token in ("sandbox-operator", "sandbox-viewer"):
        with running_sandbox.client(token) as api:
            response = api.patch(f"/clusters/{TAG}/features", json={"certManager": {"enabled": False}})
        assert response.status_code == 403


def test_deleting_the_cluster_removes_what_its_features_created(running_sandbox, cluster):
    """Last in the module: it deletes the cluster."""
    change(running_sandbox, {"fsxCsiDriver": {"enabled": True}, "tieredStorage": {"enabled": True}})
    change(running_sandbox, {"observability": {"enabled": True}})
    prefix = f"instantstart-{TAG}-"
    iam = boto3.client("iam")
    assert {f"{prefix}fsx-csi", f"{prefix}tiered-ckpt", f"{prefix}observability"} <= set(
        inventory(running_sandbox)["roles"]
    )
    with running_sandbox.client() as api:
        token = api.delete(f"/clusters/{TAG}").json()["confirmationToken"]
        accepted = api.delete(f"/clusters/{TAG}", params={"confirmationToken": token}).json()
    operation = running_sandbox.wait_terminal(accepted["operationId"])
    assert operation["status"] == "SUCCEEDED", operation.get("error")
    assert [r["RoleName"] for r in iam.list_roles()["Roles"] if r["RoleName"].startswith(prefix)] == []
    assert [
        p["PolicyName"] for p in iam.list_policies(Scope="Local")["Policies"] if p["PolicyName"].startswith(prefix)
    ] == []
