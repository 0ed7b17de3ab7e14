"""The Kueue objects HyperPod's task governance add-on keeps for a cluster's compute quotas and scheduler config.

Per team (a compute quota): its namespace `hyperpod-ns-<team>` labelled as the add-on labels it, a ClusterQueue
`hyperpod-ns-<team>-clusterqueue` with the quota's nominal quota per instance type, and a LocalQueue
`hyperpod-ns-<team>-localqueue` in the namespace [src: aws/sagemaker-hyperpod-cli, constants/command_constants.py
(HYPERPOD_NAMESPACE_PREFIX, SAGEMAKER_MANAGED_LOCAL_QUEUE_SUFFIX, SAGEMAKER_MANAGED_CLUSTER_QUEUE_SUFFIX,
SAGEMAKER_QUOTA_ALLOCATION_LABEL) and commands/cluster.py, which reads a queue's flavors by instance type and its
`status.flavorsUsage`]. Per instance type a ResourceFlavor of that name selecting its nodes; per priority class of the
scheduler config a WorkloadPriorityClass `<name>-priority` whose value is the class's weight.
[inferred]: the cohort's name, the resources covered (the type's GPUs or Neuron devices, EFA, vCPUs, memory: a
quota's Count times the type's), and the sharing strategy as limits: Lend may not borrow, DontLend neither lends nor
borrows, LendAndBorrow may borrow BorrowLimit % of its quota (all the cohort lends when unset); a deactivated quota
holds its queue (stopPolicy Hold).
"""

from __future__ import annotations

import math

from controlplane.models.instance_types import instance_type as lookup_instance_type
from sandbox.aws.hyperpod.model import ComputeQuota, JsonObject, SchedulerConfig

API_VERSION = "kueue.x-k8s.io/v1beta1"
COHORT = "sagemaker-hyperpod-cohort"
MANAGED_QUEUE_LABEL = "sagemaker.amazonaws.com/sagemaker-managed-queue"
QUOTA_ALLOCATION_LABEL = "sagemaker.amazonaws.com/quota-allocation-id"
INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type"
RESOURCES = ("nvidia.com/gpu", "aws.amazon.com/neuron", "vpc.amazonaws.com/efa", "cpu", "memory")


def namespace(team: str) -> str:
    return f"hyperpod-ns-{team}"


def cluster_queue_name(team: str) -> str:
    return f"{namespace(team)}-clusterqueue"


def local_queue_name(team: str) -> str:
    return f"{namespace(team)}-localqueue"


def team_namespace(team: str) -> JsonObject:
    labels = {MANAGED_QUEUE_LABEL: "true", QUOTA_ALLOCATION_LABEL: team}
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace(team), "labels": labels}}


def flavors(quota: ComputeQuota) -> list[JsonObject]:
    return [
        {
            "apiVersion": API_VERSION,
            "kind": "ResourceFlavor",
            "metadata": {"name": resource["InstanceType"]},
            "spec": {"nodeLabels": {INSTANCE_TYPE_LABEL: resource["InstanceType"]}},
        }
        for resource in quota.config.get("ComputeQuotaResources") or []
    ]


def cluster_queue(quota: ComputeQuota) -> JsonObject:
    config = quota.config
    sharing = config.get("ResourceSharingConfig") or {}
    strategy, borrow_limit = sharing.get("Strategy", "LendAndBorrow"), sharing.get("BorrowLimit")
    flavor_quotas = []
    for resource in config.get("ComputeQuotaResources") or []:
        nominal = _nominal(resource)
        entries = []
        for name in RESOURCES:
            entry: JsonObject = {"name": name, "nominalQuota": _quantity(name, nominal.get(name, 0))}
            if strategy != "LendAndBorrow":
                entry["borrowingLimit"] = "0"
            elif borrow_limit is not None:
                entry["borrowingLimit"] = _quantity(name, math.ceil(nominal.get(name, 0) * borrow_limit / 100))
            if strategy == "DontLend":
                entry["lendingLimit"] = "0"
            entries.append(entry)
        flavor_quotas.append({"name": resource["InstanceType"], "resources": entries})
    spec: JsonObject = {
        "cohort": COHORT,
        "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": namespace(quota.team)}},
        "queueingStrategy": "BestEffortFIFO",
        "resourceGroups": [{"coveredResources": list(RESOURCES), "flavors": flavor_quotas}],
        "preemption": {
            "reclaimWithinCohort": "Any",
            "withinClusterQueue": config.get("PreemptTeamTasks", "LowerPriority"),
        },
        "stopPolicy": "None" if quota.activation == "Enabled" else "Hold",
    }
    if quota.fair_share_weight is not None:
        spec["fairSharing"] = {"weight": str(quota.fair_share_weight)}
    return {
        "apiVersion": API_VERSION,
        "kind": "ClusterQueue",
        "metadata": {"name": cluster_queue_name(quota.team)},
        "spec": spec,
    }


def local_queue(team: str) -> JsonObject:
    return {
        "apiVersion": API_VERSION,
        "kind": "LocalQueue",
        "metadata": {"name": local_queue_name(team), "namespace": namespace(team)},
        "spec": {"clusterQueue": cluster_queue_name(team)},
    }


def priority_classes(config: SchedulerConfig) -> list[JsonObject]:
    return [
        {
            "apiVersion": API_VERSION,
            "kind": "WorkloadPriorityClass",
            "metadata": {"name": f"{priority['Name']}-priority", "labels": {MANAGED_QUEUE_LABEL: "true"}},
            "value": int(priority["Weight"]),
            "description": f"HyperPod task governance priority class {priority['Name']}",
        }
        for priority in config.config.get("PriorityClasses") or []
    ]


def _nominal(resource: JsonObject) -> dict[str, float]:
    """What one ComputeQuotaResourceConfig guarantees per Kueue resource: Count instances of the type, or the
    accelerators, vCPUs and memory it names."""
    facts = lookup_instance_type(resource["InstanceType"])
    count = resource.get("Count")
    accelerator = (
        "nvidia.com/gpu" if facts is None or facts.accelerator.startswith("nvidia") else "aws.amazon.com/neuron"
    )
    if count is not None and facts is not None:
        return {
            accelerator: count * facts.gpus,
            "vpc.amazonaws.com/efa": count * facts.efa_interfaces,
            "cpu": count * facts.vcpus,
            "memory": count * facts.memory_gib * 2**30,
        }
    return {
        accelerator: resource.get("Accelerators", 0),
        "cpu": resource.get("VCpu", 0),
        "memory": resource.get("MemoryInGiB", 0) * 2**30,
    }


def _quantity(name: str, amount: float) -> str:
    return f"{amount / 2**30:g}Gi" if name == "memory" else f"{amount:g}"
