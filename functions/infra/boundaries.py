"""The permissions boundaries of the roles the steps create: ceilings, never grants. A step creates a role only with
one of them attached (the grants' conditions, `controlplane.access.conditions`); their ARNs are settings of the
steps' functions and of the API, whose feature reads build the same services."""

from __future__ import annotations

from aws_cdk import Aws
from aws_cdk import aws_iam as iam
from constructs import Construct

from infra.nag import Acknowledgements
from infra.parts import Part

# What the service boundary denies: every way to create or widen an identity or a policy.
IDENTITY_CHANGES = (
    "iam:AddUserToGroup",
    "iam:AttachGroupPolicy",
    "iam:AttachRolePolicy",
    "iam:AttachUserPolicy",
    "iam:CreateAccessKey",
    "iam:CreateLoginProfile",
    "iam:CreateOpenIDConnectProvider",
    "iam:CreatePolicy",
    "iam:CreatePolicyVersion",
    "iam:CreateRole",
    "iam:CreateSAMLProvider",
    "iam:CreateUser",
    "iam:DeleteRolePermissionsBoundary",
    "iam:DeleteUserPermissionsBoundary",
    "iam:PutGroupPolicy",
    "iam:PutRolePermissionsBoundary",
    "iam:PutRolePolicy",
    "iam:PutUserPermissionsBoundary",
    "iam:PutUserPolicy",
    "iam:SetDefaultPolicyVersion",
    "iam:UpdateAssumeRolePolicy",
    "iam:UpdateLoginProfile",
)
# What the training jobs' role may do at most: the SageMaker managed MLflow tracking API.
MLFLOW_ACTIONS = "sagemaker-mlflow:*"


class Boundaries(Part):
    """`workload`, `autoscaling` and `service`: the three ceilings, as managed policies."""

    def __init__(self, scope: Construct, construct_id: str, *, acks: Acknowledgements) -> None:
        super().__init__(scope, construct_id)
        self._acks = acks
        self.workload = self._workload()
        self.autoscaling = self._autoscaling()
        self.service = self._service()

    def _workload(self) -> iam.ManagedPolicy:
        """The ceiling of every role the control plane creates for workloads with its own policies (the S3 CSI
        driver's and tiered checkpointing's IRSA roles, the training jobs' pod identity role): whatever policy a step
        writes, the role can never do more than this."""
        mlflow_servers = f"arn:{Aws.PARTITION}:sagemaker:*:{Aws.ACCOUNT_ID}:mlflow-tracking-server/*"
        boundary = iam.ManagedPolicy(
            self,
            "WorkloadRoleBoundary",
            description="InstantStart: permissions boundary of the roles created for cluster workloads",
            statements=[
                iam.PolicyStatement(
                    actions=[
                        "s3:ListBucket",
                        "s3:GetObject",
                        "s3:PutObject",
                        "s3:DeleteObject",
                        "s3:AbortMultipartUpload",
                    ],
                    resources=["*"],
                    conditions={"StringEquals": {"s3:ResourceAccount": Aws.ACCOUNT_ID}},
                ),
                iam.PolicyStatement(
                    actions=[
                        "cloudwatch:PutMetricData",
                        "logs:CreateLogGroup",
                        "logs:CreateLogStream",
                        "logs:PutLogEvents",
                    ],
                    resources=["*"],
                ),
                iam.PolicyStatement(actions=[MLFLOW_ACTIONS], resources=[mlflow_servers]),
            ],
        )
        mlflow_reason = (
            "A permissions boundary is a ceiling, not a grant: the training jobs' role (trainingOperator feature) "
            "logs runs, metrics and artifacts to SageMaker managed MLflow, whose API is the sagemaker-mlflow service "
            "alone; the ceiling admits it only on this account's tracking servers, and the role's own policy names "
            "its cluster's Region"
        )
        self._acks.add(boundary, f"AwsSolutions-IAM5[Action::{MLFLOW_ACTIONS}]", mlflow_reason)
        self._acks.wildcard_resources(boundary, [MLFLOW_ACTIONS], [mlflow_servers], mlflow_reason)
        self._acks.add(
            boundary,
            "AwsSolutions-IAM5[Resource::*]",
            "A permissions boundary is a ceiling, not a grant: each workload role's own inline policy names "
            "its buckets, and the boundary keeps any such policy to S3 object access on this account's buckets "
            "(s3:ResourceAccount), metrics and logs",
        )
        return boundary

    def _autoscaling(self) -> iam.ManagedPolicy:
        """The ceiling of the ClusterRole the karpenter feature creates for HyperPod autoscaling: whatever policy
        the step writes, HyperPod can do no more with the role than add and delete nodes of HyperPod clusters."""
        actions = ["sagemaker:BatchAddClusterNodes", "sagemaker:BatchDeleteClusterNodes"]
        clusters = [f"arn:{Aws.PARTITION}:sagemaker:*:{Aws.ACCOUNT_ID}:cluster/*"]
        boundary = iam.ManagedPolicy(
            self,
            "AutoscalingRoleBoundary",
            description="InstantStart: permissions boundary of HyperPod autoscaling cluster roles",
            statements=[iam.PolicyStatement(actions=actions, resources=clusters)],
        )
        self._acks.wildcard_resources(
            boundary,
            actions,
            clusters,
            "A permissions boundary is a ceiling, not a grant: each autoscaling role's own inline policy names its "
            "one cluster, and the boundary keeps any such policy to node batch actions on this account's clusters",
        )
        return boundary

    def _service(self) -> iam.ManagedPolicy:
        """The ceiling of the roles AWS services and operators assume with AWS managed policies attached (the EKS
        cluster role, the HyperPod execution role, the training, FSx CSI, observability and inference operators'
        roles): whatever those policies grant, the role can never change IAM identities or policies (service-linked
        roles aside), and never touch a bucket of another account."""
        service_linked = f"arn:{Aws.PARTITION}:iam::{Aws.ACCOUNT_ID}:role/aws-service-role/*"
        boundary = iam.ManagedPolicy(
            self,
            "ServiceRoleBoundary",
            description="InstantStart: permissions boundary of service and operator roles created for clusters",
            statements=[
                iam.PolicyStatement(sid="AwsManagedPoliciesCeiling", actions=["*"], resources=["*"]),
                iam.PolicyStatement(
                    sid="NoIdentityChanges",
                    effect=iam.Effect.DENY,
                    actions=list(IDENTITY_CHANGES),
                    not_resources=[service_linked],
                ),
                iam.PolicyStatement(
                    sid="NoBucketsOfOtherAccounts",
                    effect=iam.Effect.DENY,
                    actions=["s3:*"],
                    resources=["*"],
                    conditions={"StringNotEquals": {"s3:ResourceAccount": Aws.ACCOUNT_ID}},
                ),
            ],
        )
        reason = (
            "A permissions boundary is a ceiling, not a grant: these roles hold only the AWS managed policies the "
            "steps may attach (iam:PolicyARN condition); the boundary's denials are what it adds: no IAM identity "
            "or policy changes and no S3 access outside this account"
        )
        self._acks.add(boundary, "AwsSolutions-IAM5[Action::*]", reason)
        self._acks.add(boundary, "AwsSolutions-IAM5[Resource::*]", reason)
        return boundary
