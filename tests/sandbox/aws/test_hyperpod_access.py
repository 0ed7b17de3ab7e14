"""HyperPod's IAM in the sandbox: the access entries it creates with the caller's credentials, judged against the grants
the stack gives the calling step's function (its group's declared grants), and what a node's execution role must
allow."""

from sandbox.aws.hyperpod import access
from sandbox.aws.hyperpod.access import Caller, RolePolicies
from sandbox.aws.iam_policy import Request, evaluate
from sandbox.aws.lambda_roles import function_policy, running_step, step_caller

ACCOUNT = "123456789012"
REGION = "us-west-2"
EXECUTION_ROLE = f"arn:aws:iam::{ACCOUNT}:role/instantstart-demo-hyperpod-exec"
OWN_CLUSTER = f"arn:aws:eks:{REGION}:{ACCOUNT}:cluster/eks-cluster-demo"
IMPORTED_CLUSTER = f"arn:aws:eks:{REGION}:{ACCOUNT}:cluster/team-eks"
OWNED = {"instantstart:cluster": "demo", "instantstart:managed-by": "instantstart"}


def hyperpod_step() -> Caller:
    with running_step("create_hyperpod_cluster"):
        caller = step_caller(ACCOUNT)
    assert caller is not None
    return caller


def test_hyperpod_may_create_the_execution_roles_access_entry_with_the_create_steps_credentials() -> None:
    requests = access.access_entry_requests(OWN_CLUSTER, EXECUTION_ROLE, OWNED)

    assert access.forward_access_denial(hyperpod_step(), EXECUTION_ROLE, requests) is None


def test_the_create_steps_function_may_not_create_access_entries_itself() -> None:
    """Without aws:ViaAWSService (the function calling EKS directly) the same call is refused."""
    (create, _) = access.access_entry_requests(OWN_CLUSTER, EXECUTION_ROLE, OWNED)
    direct = Request(create.action, create.resource, {"eks:principalArn": (EXECUTION_ROLE,)})

    assert not evaluate(hyperpod_step().policies, direct).allowed


def test_an_imported_cluster_admits_hyperpods_access_entries_only_while_it_carries_the_adoption_tag() -> None:
    adopted = access.access_entry_requests(IMPORTED_CLUSTER, EXECUTION_ROLE, {"instantstart:cluster": "team"})
    foreign = access.access_entry_requests(IMPORTED_CLUSTER, EXECUTION_ROLE, {"team": "ml"})

    assert access.forward_access_denial(hyperpod_step(), EXECUTION_ROLE, adopted) is None
    denial = access.forward_access_denial(hyperpod_step(), EXECUTION_ROLE, foreign)
    assert denial is not None
    assert f"not authorized to perform: eks:CreateAccessEntry on resource: {IMPORTED_CLUSTER}" in denial


def test_a_step_outside_the_hyperpod_group_is_denied_the_access_entry_with_the_reason() -> None:
    with running_step("ensure_lifecycle_scripts"):
        lifecycle = step_caller(ACCOUNT)
    with running_step("reboot_nodes"):
        nodes = step_caller(ACCOUNT)
    requests = access.access_entry_requests(OWN_CLUSTER, EXECUTION_ROLE, OWNED)

    assert lifecycle is not None and access.forward_access_denial(lifecycle, EXECUTION_ROLE, requests) is None
    assert nodes is not None
    denial = access.forward_access_denial(nodes, EXECUTION_ROLE, requests)
    assert denial == (
        f"Failed to create the EKS access entry for execution role {EXECUTION_ROLE}: User: {nodes.arn} is not "
        f"authorized to perform: eks:CreateAccessEntry on resource: {OWN_CLUSTER} because no identity-based policy "
        "allows the eks:CreateAccessEntry action."
    )


def test_no_step_is_running_outside_the_lambda_dispatch() -> None:
    assert step_caller(ACCOUNT) is None


def test_a_node_role_needs_the_cni_ecr_and_pod_identity_actions() -> None:
    requests = access.node_requests("aws", ACCOUNT, REGION, "eks-cluster-demo")
    instance_only = RolePolicies(
        [
            {
                "Version": "2012-10-17",
                "Statement": [{"Effect": "Allow", "Action": ["logs:PutLogEvents", "s3:GetObject"], "Resource": "*"}],
            }
        ]
    )

    assert access.missing_permissions(None, requests) == tuple(request.action for request in requests)
    assert set(access.missing_permissions(instance_only, requests)) == {
        "ec2:DescribeNetworkInterfaces",
        "ec2:CreateNetworkInterface",
        "ec2:AttachNetworkInterface",
        "ec2:AssignPrivateIpAddresses",
        "ecr:GetAuthorizationToken",
        "ecr:BatchGetImage",
        "ecr:GetDownloadUrlForLayer",
        "eks-auth:AssumeRoleForPodIdentity",
    }


def test_the_function_policy_is_the_groups_grants_rendered_for_the_sandbox() -> None:
    document = function_policy("hyperpod_cluster", ACCOUNT)
    resources = [r for statement in document["Statement"] for r in statement["Resource"]]

    assert all("{" not in resource for resource in resources)
    assert f"arn:aws:eks:*:{ACCOUNT}:cluster/eks-cluster-*" in resources
