"""Advanced features end to end: explicit diff, dependencies, closed both ways, faults then disable."""

from __future__ import annotations

import json

import pytest

from controlplane.core.features.catalog import CATALOG
from controlplane.models.operations import OperationKind
from controlplane.workflows import step_key
from tests.conftest import aws_client
from tests.workflows.confirm import confirmed
from tests.workflows.faults import fail_each_step_in_turn, steps_of

TAG = "feat"
REGION = "us-west-2"
ENSURE_STEPS = [step for step in steps_of(OperationKind.UPDATE_CLUSTER_FEATURES) if step.startswith("ensure_")]
# Steps that settle in their first round (server-side apply), so no later round exists to fail.
SINGLE_ROUND = {"ensure_kuberay_operator"}
# Each enable step in turn: (step, 0) fails before it acts (earlier features are built); (step, 1) lets its first
# round do its work and fails the next, leaving the feature half-settled.
FAULTS = [(step, after) for step in ENSURE_STEPS for after in (0, 1) if not (after and step in SINGLE_ROUND)]
# Features the stage-3 baseline leaves enabled (the dependencies stage installs cert-manager).
BASELINE_ENABLED = {"certManager"}
# What a feature needs enabled alongside it beyond the baseline (the backend refuses it otherwise).
NEEDS = {"inferenceOperator": ("fsxCsiDriver",)}
# A group Karpenter may scale (the first group runs deep health checks, which managed Karpenter refuses).
SCALABLE = "cpu-workers"
ENABLE = {"karpenter": {"enabled": True, "instanceGroups": [SCALABLE]}}


def enable(*features: str) -> dict[str, dict]:
    return {feature: ENABLE.get(feature, {"enabled": True}) for feature in features}


INFERENCE_ADDON = "amazon-sagemaker-hyperpod-inference"
OBSERVABILITY_ADDON = "amazon-sagemaker-hyperpod-observability"
READ_PREFIXES = ("Describe", "List", "Get", "Head")
# The control plane's own bookkeeping (operation records, audit, idempotency) is not a change to the cluster.
BOOKKEEPING_SERVICES = ("dynamodb.", "sts.")


@pytest.fixture(scope="module")
def cluster(running_sandbox) -> str:
    cpu_group = {
        "availabilityZone": "us-west-2c",
        "instanceType": "ml.m5.xlarge",
        "instanceCount": 1,
        "instanceGroupName": SCALABLE,
    }
    running_sandbox.build_cluster(TAG, region=REGION, then=[("POST", f"/clusters/{TAG}/instance-groups", cpu_group)])
    return TAG


def inventory(running_sandbox, tag: str = TAG) -> dict[str, object]:
    """Everything a feature may create, in the account and in the cluster."""
    iam = aws_client("iam")
    eks = aws_client("eks", region_name=REGION)
    name = f"eks-cluster-{tag}"
    store = running_sandbox.sandbox.emulator.store(name)
    prefix = f"instantstart-{tag}-"
    cluster = aws_client("sagemaker", region_name=REGION).describe_cluster(ClusterName=f"hp-cluster-{tag}")
    associations = eks.list_pod_identity_associations(clusterName=name)["associations"]
    # Read in place (`any` sees every object, as append answers None): a list would copy each CRD's whole schema.
    crd_names: list[str] = []
    store.any(
        "apiextensions.k8s.io", "v1", "customresourcedefinitions", lambda c: crd_names.append(c["metadata"]["name"])
    )
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
        "custom_resource_definitions": sorted(crd_names),
        "buckets": sorted(b["Name"] for b in aws_client("s3").list_buckets()["Buckets"]),
        "prometheus_workspaces": sorted(
            f"{w['alias']} {w['status']['statusCode']}"
            for w in aws_client("amp", region_name=REGION).list_workspaces()["workspaces"]
        ),
        "tiered_storage_mode": (cluster.get("TieredStorageConfig") or {}).get("Mode", "Disable"),
        "autoscaling_mode": (cluster.get("AutoScaling") or {}).get("Mode", "Disable"),
    }


def patch(running_sandbox, body: dict, expect: int = 202) -> dict:
    with running_sandbox.client() as api:
        response = confirmed(api, "PATCH", f"/clusters/{TAG}/features", body, plan_required=False)
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
    assert features["inferenceOperator"]["requires"] == ["certManager", "fsxCsiDriver"]
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
    role = aws_client("iam").get_role(RoleName=f"instantstart-{TAG}-tiered-ckpt")["Role"]
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
    config = aws_client("sagemaker", region_name=REGION).describe_cluster(ClusterName=f"hp-cluster-{TAG}")
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
    together = (*NEEDS.get(feature, ()), feature)
    change(running_sandbox, enable(*together))
    assert live(running_sandbox)[feature]["enabled"] is True
    assert inventory(running_sandbox) != before
    change(running_sandbox, {name: {"enabled": False} for name in together})
    assert inventory(running_sandbox) == before
    assert live(running_sandbox)[feature]["state"] == "disabled"
    if baseline:
        change(running_sandbox, {feature: {"enabled": True}})


def test_the_inference_operator_is_one_closed_loop_of_role_tls_bucket_and_configured_addon(running_sandbox, cluster):
    before = inventory(running_sandbox)
    account = aws_client("sts").get_caller_identity()["Account"]
    bucket = f"hyperpod-tls-{TAG}-{account}-{REGION}"
    result = change(running_sandbox, {"fsxCsiDriver": {"enabled": True}, "inferenceOperator": {"enabled": True}})
    assert result["stages"] == ["fsxCsiDriver", "inferenceOperator"]

    eks = aws_client("eks", region_name=REGION)
    addon = eks.describe_addon(clusterName=f"eks-cluster-{TAG}", addonName=INFERENCE_ADDON)["addon"]
    role = aws_client("iam").get_role(RoleName=f"instantstart-{TAG}-inference")["Role"]
    hyperpod = aws_client("sagemaker", region_name=REGION).describe_cluster(ClusterName=f"hp-cluster-{TAG}")
    assert json.loads(addon["configurationValues"]) == {
        "executionRoleArn": role["Arn"],
        "tlsCertificateS3Bucket": bucket,
        "hyperpodClusterArn": hyperpod["ClusterArn"],
    }
    assert addon["tags"]["instantstart:feature"] == "inferenceOperator"
    web_identity, service = role["AssumeRolePolicyDocument"]["Statement"]
    assert "system:serviceaccount:hyperpod-inference-system:hyperpod-inference-controller-manager" in (
        web_identity["Condition"]["StringEquals"].values()
    )
    assert service["Principal"] == {"Service": "sagemaker.amazonaws.com"}
    assert service["Condition"] == {"ArnLike": {"aws:SourceArn": f"arn:aws:sagemaker:{REGION}:{account}:*"}}
    attached = aws_client("iam").list_attached_role_policies(RoleName=role["RoleName"])["AttachedPolicies"]
    assert [policy["PolicyName"] for policy in attached] == ["AmazonSageMakerHyperPodInferenceAccess"]
    s3 = aws_client("s3", region_name=REGION)
    tags = {tag["Key"]: tag["Value"] for tag in s3.get_bucket_tagging(Bucket=bucket)["TagSet"]}
    assert tags["instantstart:feature"] == "inferenceOperator" and tags["instantstart:cluster"] == TAG
    assert all(s3.get_public_access_block(Bucket=bucket)["PublicAccessBlockConfiguration"].values())
    assert s3.get_bucket_encryption(Bucket=bucket)["ServerSideEncryptionConfiguration"]["Rules"]
    policy = json.loads(s3.get_bucket_policy(Bucket=bucket)["Policy"])
    assert policy["Statement"][0]["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}
    state = live(running_sandbox)["inferenceOperator"]
    assert state["enabled"] is True and state["settings"]["tlsCertificateBucket"] == bucket

    mark = running_sandbox.sandbox.aws_calls.mark()
    repeat = patch(running_sandbox, {"inferenceOperator": {"enabled": True}}, expect=200)
    assert repeat["features"] == {"inferenceOperator": {"outcome": "unchanged"}}
    assert mutating_calls(running_sandbox, mark) == []

    refused = patch(running_sandbox, {"fsxCsiDriver": {"enabled": False}}, expect=409)
    assert refused["code"] == "FeatureDependency" and "inferenceOperator" in refused["message"]
    # The operator has written a certificate: disabling empties the bucket it owns, then deletes it.
    s3.put_object(Bucket=bucket, Key="certs/endpoint.pem", Body=b"certificate")
    change(running_sandbox, {"fsxCsiDriver": {"enabled": False}, "inferenceOperator": {"enabled": False}})
    assert inventory(running_sandbox) == before


def test_observability_writes_to_a_prometheus_workspace_of_its_own_and_says_grafana_is_the_person_s(
    running_sandbox, cluster
):
    before = inventory(running_sandbox)
    change(running_sandbox, {"observability": {"enabled": True}})

    amp = aws_client("amp", region_name=REGION)
    (summary,) = amp.list_workspaces(alias=f"instantstart-{TAG}-observability")["workspaces"]
    workspace = amp.describe_workspace(workspaceId=summary["workspaceId"])["workspace"]
    assert workspace["status"]["statusCode"] == "ACTIVE"
    assert (workspace["tags"]["instantstart:cluster"], workspace["tags"]["instantstart:feature"]) == (
        TAG,
        "observability",
    )
    addon = aws_client("eks", region_name=REGION).describe_addon(
        clusterName=f"eks-cluster-{TAG}", addonName=OBSERVABILITY_ADDON
    )["addon"]
    endpoint = workspace["prometheusEndpoint"].rstrip("/")
    assert json.loads(addon["configurationValues"]) == {
        "ampWorkspace": {"prometheusEndpoint": endpoint, "arn": workspace["arn"]}
    }
    state = live(running_sandbox)["observability"]
    assert state["enabled"] is True and state["settings"]["prometheusWorkspace"] == workspace["workspaceId"]
    assert state["settings"]["grafana"] == "bring your own" and "Grafana is yours to bring" in state["message"]
    with running_sandbox.client("sandbox-viewer") as api:
        links = api.get(f"/clusters/{TAG}/overview").json()["observability"]
    assert (links["prometheusWorkspace"], links["prometheusEndpoint"]) == (workspace["workspaceId"], endpoint)
    assert endpoint in links["bringYourOwn"]

    change(running_sandbox, {"observability": {"enabled": False}})
    assert inventory(running_sandbox) == before


def test_the_inference_operator_without_the_fsx_csi_driver_is_refused_naming_it(running_sandbox, cluster):
    before = inventory(running_sandbox)
    refused = patch(running_sandbox, {"inferenceOperator": {"enabled": True}}, expect=409)
    assert refused["code"] == "FeatureDependency"
    assert '"fsxCsiDriver": {"enabled": true}' in refused["message"]
    assert inventory(running_sandbox) == before


def test_karpenter_scales_the_chosen_groups_through_a_role_autoscaling_and_a_node_class(running_sandbox, cluster):
    before = inventory(running_sandbox)
    result = change(running_sandbox, ENABLE)
    assert result["features"] == {"karpenter": {"outcome": "enabled", "stage": "karpenter"}}
    assert result["actions"][0]["detail"] == f"instance groups {SCALABLE}"

    hyperpod = aws_client("sagemaker", region_name=REGION).describe_cluster(ClusterName=f"hp-cluster-{TAG}")
    role = aws_client("iam").get_role(RoleName=f"instantstart-{TAG}-karpenter")["Role"]
    assert hyperpod["AutoScaling"] == {"Mode": "Enable", "AutoScalerType": "Karpenter", "Status": "InService"}
    assert hyperpod["ClusterRole"] == role["Arn"]
    boundary = role["PermissionsBoundary"]["PermissionsBoundaryArn"]
    assert boundary.endswith(":policy/instantstart-autoscaling-role-boundary")
    assert role["AssumeRolePolicyDocument"]["Statement"][0]["Principal"] == {
        "Service": "hyperpod.sagemaker.amazonaws.com"
    }
    policy = aws_client("iam").get_role_policy(RoleName=role["RoleName"], PolicyName="hyperpod-autoscaling")
    (statement,) = policy["PolicyDocument"]["Statement"]
    assert statement["Action"] == ["sagemaker:BatchAddClusterNodes", "sagemaker:BatchDeleteClusterNodes"]
    assert statement["Resource"] == [hyperpod["ClusterArn"]]
    store = running_sandbox.sandbox.emulator.store(f"eks-cluster-{TAG}")
    node_class = store.get("karpenter.sagemaker.amazonaws.com", "v1", "hyperpodnodeclasses", None, "instantstart")
    node_pool = store.get("karpenter.sh", "v1", "nodepools", None, "instantstart")
    assert node_class["spec"] == {"instanceGroups": [SCALABLE]}
    assert node_pool["spec"]["template"]["spec"]["nodeClassRef"] == {
        "group": "karpenter.sagemaker.amazonaws.com",
        "kind": "HyperpodNodeClass",
        "name": "instantstart",
    }
    state = live(running_sandbox)["karpenter"]
    assert state["enabled"] is True and state["settings"]["instanceGroups"] == [SCALABLE]

    writes: list[str] = []
    running_sandbox.sandbox.emulator.add_listener(lambda cluster, event, obj: writes.append(f"{event} {obj['kind']}"))
    mark = running_sandbox.sandbox.aws_calls.mark()
    for body in (ENABLE, {"karpenter": {"enabled": True}}):
        assert patch(running_sandbox, body, expect=200)["features"] == {"karpenter": {"outcome": "unchanged"}}
    assert mutating_calls(running_sandbox, mark) == []
    assert writes == []

    change(running_sandbox, {"karpenter": {"enabled": False}})
    assert inventory(running_sandbox) == before
    assert live(running_sandbox)["karpenter"]["state"] == "disabled"


@pytest.mark.parametrize(
    ("body", "status", "fragments"),
    [
        ({"karpenter": {"enabled": True}}, 400, ["instanceGroups", "accelerated-worker", SCALABLE]),
        ({"karpenter": {"enabled": True, "instanceGroups": ["ghost"]}}, 400, ["ghost", "accelerated-worker"]),
        ({"karpenter": {"enabled": True, "instanceGroups": ["accelerated-worker"]}}, 400, ["deep health checks"]),
        ({"karpenter": {"enabled": False, "instanceGroups": [SCALABLE]}}, 400, ["only with enabled true"]),
        ({"karpenter": {"enabled": True, "instanceGroups": []}}, 400, ["instanceGroups"]),
    ],
)
def test_karpenter_groups_are_checked_against_the_live_cluster_before_anything_changes(
    running_sandbox, cluster, body, status, fragments
):
    before = inventory(running_sandbox)
    mark = running_sandbox.sandbox.aws_calls.mark()
    refused = patch(running_sandbox, body, expect=status)
    assert all(fragment in refused["message"] for fragment in fragments), refused["message"]
    assert mutating_calls(running_sandbox, mark) == []
    assert inventory(running_sandbox) == before


def test_karpenter_is_refused_while_the_cluster_does_not_recover_nodes_automatically(running_sandbox, cluster):
    sagemaker = aws_client("sagemaker", region_name=REGION)
    sagemaker.update_cluster(ClusterName=f"hp-cluster-{TAG}", NodeRecovery="None")
    try:
        refused = patch(running_sandbox, ENABLE, expect=409)
    finally:
        sagemaker.update_cluster(ClusterName=f"hp-cluster-{TAG}", NodeRecovery="Automatic")
    assert "NodeRecovery None" in refused["message"] and "NodeRecovery Automatic" in refused["message"]


def disable_everything(running_sandbox) -> None:
    """Disable every feature; only what is built is removed, and with nothing built there is no operation at all."""
    with running_sandbox.client() as api:
        disable_all = {f.value: {"enabled": False} for f in CATALOG}
        response = confirmed(api, "PATCH", f"/clusters/{TAG}/features", disable_all, plan_required=False)
    disabled = response.json()
    built = [name for name, outcome in disabled["features"].items() if outcome["outcome"] == "disabled"]
    assert response.status_code == (202 if built else 200), response.text
    if built:
        assert running_sandbox.wait_terminal(disabled["operationId"])["status"] == "SUCCEEDED"
    assert all(state["state"] == "disabled" for state in live(running_sandbox).values())


def test_every_enable_step_fails_in_turn_before_and_after_its_first_round_and_resume_then_disable_leave_nothing(
    running_sandbox, cluster
):
    change(running_sandbox, {"certManager": {"enabled": False}})
    before = inventory(running_sandbox)
    everything = enable(*(feature.value for feature in CATALOG))
    fail_each_step_in_turn(
        running_sandbox,
        OperationKind.UPDATE_CLUSTER_FEATURES,
        lambda: patch(running_sandbox, everything)["operationId"],
        FAULTS,
    )
    assert all(state["enabled"] for state in live(running_sandbox).values())
    disable_everything(running_sandbox)
    assert inventory(running_sandbox) == before
    change(running_sandbox, {"certManager": {"enabled": True}})


def test_a_fault_in_the_last_enable_step_then_disable_leaves_nothing(running_sandbox, cluster):
    """The most a failed enable leaves: every feature before the last built, the last half-settled."""
    change(running_sandbox, {"certManager": {"enabled": False}})
    before = inventory(running_sandbox)
    running_sandbox.sandbox.add_fault(ENSURE_STEPS[-1], 1, after=1)
    started = patch(running_sandbox, enable(*(feature.value for feature in CATALOG)))
    failed = running_sandbox.wait_terminal(started["operationId"])
    assert (failed["status"], step_key(failed["error"]["step"])) == ("FAILED", ENSURE_STEPS[-1])
    disable_everything(running_sandbox)
    assert inventory(running_sandbox) == before
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


@pytest.mark.parametrize(("step", "after"), [("ensure_karpenter", 2), ("ensure_inference_operator", 1)])
def test_a_failed_karpenter_or_inference_enable_resumes_to_the_same_end_state(running_sandbox, cluster, step, after):
    feature = "karpenter" if step == "ensure_karpenter" else "inferenceOperator"
    together = (*NEEDS.get(feature, ()), feature)
    before = inventory(running_sandbox)
    running_sandbox.sandbox.add_fault(step, 1, after=after)
    started = patch(running_sandbox, enable(*together))
    assert running_sandbox.wait_terminal(started["operationId"])["status"] == "FAILED"
    # The failed round had started the build; AWS may finish part of it (an add-on turning ACTIVE) meanwhile.
    assert live(running_sandbox)[feature]["state"] in ("partial", "enabled")
    with running_sandbox.client() as api:
        assert api.post(f"/operations/{started['operationId']}/resume").status_code == 202
    assert running_sandbox.wait_terminal(started["operationId"])["status"] == "SUCCEEDED"
    assert live(running_sandbox)[feature]["enabled"] is True
    change(running_sandbox, {name: {"enabled": False} for name in together})
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


def test_a_disable_answers_with_its_plan_and_a_token_and_changes_nothing_until_confirmed(running_sandbox, cluster):
    before = inventory(running_sandbox)
    body = {"certManager": {"enabled": False}}
    with running_sandbox.client() as api:
        response = api.patch(f"/clusters/{TAG}/features", json=body)
        assert response.status_code == 200, response.text
        plan = response.json()
        assert (plan["dryRun"], plan["features"]["certManager"]["outcome"]) == (True, "disabled")
        assert plan["confirmationToken"] and "operationId" not in plan
        assert inventory(running_sandbox) == before
        with running_sandbox.client() as other:
            wrong = other.patch(
                f"/clusters/{TAG}/features",
                params={"confirmationToken": plan["confirmationToken"]},
                json={**body, "kuberayOperator": {"enabled": True}},
            )
        assert wrong.status_code == 400 and wrong.json()["code"] == "ConfirmationRequired", wrong.text
    change(running_sandbox, body)
    assert live(running_sandbox)["certManager"]["enabled"] is False
    change(running_sandbox, {"certManager": {"enabled": True}})


def test_operators_and_viewers_cannot_change_features(running_sandbox, cluster):
    for token in ("sandbox-operator", "sandbox-viewer"):
        with running_sandbox.client(token) as api:
            response = api.patch(f"/clusters/{TAG}/features", json={"certManager": {"enabled": False}})
        assert response.status_code == 403


def test_deleting_the_cluster_removes_what_its_features_created(running_sandbox, cluster):
    """Last in the module: it deletes the cluster."""
    change(running_sandbox, {"fsxCsiDriver": {"enabled": True}, "tieredStorage": {"enabled": True}})
    change(running_sandbox, {"observability": {"enabled": True}})
    change(running_sandbox, enable("inferenceOperator", "karpenter"))
    prefix = f"instantstart-{TAG}-"
    iam = aws_client("iam")
    built = inventory(running_sandbox)
    assert {f"{prefix}{name}" for name in ("fsx-csi", "tiered-ckpt", "observability", "inference", "karpenter")} <= (
        set(built["roles"])
    )
    tls_buckets = [bucket for bucket in built["buckets"] if bucket.startswith(f"hyperpod-tls-{TAG}-")]
    assert len(tls_buckets) == 1
    with running_sandbox.client() as api:
        accepted = confirmed(api, "DELETE", f"/clusters/{TAG}").json()
    operation = running_sandbox.wait_terminal(accepted["operationId"])
    assert operation["status"] == "SUCCEEDED", operation.get("error")
    assert [r["RoleName"] for r in iam.list_roles()["Roles"] if r["RoleName"].startswith(prefix)] == []
    assert [
        p["PolicyName"] for p in iam.list_policies(Scope="Local")["Policies"] if p["PolicyName"].startswith(prefix)
    ] == []
    assert not set(tls_buckets) & {b["Name"] for b in aws_client("s3").list_buckets()["Buckets"]}
    workspaces = aws_client("amp", region_name=REGION).list_workspaces(alias=f"{prefix}observability")["workspaces"]
    assert {w["status"]["statusCode"] for w in workspaces} <= {"DELETING"}
