"""The training jobs' own AWS identity, which the trainingOperator feature builds beside the operator's add-on: an
IAM role trusted by EKS Pod Identity for one ServiceAccount of the job namespace (`JOB_SERVICE_ACCOUNT`), allowed to
log to the account's SageMaker managed MLflow tracking servers in the cluster's Region; that ServiceAccount; and the
pod identity association between them. Job manifests run their pods as the ServiceAccount when it exists.

Closed both ways: `ensure` finishes a half-built chain; `remove` deletes exactly the links this feature owns (the
ServiceAccount by its feature label, the association when it names this role, the role by its ownership tags).
What a job may do is this one policy, within the workload permissions boundary: the API never creates roles and
cannot widen this one per request.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from controlplane.core.features.facts import ClusterFacts, labelled
from controlplane.core.identity import POD_IDENTITY_PRINCIPAL, VERSION, service_trust
from controlplane.core.naming import (
    JOB_ROLE_POLICY_NAME,
    JOB_SERVICE_ACCOUNT,
    Deployment,
    feature_labels,
    feature_tags,
    is_owned,
    job_role_name,
    owner,
)
from controlplane.core.ports.eks import EksGateway
from controlplane.core.ports.iam import IamGateway, IamRole
from controlplane.core.ports.kubernetes import KubernetesGateway
from controlplane.models.errors import ForeignResourceError
from controlplane.models.features import Feature
from controlplane.models.governance import team_namespace

OWNER = Feature.TRAINING_OPERATOR


def job_access(deployment: Deployment, region: str, account: str) -> dict[str, Any]:
    """What a job's pods may do: log to any MLflow tracking server of the account in the cluster's Region."""
    servers = f"arn:{deployment.partition}:sagemaker:{region}:{account}:mlflow-tracking-server/*"
    return {
        "Version": VERSION,
        "Statement": [
            {"Sid": "LogToMlflow", "Effect": "Allow", "Action": ["sagemaker-mlflow:*"], "Resource": [servers]}
        ],
    }


def job_trust(account: str, eks_cluster_name: str, namespace: str) -> dict[str, Any]:
    """EKS Pod Identity for the one ServiceAccount of one cluster, in the job namespace or a team's (`hyperpod-ns-*`,
    `core.governance.namespace`): the session tags the pod identity agent sets must name them, so no other
    association of the account can use the role."""
    trust = service_trust(POD_IDENTITY_PRINCIPAL, ("sts:AssumeRole", "sts:TagSession"))
    trust["Statement"][0]["Condition"] = {
        "StringEquals": {
            "aws:SourceAccount": account,
            "aws:RequestTag/eks-cluster-name": eks_cluster_name,
            "aws:RequestTag/kubernetes-service-account": JOB_SERVICE_ACCOUNT,
        },
        "StringLike": {"aws:RequestTag/kubernetes-namespace": [namespace, team_namespace("*")]},
    }
    return trust


@dataclass(frozen=True)
class JobIdentityState:
    """The chain's links as they are live: the role (if ours), the ServiceAccount (if ours), the association."""

    role: IamRole | None
    service_account: bool
    associated: bool
    namespace: str

    @property
    def complete(self) -> bool:
        return self.role is not None and self.service_account and self.associated

    @property
    def resources(self) -> list[str]:
        account = f"{self.namespace}/{JOB_SERVICE_ACCOUNT}"
        return (
            ([f"role {self.role.name}"] if self.role is not None else [])
            + ([f"ServiceAccount {account}"] if self.service_account else [])
            + ([f"pod identity association {account}"] if self.associated else [])
        )


class JobIdentity:
    """The chain above; its role is created within the stack's permissions boundary for workload roles."""

    def __init__(
        self, iam: IamGateway, eks: EksGateway, kubernetes: KubernetesGateway, workload_boundary_arn: str
    ) -> None:
        self._iam = iam
        self._eks = eks
        self._kubernetes = kubernetes
        self._workload_boundary_arn = workload_boundary_arn

    def state(self, facts: ClusterFacts) -> JobIdentityState:
        name = job_role_name(facts.deployment, facts.cluster_tag)
        role = self._iam.find_role(name)
        return JobIdentityState(
            role=role if role is not None and is_owned(facts.deployment, role.tags, facts.cluster_tag) else None,
            service_account=labelled(self._service_account(facts), OWNER),
            associated=self._associated_role(facts) == name,
            namespace=facts.job_namespace,
        )

    def ensure(self, facts: ClusterFacts) -> None:
        kubernetes = facts.require_kubernetes()
        name = job_role_name(facts.deployment, facts.cluster_tag)
        role = self._iam.find_role(name)
        if role is None:
            role = self._iam.create_role(
                name,
                job_trust(facts.account, facts.eks_name, facts.job_namespace),
                feature_tags(facts.deployment, facts.cluster_tag, OWNER),
                self._workload_boundary_arn,
            )
        elif not is_owned(facts.deployment, role.tags, facts.cluster_tag):
            raise ForeignResourceError(
                f"IAM role {name} exists but was not created by InstantStart. {owner(role.tags)}"
            )
        access = job_access(facts.deployment, facts.region, facts.account)
        if self._iam.role_policy(name, JOB_ROLE_POLICY_NAME) != access:
            self._iam.put_role_policy(name, JOB_ROLE_POLICY_NAME, access)
        account = self._service_account(facts)
        if account is None:
            self._kubernetes.apply(kubernetes, facts.region, [_account_object(facts.job_namespace)])
        elif not labelled(account, OWNER):
            raise ForeignResourceError(
                f"ServiceAccount {facts.job_namespace}/{JOB_SERVICE_ACCOUNT} exists but was not created by "
                "InstantStart; delete or rename it, then resume."
            )
        associated = self._associated_role(facts)
        if associated is None:
            self._eks.create_pod_identity_association(
                facts.eks_name,
                facts.job_namespace,
                JOB_SERVICE_ACCOUNT,
                role.arn,
                feature_tags(facts.deployment, facts.cluster_tag, OWNER),
            )
        elif associated != name:
            raise ForeignResourceError(
                f"{facts.job_namespace}/{JOB_SERVICE_ACCOUNT} already has a pod identity association with role "
                f"{associated}; remove it, then resume."
            )

    def remove(self, facts: ClusterFacts) -> None:
        """The ServiceAccount, the association and the role, each only if it is this feature's (without a cluster,
        only the role: the association went with the EKS cluster)."""
        if facts.kubernetes is not None and labelled(self._service_account(facts), OWNER):
            self._kubernetes.delete(facts.kubernetes, facts.region, [_account_object(facts.job_namespace)])
        name = job_role_name(facts.deployment, facts.cluster_tag)
        if facts.eks is not None and self._associated_role(facts) == name:
            self._eks.delete_pod_identity_association(facts.eks_name, facts.job_namespace, JOB_SERVICE_ACCOUNT)
        role = self._iam.find_role(name)
        if role is not None and is_owned(facts.deployment, role.tags, facts.cluster_tag):
            self._iam.delete_role(name)

    def _service_account(self, facts: ClusterFacts) -> dict[str, Any] | None:
        if facts.kubernetes is None:
            return None
        return self._kubernetes.get(
            facts.kubernetes, facts.region, "v1", "ServiceAccount", JOB_SERVICE_ACCOUNT, facts.job_namespace
        )

    def _associated_role(self, facts: ClusterFacts) -> str | None:
        """The name of the role the ServiceAccount's pod identity association names, if there is one."""
        if facts.eks is None:
            return None
        arn = self._eks.pod_identity_role(facts.eks_name, facts.job_namespace, JOB_SERVICE_ACCOUNT)
        return arn.rsplit("/", 1)[-1] if arn else None


def _account_object(namespace: str) -> dict[str, Any]:
    metadata = {"name": JOB_SERVICE_ACCOUNT, "namespace": namespace, "labels": feature_labels(OWNER)}
    return {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": metadata}
