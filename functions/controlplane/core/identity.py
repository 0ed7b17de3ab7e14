"""IAM policy documents the control plane writes: trust policies and least-privilege grants, the check every
trust policy passes before it reaches IAM (`check_trust_policy`), and the AWS service principals and managed
policies of the roles it creates and the EKS access policies of its own principals (which the steps' grants name
too, so this module stays light to import)."""

from __future__ import annotations

import re
from typing import Any

from controlplane.core.naming import Deployment
from controlplane.models.errors import ForeignResourceError

VERSION = "2012-10-17"
# The principals of EKS (cluster role), SageMaker (HyperPod's execution role, the inference operator) and EKS Pod
# Identity (operators).
EKS_SERVICE_PRINCIPAL = "eks.amazonaws.com"
SAGEMAKER_PRINCIPAL = "sagemaker.amazonaws.com"
POD_IDENTITY_PRINCIPAL = "pods.eks.amazonaws.com"
# The AWS services that assume the roles the control plane creates: EKS (cluster role), SageMaker (HyperPod
# execution role, inference operator), EKS Pod Identity (operators' roles), HyperPod autoscaling.
TRUSTED_SERVICES = frozenset(
    {EKS_SERVICE_PRINCIPAL, SAGEMAKER_PRINCIPAL, POD_IDENTITY_PRINCIPAL, "hyperpod.sagemaker.amazonaws.com"}
)
TRUST_ACTIONS = frozenset({"sts:AssumeRole", "sts:TagSession", "sts:AssumeRoleWithWebIdentity"})

# AWS managed policies the roles the control plane creates are made for (ARNs: `Deployment.managed_policy_arn`).
# The EKS cluster role's:
EKS_CLUSTER_POLICY = "AmazonEKSClusterPolicy"
# The HyperPod execution role's. On EKS a HyperPod node runs with its execution role: beyond HyperPod's instance
# policy, the VPC CNI's network-interface actions, ECR image pulls and EKS Pod Identity's token exchange (EKS User
# Guide, "Amazon EKS node IAM role"; the HyperPod Developer Guide lists the same actions for an EKS cluster's execution
# role). Without them pods get no IP and no image.
INSTANCE_POLICY = "AmazonSageMakerClusterInstanceRolePolicy"
EXECUTION_ROLE_POLICIES = {
    INSTANCE_POLICY: "HyperPod's logs, metrics and lifecycle scripts",
    "AmazonEKS_CNI_Policy": "the VPC CNI's network-interface actions (ec2:AssignPrivateIpAddresses, "
    "ec2:CreateNetworkInterface, …)",
    "AmazonEC2ContainerRegistryPullOnly": "ECR image pulls (ecr:GetAuthorizationToken, ecr:BatchGetImage, "
    "ecr:GetDownloadUrlForLayer)",
    "AmazonEKSWorkerNodeMinimalPolicy": "EKS Pod Identity (eks-auth:AssumeRoleForPodIdentity)",
}
TRAINING_OPERATOR_POLICY = "AmazonSageMakerHyperPodTrainingOperatorAccess"
FSX_CSI_POLICY = "AmazonFSxFullAccess"
# AWS's policy for the inference operator; it grants the TLS certificate work on buckets named hyperpod-tls*.
INFERENCE_OPERATOR_POLICY = "AmazonSageMakerHyperPodInferenceAccess"
OBSERVABILITY_POLICIES = ("AmazonPrometheusRemoteWriteAccess", "CloudWatchAgentServerPolicy")
# EKS access policies (cluster scope) of the control plane's access entries, by name.
ADMIN_ACCESS_POLICY = "AmazonEKSClusterAdminPolicy"
VIEW_ACCESS_POLICY = "AmazonEKSViewPolicy"


def service_trust(service_principal: str, actions: tuple[str, ...] = ("sts:AssumeRole",)) -> dict[str, Any]:
    """Trust an AWS service (e.g. eks.amazonaws.com) to assume the role."""
    action: str | list[str] = actions[0] if len(actions) == 1 else list(actions)
    return {
        "Version": VERSION,
        "Statement": [{"Effect": "Allow", "Principal": {"Service": service_principal}, "Action": action}],
    }


def service_statement(service_principal: str, source_arn: str) -> dict[str, Any]:
    """A trust statement for an AWS service acting for resources of one account and Region (confused deputy)."""
    return {
        "Effect": "Allow",
        "Principal": {"Service": service_principal},
        "Action": "sts:AssumeRole",
        "Condition": {"ArnLike": {"aws:SourceArn": source_arn}},
    }


def web_identity_trust(provider_arn: str, issuer_url: str, namespace: str, service_account: str) -> dict[str, Any]:
    """IRSA: trust exactly one Kubernetes ServiceAccount of one cluster, through the cluster's OIDC provider."""
    issuer = issuer_url.removeprefix("https://")
    return {
        "Version": VERSION,
        "Statement": [
            {
                "Effect": "Allow",
                "Principal": {"Federated": provider_arn},
                "Action": "sts:AssumeRoleWithWebIdentity",
                "Condition": {
                    "StringEquals": {
                        f"{issuer}:aud": "sts.amazonaws.com",
                        f"{issuer}:sub": f"system:serviceaccount:{namespace}:{service_account}",
                    }
                },
            }
        ],
    }


def s3_bucket_access(deployment: Deployment, bucket_patterns: list[str]) -> dict[str, Any]:
    """Read and write objects in the named buckets (Mountpoint for S3 needs list, get, put, delete)."""
    buckets = [deployment.bucket_arn(pattern) for pattern in bucket_patterns]
    return {
        "Version": VERSION,
        "Statement": [
            {"Sid": "ListBuckets", "Effect": "Allow", "Action": ["s3:ListBucket"], "Resource": buckets},
            {
                "Sid": "ReadWriteObjects",
                "Effect": "Allow",
                "Action": ["s3:GetObject", "s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload"],
                "Resource": [f"{bucket}/*" for bucket in buckets],
            },
        ],
    }


def eks_oidc_provider(partition: str, dns_suffix: str, account: str) -> re.Pattern[str]:
    """The ARNs of the account's EKS OIDC providers in a partition, whose DNS suffix (`amazonaws.com.cn` in aws-cn)
    ends the issuer host: `arn:aws-cn:iam::<account>:oidc-provider/oidc.eks.cn-north-1.amazonaws.com.cn/id/<ID>`."""
    return re.compile(
        rf"^arn:{re.escape(partition)}:iam::{re.escape(account)}:oidc-provider/"
        rf"oidc\.eks\.[a-z0-9-]+\.{re.escape(dns_suffix)}/id/[A-Za-z0-9]+$"
    )


def check_trust_policy(trust_policy: dict[str, Any], account: str, partition: str, dns_suffix: str) -> None:
    """Refuse a trust policy that lets anyone but the expected AWS services, or an EKS OIDC provider of this
    account and partition (`dns_suffix`: the partition's) scoped to one service account, assume the role."""
    providers = eks_oidc_provider(partition, dns_suffix, account)
    for statement in trust_policy.get("Statement", []):
        actions = statement.get("Action")
        actions = [actions] if isinstance(actions, str) else list(actions or [])
        principal = statement.get("Principal")
        if statement.get("Effect") != "Allow" or not actions or not set(actions) <= TRUST_ACTIONS:
            raise ForeignResourceError(f"Trust statement {statement} allows more than assuming the role.")
        if not isinstance(principal, dict) or len(principal) != 1:
            raise ForeignResourceError(f"Trust statement {statement} must name one service or one OIDC provider.")
        if "Service" in principal:
            services = principal["Service"]
            services = [services] if isinstance(services, str) else list(services)
            untrusted = sorted(set(services) - TRUSTED_SERVICES)
            if untrusted:
                raise ForeignResourceError(f"Trust policy names services the control plane never trusts: {untrusted}.")
            continue
        if providers.match(str(principal.get("Federated", ""))) is None:
            raise ForeignResourceError(
                f"Trust policy names {principal}, not an EKS OIDC provider of account {account} in {partition}."
            )
        subjects = [key for key in statement.get("Condition", {}).get("StringEquals", {}) if key.endswith(":sub")]
        if not subjects:
            raise ForeignResourceError("A web-identity trust must be scoped to one Kubernetes service account (:sub).")
