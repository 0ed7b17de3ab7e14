"""The sandbox's IAM policy evaluator: what it allows, what it refuses, and that what it cannot judge is an error."""

import pytest

from sandbox.aws.iam_policy import PolicyEvaluationError, Request, evaluate

ROLE = "arn:aws:iam::123456789012:role/exec"
CLUSTER = "arn:aws:eks:us-west-2:123456789012:cluster/eks-cluster-demo"


def policy(*statements: dict) -> dict:
    return {"Version": "2012-10-17", "Statement": list(statements)}


def allow(action: str | list[str], resource: str | list[str] = "*", **condition: dict) -> dict:
    statement = {"Effect": "Allow", "Action": action, "Resource": resource}
    if condition:
        statement["Condition"] = condition
    return statement


def test_actions_match_case_insensitively_with_wildcards_and_resources_with_wildcards_across_slashes() -> None:
    granted = [policy(allow("EKS:Describe*", "arn:aws:eks:*:123456789012:cluster/eks-cluster-*"))]

    assert evaluate(granted, Request("eks:DescribeCluster", CLUSTER)).allowed
    assert not evaluate(granted, Request("eks:DeleteCluster", CLUSTER)).allowed
    assert not evaluate(granted, Request("eks:DescribeCluster", CLUSTER.replace("eks-cluster-", "team-"))).allowed
    entry = "arn:aws:eks:us-west-2:123456789012:access-entry/eks-cluster-demo/role/123456789012/exec/uuid"
    assert evaluate(
        [policy(allow("eks:*", "arn:aws:eks:*:*:access-entry/eks-cluster-*/*"))], Request("eks:X", entry)
    ).allowed


def test_an_explicit_deny_wins_and_a_boundary_must_allow_too() -> None:
    granted = [policy(allow("s3:*")), policy({"Effect": "Deny", "Action": "s3:DeleteBucket", "Resource": "*"})]

    assert not evaluate(granted, Request("s3:DeleteBucket", "arn:aws:s3:::b")).allowed
    assert evaluate(granted, Request("s3:GetObject", "arn:aws:s3:::b/k")).allowed
    boundary = policy(allow("s3:ListBucket"))
    decision = evaluate(granted, Request("s3:GetObject", "arn:aws:s3:::b/k"), boundary)
    assert (decision.allowed, decision.reason) == (False, "no permissions boundary allows the s3:GetObject action")


def test_a_condition_on_a_key_the_request_lacks_fails_unless_if_exists_null_for_all_values_or_negated() -> None:
    request = Request("eks:CreateAccessEntry", CLUSTER, {"aws:ViaAWSService": ("true",)})

    assert evaluate([policy(allow("eks:*", Bool={"aws:ViaAWSService": "true"}))], request).allowed
    assert not evaluate([policy(allow("eks:*", Bool={"aws:ViaAWSService": "false"}))], request).allowed
    assert not evaluate(
        [policy(allow("eks:*", **{"ForAnyValue:StringEquals": {"aws:CalledVia": ["x"]}}))], request
    ).allowed
    assert evaluate([policy(allow("eks:*", **{"ForAllValues:StringEquals": {"aws:TagKeys": ["a"]}}))], request).allowed
    assert not evaluate([policy(allow("eks:*", StringEquals={"eks:principalArn": ROLE}))], request).allowed
    assert evaluate([policy(allow("eks:*", StringEqualsIfExists={"eks:principalArn": ROLE}))], request).allowed
    assert evaluate([policy(allow("eks:*", StringNotEquals={"eks:principalArn": ROLE}))], request).allowed
    assert evaluate([policy(allow("eks:*", Null={"aws:ResourceTag/team": "true"}))], request).allowed
    tagged = Request("eks:CreateAccessEntry", CLUSTER, {"aws:ResourceTag/team": ("ml",)})
    assert not evaluate([policy(allow("eks:*", Null={"aws:ResourceTag/team": "true"}))], tagged).allowed


def test_arn_conditions_compare_each_field_with_wildcards() -> None:
    request = Request(
        "iam:AttachRolePolicy", ROLE, {"iam:PolicyARN": ("arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy",)}
    )

    assert evaluate(
        [policy(allow("iam:*", ArnLike={"iam:PolicyARN": "arn:aws:iam::aws:policy/AmazonEKS_*"}))], request
    ).allowed
    denied = policy(allow("iam:*", ArnEquals={"iam:PolicyARN": ["arn:aws:iam::aws:policy/AdministratorAccess"]}))
    assert not evaluate([denied], request).allowed


@pytest.mark.parametrize(
    "statement",
    [
        allow("eks:*", DateGreaterThan={"aws:CurrentTime": "2020-01-01T00:00:00Z"}),
        allow("eks:*", StringEquals={"aws:PrincipalAccount": "${aws:ResourceAccount}"}),
        allow("eks:*", "arn:aws:eks:*:${aws:PrincipalAccount}:cluster/*"),
        {"Effect": "Allow", "Resource": "*"},
    ],
)
def test_what_the_evaluator_cannot_judge_is_an_error_never_an_allow(statement: dict) -> None:
    with pytest.raises(PolicyEvaluationError):
        evaluate([policy(statement)], Request("eks:CreateAccessEntry", CLUSTER))
