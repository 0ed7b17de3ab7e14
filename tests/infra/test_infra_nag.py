"""cdk-nag v3 (AwsSolutions) runs as a CDK validation plugin: synthesis fails on any unacknowledged
finding, and every acknowledgement is finding-specific, reasoned, and still needed."""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any

import aws_cdk as cdk
import pytest
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_apigatewayv2 as apigwv2
from aws_cdk import aws_cloudfront as cloudfront
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_s3 as s3
from aws_cdk import aws_sqs as sqs
from cdk_nag import AwsSolutionsChecks

from infra.boundaries import MLFLOW_ACTIONS
from infra.mcp import MCP_HANDLER
from infra.nag import MIN_REASON_LENGTH, flatten

# A ratchet: acknowledging one more finding is a reviewed decision, so it changes this number too.
# 218: eight instance-group and software-update steps (their X-Ray, runtime-pin and ARN-pattern findings) and
# the API role's live reads (HyperPod clusters, training plans, node batch actions on its own clusters).
# 226: +8 for the remote MCP server: its function (X-Ray IAM5, runtime L1), its execute-api grant on the
# SigV4 routes (IAM5), /mcp and its RFC 9728 metadata (APIG4 + COG4 each: authenticated in the function /
# public by definition) and /mcp-iam (COG4: AWS_IAM).
# 302: +76 for the advanced features: twelve ensure/remove step functions (X-Ray IAM5 and runtime L1 each) and
# their ARN-pattern grants (add-ons, HyperPod clusters, OIDC providers, pod identity associations, the
# instantstart-<tag>-tiered-ckpt / -fsx-csi / -observability roles and the tiered policy), plus the API role's
# live reads of add-ons and those roles and policies behind GET /clusters/{tag}/features.
# 333: +31 for import: four step functions (L1 and X-Ray/describe IAM5 each), the import_cluster state machine
# (log delivery, execution ARNs for the API and failure recording), HyperPod reads for discovery, the
# adoption tag on VPCs, and EKS ARNs that admit imported clusters' own names (reads on any cluster; changes
# only with the instantstart:cluster tag on the cluster or the ownership tag on the add-on / association).
# 347: +14 for FSx storage: five step functions (runtime L1 and X-Ray / fsx:DescribeFileSystems IAM5 each),
# file-system ARNs for create and delete under the ownership tag, FSx's service-linked role, and the claim
# step's EKS DescribeCluster on any cluster name.
# 353: +6 for cluster deletion removing feature identities: one step function (L1, X-Ray IAM5) and its
# ARN-pattern grants on the -fsx-csi / -observability / -tiered-ckpt roles and the tiered policy.
# 371: +18 for the inference operator feature: its two step functions (X-Ray IAM5 and runtime L1 each), their
# ARN-pattern grants (add-ons, own and adopted EKS clusters, HyperPod clusters, instantstart-<tag>-inference
# roles, the hyperpod-tls-<tag>-<account>-<region> buckets and, to empty them, their objects), plus the API
# role's live reads of that role and bucket.
# 383: +12 for managed Karpenter: its two step functions (X-Ray IAM5 and runtime L1 each), their ARN-pattern grants
# (EKS and HyperPod clusters, instantstart-<tag>-karpenter roles), the API role's read of those roles, and the
# autoscaling role boundary (node batch actions on this account's HyperPod clusters).
# 387: +4 for cluster deletion removing those features' identities too: the delete step's grants on the
# -inference and -karpenter roles and on the TLS buckets and their objects.
# 221: -166 for one function per step group (steps/groups.py) instead of one per step: 72 step functions
# become 23, so 49 fewer runtime L1 and 49 fewer X-Ray/describe IAM5[Resource::*]; an ARN pattern that several
# steps of a group needed is acknowledged once on the group's role (218 IAM5 ARN patterns become 150).
# 222: +1 for the API's read-only Kubernetes view role (eks:DescribeCluster on any cluster, like the access role).
# 234: +12 for node actions as operations: the nodes step group's function (runtime L1, X-Ray IAM5) and its
# HyperPod cluster ARN pattern, the three node-action state machines (log delivery IAM5 each), and their execution
# ARNs for the API's StopExecution and the failure recording's history read.
# 238: +4 for pre-flight on the API role: servicequotas:GetServiceQuota on the quota ARNs of the four services it
# reads (sagemaker/*, vpc/*, ec2/*, eks/*), whose codes are found by name at run time.
# 245: +7 for the web console (infra/console/): its distribution's geo restriction, WAF and default certificate
# (CFR1, CFR2, CFR4: a custom domain and a web ACL are context choices), its log bucket's own access logs (S1), and
# CDK's bucket deployment: its handler's runtime (L1) and its role's object grants (IAM5) on the console bucket and
# on the CDK assets bucket (the role has its own grants; CDK's grantReadWrite, with wildcard actions, is not used).
# 246: +1 for the API's Kubernetes jobs role: eks:DescribeCluster on every control-plane cluster, like the view role.
# 253: +7 for downloads as operations: the downloads step group's function (runtime L1, X-Ray IAM5) and its
# eks:DescribeCluster on any cluster name, the download_to_storage state machine (log delivery IAM5), its
# execution ARNs for the API's StopExecution and the failure recording's history read, and the API role's
# s3:ListBucket on this account's buckets (the claim's contents).
# 255: +2 for completion by event: the event_waits step group's function (runtime L1, X-Ray IAM5), which only stores
# HyperPod waits' task tokens in the EventWaits table.
# 256: +1 for MLflow tracking: the API role's sagemaker:DescribeMlflowTrackingServer on this account's tracking
# servers (mlflow-tracking-server/*: a job may log to any of them, chosen by name); ListMlflowTrackingServers has no
# resource-level permission and joins the API's existing Resource::* acknowledgement.
# 267: +11 for the scheduled drift reconcile (infra/drift.py): its function's runtime (L1) and X-Ray (IAM5), and
# its role's read-only ARN patterns, the same as the API's live reads: EKS clusters and add-ons, HyperPod
# clusters, the -fsx-csi / -observability / -inference / -karpenter / -tiered-ckpt roles and the tiered policy.
# 268: +1 for chat with managed inference endpoints: the API role's sagemaker:InvokeEndpoint on the endpoints the
# inference operator registers, named is-<clusterTag>-<name> at run time in any Region a cluster lives in.
# 278: +10 for live logs (infra/websocket.py): the WebSocket handler's and authorizer's functions (runtime L1 and
# X-Ray IAM5 each), the handler's eks:DescribeCluster on any cluster name and its execute-api:ManageConnections on
# the stage's POST/@connections/* (connection ids are API Gateway's), and APIG4 on the four routes after $connect
# (a WebSocket API takes an authorizer on $connect only).
# 282: +4 for HyperPod events in (infra/events.py): the events function (runtime L1, X-Ray IAM5), its
# sagemaker:DescribeClusterNode on any HyperPod cluster of the account (remediation reads the node's state first;
# cluster ARNs end in an ID SageMaker assigns), and the rules' dead-letter queue, which is itself a DLQ (SQS3).
# 288: +6 for the training jobs' role (trainingOperator feature): the workload boundary's MLflow ceiling
# (sagemaker-mlflow:*, the MLflow API alone, on this account's mlflow-tracking-server/*: 2), the
# <deployment>-*-training-jobs role pattern on the training operator's steps, the identities removal and the API's
# feature reads (3), and the API's read of pod identity associations (podidentityassociation/*/*: EKS assigns IDs).
# 289: +1 for HyperPod's access entries through an AWS service (aws:ViaAWSService): the create step's grant on its
# own clusters' access entries (access-entry/eks-cluster-*/*: EKS assigns the entries' IDs). SendTaskSuccess moved to
# Resource "*" (it has no resource-level permissions) with no change in count.
# 295: +6 for the two event-forwarding step groups (the rule in other Regions): per group the function's runtime L1,
# its X-Ray IAM5 (Resource::*) and the forwarding rule's ARN with any Region (the Region is the cluster's).
# 298: +3 for the observability feature's Prometheus workspace (AMP assigns its ID, in the cluster's Region): the
# workspace/* pattern on the observability steps (create tagged, delete by tag), the identities removal and the API's
# feature reads.
# 299: +1 for the reboot check's health read (issue 30, finding 4): the node steps' eks:DescribeCluster on any cluster
# name (a rebooted node's health label is read in its cluster's Kubernetes API, as the downloads steps read theirs).
# 302: +3 for the deep-health-check workflow (check_node_health), as for every workflow: its state machine's log
# delivery (Resource::*), and its execution ARNs (execution:<machine>:*) on the API role and the operations steps.
# 308: +6 for the devSpaces feature's step group (issue 32, item 4), as every add-on feature's: its role's add-on,
# EKS and HyperPod cluster patterns, its unscoped statement and its function's runtime. Buying a training plan (item
# 5) adds none: the API's training-plan/* and Resource::* acknowledgements already cover its grants.
# 314: +6 for the taskGovernance feature's step group (issue 32): its function's runtime (L1), its role's X-Ray
# (Resource::*) and the add-on feature pattern every add-on group has (EKS clusters and add-ons, HyperPod clusters).
# 316: +2 for task governance on the API role: compute-quota/* and cluster-scheduler-config/* (SageMaker assigns
# their IDs; creating, changing and deleting require the ownership tags); ListComputeQuotas and
# ListClusterSchedulerConfigs join the API's existing Resource::* acknowledgement.
# 328: +12 for team namespaces as operations (issue 32, item 1): the team_namespaces step group's function (runtime
# L1, X-Ray Resource::*), its role's ARN patterns (eks:DescribeCluster on any cluster name, CreatePodIdentityAssociation
# on eks-cluster-*, the pod identity associations EKS assigns IDs to, iam:PassRole on the -training-jobs role pattern),
# and, as for every workflow, the two state machines' log delivery (Resource::*) and their execution ARNs on the API
# role and the operations steps (4). The jobs role's trust is only read: UpdateAssumeRolePolicy is not granted.
# 331: +3 for restore_cluster_access (its steps are stage 1's): the state machine's log delivery (Resource::*) and its
# execution ARNs on the API role and the operations steps.
EXPECTED_ACKNOWLEDGEMENTS = 331


def acknowledgements(app: cdk.App) -> list[tuple[Any, str, str]]:
    """(construct, finding id, reason) for every acknowledgement recorded in the construct tree."""
    key = cdk.Validations.ACKNOWLEDGED_RULES_METADATA_KEY
    found = []
    for construct in app.node.find_all():
        for entry in construct.node.metadata:
            if entry.type == key:
                for finding, reason in dict(entry.data).items():
                    # aws-cdk-lib records unprefixed ids as `Annotation::<id>`; cdk-nag strips that.
                    found.append((construct, re.sub(r"^annotation::", "", finding, flags=re.I), reason))
    return found


@pytest.fixture(scope="module")
def acknowledged(synth: Any) -> list[tuple[Any, str, str]]:
    """The synthesized app's acknowledgements, found once: each walk of the construct tree crosses jsii per node."""
    return acknowledgements(synth.app)


def test_synthesis_reports_no_unacknowledged_findings(synth: Any, validation_report: dict[str, Any]) -> None:
    # The fixture's app.synth() already raised if any plugin reported a violation; the report agrees.
    violations = [v for report in validation_report["pluginReports"] for v in report.get("violations", [])]
    assert violations == []


def test_every_acknowledgement_has_a_reason(acknowledged: list[tuple[Any, str, str]]) -> None:
    acks = acknowledged
    assert acks, "expected the stack's documented acknowledgements"
    short = [(c.node.path, finding) for c, finding, reason in acks if len(reason) < MIN_REASON_LENGTH]
    assert short == []
    assert all(finding.startswith("AwsSolutions-") for _, finding, _ in acks)


def test_acknowledgement_count_is_the_reviewed_baseline(acknowledged: list[tuple[Any, str, str]]) -> None:
    assert len(acknowledged) == EXPECTED_ACKNOWLEDGEMENTS


def test_acknowledgements_are_finding_specific_and_still_needed(
    synth: Any, acknowledged: list[tuple[Any, str, str]]
) -> None:
    """Each acknowledgement names one finding that the acknowledged construct really produces."""
    for construct, finding, _ in acknowledged:
        rule = finding.split("[")[0]
        if rule == "AwsSolutions-IAM5" and finding == "AwsSolutions-IAM5[Action::*]":
            # Only the service roles' boundary: a ceiling over AWS managed policies, whose denials are the point.
            assert construct.node.id == "ServiceRoleBoundary", construct.node.path
        elif rule == "AwsSolutions-IAM5" and finding == f"AwsSolutions-IAM5[Action::{MLFLOW_ACTIONS}]":
            # Only the workload roles' boundary: the ceiling of the training jobs' role is the MLflow API, one service.
            assert construct.node.id == "WorkloadRoleBoundary", construct.node.path
        elif rule == "AwsSolutions-IAM5":
            assert finding.startswith("AwsSolutions-IAM5[Resource::"), finding  # never a bulk IAM5
            resource = finding[len("AwsSolutions-IAM5[Resource::") : -1]
            assert resource in _wildcard_resources(construct), (construct.node.path, finding)
        elif rule == "AwsSolutions-L1":
            runtimes = {c.runtime for c in construct.node.find_all() if isinstance(c, lambda_.CfnFunction)}
            assert runtimes and runtimes != {lambda_.Runtime.PYTHON_3_14.name}, construct.node.path
        elif rule == "AwsSolutions-COG4":
            methods = [c for c in construct.node.find_all() if isinstance(c, apigw.CfnMethod)]
            assert len(methods) == 1, construct.node.path
            if methods[0].authorization_type != "AWS_IAM":
                assert _is_mcp_route_without_gateway_auth(methods[0]), construct.node.path
        elif rule == "AwsSolutions-APIG4":
            methods = [c for c in construct.node.find_all() if isinstance(c, apigw.CfnMethod)]
            routes = [c for c in construct.node.find_all() if isinstance(c, apigwv2.CfnRoute)]
            if routes:  # a WebSocket route after $connect, which alone takes an authorizer
                assert len(routes) == 1 and routes[0].route_key != "$connect", construct.node.path
                assert routes[0].authorization_type in (None, "NONE"), construct.node.path
            else:
                assert len(methods) == 1 and _is_mcp_route_without_gateway_auth(methods[0]), construct.node.path
        elif rule == "AwsSolutions-S1":
            # The bucket the console's access logs go to, which does not log into itself.
            (bucket,) = [c for c in construct.node.find_all() if isinstance(c, s3.CfnBucket)]
            assert "LoggingConfiguration" not in _properties(synth, bucket), construct.node.path
            assert construct.node.path.endswith("/Console/LogBucket"), construct.node.path
        elif rule in ("AwsSolutions-CFR1", "AwsSolutions-CFR2", "AwsSolutions-CFR4"):
            (distribution,) = [c for c in construct.node.find_all() if isinstance(c, cloudfront.CfnDistribution)]
            config = _properties(synth, distribution)["DistributionConfig"]
            assert "Restrictions" not in config
            if rule == "AwsSolutions-CFR2":
                assert "WebACLId" not in config
            if rule == "AwsSolutions-CFR4":
                assert "ViewerCertificate" not in config  # CloudFront's default certificate
        elif rule == "AwsSolutions-APIG3":
            assert isinstance(construct, apigw.Stage)
            assert not synth.of_type("AWS::WAFv2::WebACLAssociation")
        elif rule == "AwsSolutions-SQS3":
            # The HyperPod event rules' dead-letter queue: itself a DLQ, which nag cannot tell from a rule target.
            (queue,) = [c for c in construct.node.find_all() if isinstance(c, sqs.CfnQueue)]
            dead_letters = [
                target.get("DeadLetterConfig", {}).get("Arn")
                for rule in synth.of_type("AWS::Events::Rule").values()
                for target in rule["Properties"]["Targets"]
            ]
            assert cdk.Stack.of(queue).resolve(queue.attr_arn) in dead_letters, construct.node.path
        else:
            pytest.fail(f"Unreviewed kind of acknowledgement {finding} at {construct.node.path}")


# A reason part of an IAM5 acknowledgement: `<actions>: <why>` (infra.nag.Acknowledgements.wildcard_resources).
_REASON_PART = re.compile(r"(?:^|; )((?:[a-z0-9-]+:[A-Za-z0-9*]+)(?:, [a-z0-9-]+:[A-Za-z0-9*]+)*): ")
_CLAIMS_TAG_CONDITION = re.compile(r"requires the (request to tag|.*\btag\b)|limited to resources carrying the tag")


def test_wildcard_reasons_claim_a_tag_condition_only_where_the_statement_has_one(
    acknowledged: list[tuple[Any, str, str]],
) -> None:
    """Each part of a role's IAM5 reason names its statement's actions; a part that says the statement requires a tag is
    about statements that all carry an aws:RequestTag / aws:ResourceTag condition (several statements of one role
    share a wildcard resource, so a joined reason must not lend one statement's condition to another)."""
    checked = 0
    for construct, finding, reason in acknowledged:
        if not finding.startswith("AwsSolutions-IAM5[Resource::") or not isinstance(construct, (iam.Role, iam.Policy)):
            continue
        resource = finding[len("AwsSolutions-IAM5[Resource::") : -1]
        statements = _allow_statements_on(construct, resource)
        starts = list(_REASON_PART.finditer(reason))
        assert starts and starts[0].start() == 0, (construct.node.path, reason)
        for index, match in enumerate(starts):
            end = starts[index + 1].start() if index + 1 < len(starts) else len(reason)
            actions, why = match.group(1).split(", "), reason[match.end() : end]
            for action in actions:
                holders = [s for s in statements if action in _listed(s["Action"])]
                assert holders, (construct.node.path, resource, action)
                if _CLAIMS_TAG_CONDITION.search(why):
                    checked += 1
                    untagged = [s for s in holders if "Tag/" not in json.dumps(s.get("Condition", {}))]
                    assert untagged == [], (construct.node.path, resource, action, why)
    assert checked > 50


def _listed(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _allow_statements_on(construct: Any, resource: str) -> list[dict[str, Any]]:
    return [
        statement
        for statement in _policy_statements(construct)
        if statement["Effect"] == "Allow" and resource in {flatten(r) for r in _listed(statement["Resource"])}
    ]


@functools.cache
def _policy_statements(construct: Any) -> list[dict[str, Any]]:
    """The resolved statements of the policies under a construct; a role is acknowledged for many findings, and each
    resolution crosses jsii, so each construct's are resolved once."""
    return [
        statement
        for child in construct.node.find_all()
        if isinstance(child, (iam.CfnPolicy, iam.CfnManagedPolicy))
        for statement in cdk.Stack.of(child).resolve(child.policy_document)["Statement"]
    ]


def _is_mcp_route_without_gateway_auth(method: apigw.CfnMethod) -> bool:
    """/mcp (the MCP function verifies the bearer token) or its public metadata document."""
    stack = cdk.Stack.of(method)
    uri = json.dumps(stack.resolve(method.integration)["uri"])
    mcp_function = next(
        c for c in stack.node.find_all() if isinstance(c, lambda_.CfnFunction) and c.handler == MCP_HANDLER
    )
    return method.authorization_type == "NONE" and stack.resolve(mcp_function.logical_id) in uri


def _wildcard_resources(construct: Any) -> set[str]:
    found = set()
    for statement in _policy_statements(construct):
        resources = statement.get("Resource", [])
        for resource in resources if isinstance(resources, list) else [resources]:
            flat = flatten(resource)
            if "*" in flat and statement["Effect"] == "Allow":
                found.add(flat)
    return found


def _properties(synth: Any, resource: cdk.CfnResource) -> dict[str, Any]:
    """A resource's properties in the synthesized template."""
    return synth.resources[cdk.Stack.of(resource).resolve(resource.logical_id)]["Properties"]  # type: ignore[no-any-return]


def _tiny_app(tmp_path: Path, acknowledge: bool) -> cdk.App:
    app = cdk.App(outdir=str(tmp_path))
    stack = cdk.Stack(app, "Probe")
    role = iam.Role(stack, "Role", assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"))
    role.add_to_policy(iam.PolicyStatement(actions=["ec2:DescribeVpcs"], resources=["*"]))
    if acknowledge:
        cdk.Validations.of(role).acknowledge(
            cdk.Acknowledgment(
                id="AwsSolutions-IAM5[Resource::*]",
                reason="ec2:DescribeVpcs has no resource-level permissions.",
            )
        )
    cdk.Validations.of(app).add_plugins(AwsSolutionsChecks(app))
    return app


def test_an_unacknowledged_finding_fails_synthesis(tmp_path: Path) -> None:
    """The gate itself: cdk-nag v3 findings interrupt synthesis (so `cdk synth` in CI is the check)."""
    with pytest.raises(Exception, match=r"AwsSolutions-IAM5\[Resource::\*\]"):
        _tiny_app(tmp_path / "open", acknowledge=False).synth()
    _tiny_app(tmp_path / "acknowledged", acknowledge=True).synth()


def test_a_new_wildcard_on_any_role_fails_synthesis(tmp_path: Path) -> None:
    """No role carries a standing Resource::* acknowledgement: s3:GetObject on "*" is a finding on every one. The
    state machines' roles aside: CDK's log delivery grants on "*" share their default policy (acknowledged there).
    The statement lands in the role's default policy, or in an overflow policy CDK splits off a full one."""
    from aws_cdk import aws_stepfunctions as sfn

    from tests.infra.conftest import CONTEXT, load_cdk_app

    app, _ = load_cdk_app().build(context=CONTEXT, outdir=str(tmp_path))
    machine_roles = {c.role.node.path for c in app.node.find_all() if isinstance(c, sfn.StateMachine)}
    roles = [c for c in app.node.find_all() if isinstance(c, iam.Role) and c.node.path not in machine_roles]
    assert len(roles) > 20
    for role in roles:
        role.add_to_policy(iam.PolicyStatement(actions=["s3:GetObject"], resources=["*"]))
    with pytest.raises(Exception, match=r"AwsSolutions-IAM5\[Resource::\*\]"):
        app.synth()
    report = json.loads((tmp_path / "validation-report.json").read_text())
    flagged = {
        location["constructPath"]
        for plugin in report["pluginReports"]
        for violation in plugin.get("violations", [])
        if violation["ruleName"] == "AwsSolutions-IAM5[Resource::*]"
        for location in violation["violatingConstructs"]
    }
    missing = [
        role.node.path
        for role in roles
        if not any(
            re.fullmatch(rf"{re.escape(role.node.path)}/(DefaultPolicy|OverflowPolicy\d+)/Resource", path)
            for path in flagged
        )
    ]
    assert missing == []
