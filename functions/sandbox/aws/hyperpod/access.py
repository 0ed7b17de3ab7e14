"""What HyperPod's IAM decides, as pure functions over policy documents (``sandbox.aws.iam_policy`` evaluates them).

- **A node's own permissions.** On EKS a HyperPod instance runs with its group's execution role: the VPC CNI assigns
  pod addresses with its network-interface actions, the kubelet pulls images from ECR with it, and the EKS Pod
  Identity agent exchanges tokens with ``eks-auth:AssumeRoleForPodIdentity``. Without them the CNI never initialises,
  so the kubelet reports the node NotReady and no pod gets an address (EKS User Guide, "Amazon EKS node IAM role":
  AmazonEKS_CNI_Policy, AmazonEC2ContainerRegistryPullOnly and the pod identity action; the HyperPod Developer Guide
  lists the same actions for the execution role of an EKS-orchestrated cluster). HyperPod still reports the instance
  Running: that is what a user sees.
- **HyperPod's calls with the caller's credentials.** CreateCluster on an EKS orchestrator creates the access entries
  of the cluster's execution roles through a forward access session: IAM evaluates the caller's own policies with
  ``aws:ViaAWSService`` true and no ``aws:CalledVia`` (that key is set only by the services the IAM User Guide lists
  for it, SageMaker not among them). A denial fails the cluster (``Failed``, with the access entry in its
  FailureMessage), as HyperPod does after it has accepted the request.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from sandbox.aws.iam_policy import JsonObject, PolicyEvaluationError, Request, evaluate

# The registry the VPC CNI's image comes from in most commercial Regions (EKS User Guide, "Amazon container image
# registries"); the kubelet pulls it with the node's role.
CNI_IMAGE_ACCOUNT = "602401143452"
# How the kubelet reports a node whose network plugin has not initialised (its Ready condition).
NOT_READY_REASON = "KubeletNotReady"
NOT_READY_MESSAGE = (
    "container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady "
    "message:Network plugin returns error: cni plugin not initialized"
)
# The taint Kubernetes' node lifecycle controller puts on a node that is not Ready: nothing is scheduled there.
NOT_READY_TAINT = {"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}


@dataclass(frozen=True)
class RolePolicies:
    """An IAM role's identity policies (attached and inline) and its permissions boundary."""

    policies: list[JsonObject]
    boundary: JsonObject | None = None


@dataclass(frozen=True)
class Caller:
    """Who sent a request: its ARN and its identity policies."""

    arn: str
    policies: list[JsonObject] = field(default_factory=list)


def node_requests(partition: str, account: str, region: str, eks_cluster: str) -> list[Request]:
    """The calls a HyperPod node of an EKS cluster makes with its execution role before it is Ready."""
    interfaces = f"arn:{partition}:ec2:{region}:{account}:network-interface/*"
    repository = f"arn:{partition}:ecr:{region}:{CNI_IMAGE_ACCOUNT}:repository/amazon-k8s-cni"
    return [
        Request("ec2:DescribeNetworkInterfaces", "*"),
        Request("ec2:CreateNetworkInterface", interfaces),
        Request("ec2:AttachNetworkInterface", interfaces),
        Request("ec2:AssignPrivateIpAddresses", interfaces),
        Request("ecr:GetAuthorizationToken", "*"),
        Request("ecr:BatchGetImage", repository),
        Request("ecr:GetDownloadUrlForLayer", repository),
        Request("eks-auth:AssumeRoleForPodIdentity", f"arn:{partition}:eks:{region}:{account}:cluster/{eks_cluster}"),
    ]


def missing_permissions(role: RolePolicies | None, requests: list[Request]) -> tuple[str, ...]:
    """The actions of `requests` the role may not perform (every one when there is no such role)."""
    if role is None:
        return tuple(request.action for request in requests)
    return tuple(request.action for request in requests if not evaluate(role.policies, request, role.boundary).allowed)


def access_entry_requests(eks_cluster_arn: str, principal_arn: str, cluster_tags: dict[str, str]) -> list[Request]:
    """HyperPod's calls for one execution role's access entry, with the context of a forward access session."""
    _, partition, _, region, account, resource = eks_cluster_arn.split(":", 5)
    cluster = resource.removeprefix("cluster/")
    entry = (
        f"arn:{partition}:eks:{region}:{account}:access-entry/{cluster}/role/{account}/"
        f"{principal_arn.rsplit('/', 1)[-1]}/{uuid.uuid5(uuid.NAMESPACE_URL, eks_cluster_arn + principal_arn)}"
    )
    via = {"aws:ViaAWSService": ("true",), "eks:principalArn": (principal_arn,)}
    tags = {f"aws:ResourceTag/{key}": (value,) for key, value in cluster_tags.items()}
    return [
        Request("eks:CreateAccessEntry", eks_cluster_arn, {**via, **tags}),
        Request("eks:DescribeAccessEntry", entry, {**via, "eks:clusterName": (cluster,)}),
    ]


def forward_access_denial(caller: Caller, principal_arn: str, requests: list[Request]) -> str | None:
    """Why HyperPod could not create `principal_arn`'s access entry with the caller's credentials (None: it could)."""
    for request in requests:
        try:
            decision = evaluate(caller.policies, request)
        except PolicyEvaluationError as error:
            return _denied(caller, principal_arn, request, f"its policy could not be evaluated ({error})")
        if not decision.allowed:
            return _denied(caller, principal_arn, request, decision.reason)
    return None


def _denied(caller: Caller, principal_arn: str, request: Request, reason: str) -> str:
    return (
        f"Failed to create the EKS access entry for execution role {principal_arn}: User: {caller.arn} is not "
        f"authorized to perform: {request.action} on resource: {request.resource} because {reason}."
    )
