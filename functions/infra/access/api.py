"""The REST API function's role: the reads behind validation, pre-flight, cost and every live view; starting and
stopping this deployment's workflows; reading clusters through the view role and writing jobs through the jobs role;
and the API's own tables. It creates nothing in AWS itself (changes run in the workflows) but the training plan a person
confirmed, and task governance's quotas and scheduler config: one SageMaker call each, nothing to stage."""

from __future__ import annotations

from controlplane.access.ec2 import describe
from controlplane.access.eks import (
    DESCRIBE_ADDON_VERSIONS,
    DESCRIBE_ADDONS,
    DESCRIBE_EKS_CLUSTER,
)
from controlplane.access.grant import NO_RESOURCE_LEVEL_REASON, FunctionAccess, Grant
from controlplane.access.hyperpod import (
    DESCRIBE_HYPERPOD,
    MANAGE_COMPUTE_QUOTAS,
    MANAGE_SCHEDULER_CONFIGS,
    READ_ACTIVITY,
    READ_NODES,
    TRAINING_PLANS,
    TRAINING_PLANS_REASON,
)
from controlplane.access.s3 import buckets
from controlplane.access.workflows import EXECUTIONS, EXECUTIONS_REASON, START_EXECUTION
from infra.access.kubernetes import ASSUME_JOBS_ROLE, ASSUME_VIEW_ROLE
from steps.features import FEATURE_READS

_PREFLIGHT_QUOTAS = tuple(
    f"arn:{{partition}}:servicequotas:*:{{account}}:{service}/*" for service in ("sagemaker", "vpc", "ec2", "eks")
)
_PREFLIGHT_QUOTAS_REASON = (
    "Pre-flight reads the applied value of quotas it finds by name (SageMaker cluster usage per instance type, VPC, "
    "EC2 and EKS quotas), so their codes are not known in advance; only these four services' quotas, read-only"
)

API_ACCESS = FunctionAccess(
    (
        # Request validation and the catalog: zones, VPC CIDRs in use, instance offerings, training plans.
        describe("DescribeVpcs", "DescribeAvailabilityZones", "DescribeInstanceTypeOfferings"),
        Grant(("sagemaker:ListTrainingPlans",), ("*",), reason=NO_RESOURCE_LEVEL_REASON),
        Grant(("sagemaker:DescribeTrainingPlan",), TRAINING_PLANS, reason=TRAINING_PLANS_REASON),
        # Buying a training plan: its offerings, and reserving one the person confirmed at its price.
        Grant(("sagemaker:SearchTrainingPlanOfferings",), ("*",), reason=NO_RESOURCE_LEVEL_REASON),
        Grant(
            ("sagemaker:CreateTrainingPlan",),
            TRAINING_PLANS,
            reason="The person names the training plan at run time; the API creates it only with their confirmation "
            "of its upfront fee",
        ),
        # Pre-flight: the quotas a request needs (found by name, read by code) and the usage counted against them,
        # every resource of the Region (HyperPod instances of any cluster, VPCs, gateways, addresses, EKS clusters).
        Grant(("servicequotas:GetServiceQuota",), _PREFLIGHT_QUOTAS, reason=_PREFLIGHT_QUOTAS_REASON),
        # The quota lists and usage counts of pre-flight, and the on-demand prices of GET …/cost (Price List API).
        Grant(
            ("servicequotas:ListServiceQuotas", "sagemaker:ListClusters", "eks:ListClusters", "pricing:GetProducts"),
            ("*",),
            reason=NO_RESOURCE_LEVEL_REASON,
        ),
        describe("DescribeInternetGateways", "DescribeAddresses", "DescribeNatGateways", "DescribeSubnets"),
        # Live reads behind cluster detail, status, instance groups and nodes.
        DESCRIBE_EKS_CLUSTER,
        DESCRIBE_HYPERPOD,
        # The node list, and each node a node action names (checked before its operation starts).
        READ_NODES,
        READ_ACTIVITY,
        # Nodes' Ready state and health labels, and the pods an instance-group deletion would strand: read through
        # the view role.
        ASSUME_VIEW_ROLE,
        # Submitting and deleting training jobs and managed endpoints: signed as the jobs role (RBAC: job and
        # endpoint objects, nothing else).
        ASSUME_JOBS_ROLE,
        # Chat with a managed inference endpoint: the SageMaker endpoint its operator registered (is-<tag>-<name>).
        Grant(
            ("sagemaker:InvokeEndpoint",),
            ("arn:{partition}:sagemaker:*:{account}:endpoint/is-*",),
            reason="Managed endpoints are named is-<clusterTag>-<name> at run time, in the Region of their cluster; "
            "the API only invokes them",
        ),
        START_EXECUTION,
        # /clusters/{clusterTag}/teams and …/scheduler-policy: the teams' compute quotas and the scheduler config
        # (one call each, like a job's submission).
        *MANAGE_COMPUTE_QUOTAS,
        *MANAGE_SCHEDULER_CONFIGS,
        # GET /clusters/{clusterTag}/mlflow-tracking-servers, and the tracking server a recipe job chooses.
        Grant(("sagemaker:ListMlflowTrackingServers",), ("*",), reason=NO_RESOURCE_LEVEL_REASON),
        Grant(
            ("sagemaker:DescribeMlflowTrackingServer",),
            ("arn:{partition}:sagemaker:*:{account}:mlflow-tracking-server/*",),
            reason="A job may log to any MLflow tracking server of the account (the person chooses it by name); "
            "the API only reads its ARN",
        ),
        # GET /clusters/{clusterTag}/features reads every feature live (the PATCH diffs against it); POST …/drift
        # reads the add-on versions EKS offers when an add-on is not at its pin.
        DESCRIBE_ADDONS,
        DESCRIBE_ADDON_VERSIONS,
        *FEATURE_READS,
        # GET /clusters/{clusterTag}/storage/contents lists the S3 claim's keys.
        *buckets(
            ("s3:ListBucket",),
            ("arn:{partition}:s3:::*",),
            "The S3 claim may be any bucket of this account that the storage stage mounted (its own or one the "
            "caller named); the API only lists its keys",
        ),
        Grant(("states:StopExecution",), EXECUTIONS, reason=EXECUTIONS_REASON),
    ),
    tables=(
        "operations_table",
        "clusters_table",
        "audit_table",
        "confirmations_table",
        "idempotency_table",
        "recipe_values_table",
        "drift_table",
    ),
)
