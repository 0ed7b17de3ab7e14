"""The roles HyperPod on EKS runs with: the execution role's AWS managed policies (what a node needs) and the
training operator's Pod Identity role (its policy, namespace and service account).

Stage 4 creates both roles (`core.hyperpod.stage`); the cluster status names what a node lacks without them, the
import adopts the operator's association and the training-operator feature checks it. Not here: how the roles are
created, which is the stage's.
"""

from __future__ import annotations

# AWS managed policies of the execution and training-operator roles (ARNs: `Deployment.managed_policy_arn`). On EKS a
# HyperPod node runs with its execution role: beyond HyperPod's instance policy, the VPC CNI's network-interface
# actions, ECR image pulls and EKS Pod Identity's token exchange (EKS User Guide, "Amazon EKS node IAM role"; the
# HyperPod Developer Guide lists the same actions for an EKS cluster's execution role). Without them pods get no IP
# and no image.
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
TRAINING_OPERATOR_NAMESPACE = "aws-hyperpod"
TRAINING_OPERATOR_SERVICE_ACCOUNT = "hp-training-operator-controller-manager"
