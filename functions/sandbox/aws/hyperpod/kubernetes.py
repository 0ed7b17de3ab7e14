"""What a HyperPod cluster shows inside its EKS cluster: a ``Node`` per instance, and managed Karpenter's CRDs.

Writes go through :meth:`KubernetesEmulator.store` of the EKS cluster named by the HyperPod cluster's
orchestrator; a cluster without one (or a node before it has an instance) shows nothing.
"""

from __future__ import annotations

import time
import uuid
from datetime import UTC, datetime
from typing import Any

from controlplane.models.instance_types import instance_type as lookup_instance_type
from sandbox.aws.hyperpod import queues
from sandbox.aws.hyperpod.access import NOT_READY_MESSAGE, NOT_READY_REASON, NOT_READY_TAINT
from sandbox.aws.hyperpod.model import Cluster, ComputeQuota, InstanceGroup, Node, SchedulerConfig, Taint
from sandbox.k8s import kueue
from sandbox.k8s.crds import published_crd
from sandbox.k8s.emulator import ClusterStore, KubernetesEmulator

JsonObject = dict[str, Any]

HEALTH_LABEL = "sagemaker.amazonaws.com/node-health-status"
GROUP_LABEL = "sagemaker.amazonaws.com/instance-group-name"
# The Karpenter kinds HyperPod's managed autoscaling serves in the EKS cluster while AutoScaling is enabled
# (group, plural, kind). Installing them with AutoScaling and removing them with it is [inferred].
# Karpenter's NodePool is served with its published schema; HyperPod publishes none for its HyperpodNodeClass.
PUBLISHED_NODE_POOLS = "nodepools.karpenter.sh"
KARPENTER_KINDS = (
    ("karpenter.sagemaker.amazonaws.com", "hyperpodnodeclasses", "HyperpodNodeClass"),
    ("karpenter.sh", "nodepools", "NodePool"),
    ("karpenter.sh", "nodeclaims", "NodeClaim"),
)


def hostname(region: str, ip: str) -> str:
    return f"ip-{ip.replace('.', '-')}.{region}.compute.internal"


def kubernetes_taint(taint: Taint) -> JsonObject:
    result = {"key": taint.key, "effect": taint.effect}
    if taint.value is not None:
        result["value"] = taint.value
    return result


class HyperPodKubernetes:
    """Keeps each HyperPod node's ``Node`` object (labels, taints, readiness) in its EKS cluster."""

    def __init__(self, emulator: KubernetesEmulator) -> None:
        self._emulator = emulator

    def _store(self, cluster: Cluster) -> ClusterStore | None:
        name = cluster.settings.eks_cluster_name
        return None if name is None else self._emulator.store(name)

    def put_node(self, cluster: Cluster, group: InstanceGroup, node: Node) -> None:
        store = self._store(cluster)
        if store is not None:
            store.put(_node_object(cluster, group, node))

    def patch_node(
        self,
        cluster: Cluster,
        node: Node,
        labels: dict[str, str] | None = None,
        drop_labels: list[str] | None = None,
        taints: tuple[list[JsonObject], list[JsonObject]] | None = None,
        ready: str | None = None,
    ) -> None:
        """Set and drop labels, swap taints (old for new) and set the Ready condition of a node's object."""
        store = self._store(cluster)
        obj = None if store is None else store.get("", "v1", "nodes", None, node.kubernetes_name)
        if store is None or obj is None:
            return
        meta_labels = obj["metadata"].setdefault("labels", {})
        for key in drop_labels or []:
            meta_labels.pop(key, None)
        meta_labels.update(labels or {})
        if taints is not None:
            old, new = taints
            old_keys = {(taint["key"], taint.get("effect")) for taint in old + new}
            kept = [t for t in obj["spec"].get("taints") or [] if (t["key"], t.get("effect")) not in old_keys]
            obj["spec"]["taints"] = kept + new
        if ready is not None:
            for condition in obj.get("status", {}).get("conditions", []):
                if condition["type"] == "Ready":
                    condition["status"] = ready
                    condition["lastTransitionTime"] = _rfc3339(time.time())
        store.put(obj)

    def set_network_ready(self, cluster: Cluster, node: Node) -> None:
        """The node's CNI has initialised: the kubelet reports it Ready and the not-ready taint goes."""
        store = self._store(cluster)
        obj = None if store is None else store.get("", "v1", "nodes", None, node.kubernetes_name)
        if store is None or obj is None:
            return
        obj["spec"]["taints"] = [t for t in obj["spec"].get("taints") or [] if t["key"] != NOT_READY_TAINT["key"]]
        obj["status"]["conditions"] = [_ready_condition(node, _rfc3339(time.time()))]
        store.put(obj)

    def remove_node(self, cluster: Cluster, node: Node) -> None:
        name = cluster.settings.eks_cluster_name
        if name is not None and name in self._emulator.clusters():
            self._emulator.store(name).delete("", "v1", "nodes", None, node.kubernetes_name)

    def apply_group_config(self, cluster: Cluster, group: InstanceGroup) -> None:
        """Bring the group's nodes to its desired labels and taints (what DescribeCluster calls Current)."""
        desired_labels = dict(group.spec.labels)
        desired_taints = group.spec.taints
        if desired_labels != group.current_labels or desired_taints != group.current_taints:
            dropped = [key for key in group.current_labels if key not in desired_labels]
            swap = ([kubernetes_taint(t) for t in group.current_taints], [kubernetes_taint(t) for t in desired_taints])
            for node in cluster.group_nodes(group.name):
                self.patch_node(cluster, node, labels=desired_labels, drop_labels=dropped, taints=swap)
        group.current_labels = desired_labels
        group.current_taints = desired_taints

    def put_team_queue(self, cluster: Cluster, quota: ComputeQuota) -> None:
        """The task governance add-on reconciles a compute quota into its team's namespace (which outlives the quota,
        as its workloads may), the Kueue queues and the flavors of its instance types (`queues`); Kueue is served
        from the first one [inferred: the add-on's controller does this on each quota change]."""
        store = self._store(cluster)
        if store is None:
            return
        kueue.serve(store)
        for obj in (queues.team_namespace(quota.team), *queues.flavors(quota), queues.cluster_queue(quota)):
            store.put(obj)
        store.put(queues.local_queue(quota.team))

    def remove_team_queue(self, cluster: Cluster, team: str) -> None:
        """A deleted quota's queues go; its namespace and the flavors (which other teams may use) stay [inferred]."""
        store = self._store(cluster)
        if (
            store is None
            or store.get("apiextensions.k8s.io", "v1", "customresourcedefinitions", None, f"workloads.{kueue.GROUP}")
            is None
        ):
            return
        store.delete(kueue.GROUP, kueue.VERSION, "localqueues", queues.namespace(team), queues.local_queue_name(team))
        store.delete(kueue.GROUP, kueue.VERSION, "clusterqueues", None, queues.cluster_queue_name(team))

    def put_priority_classes(self, cluster: Cluster, config: SchedulerConfig | None) -> None:
        """The scheduler config's priority classes as WorkloadPriorityClasses; those it no longer names go."""
        store = self._store(cluster)
        if store is None:
            return
        kueue.serve(store)
        wanted = queues.priority_classes(config) if config is not None else []
        names = {obj["metadata"]["name"] for obj in wanted}
        selector = f"{queues.MANAGED_QUEUE_LABEL}=true"
        for found in store.list(kueue.GROUP, kueue.VERSION, "workloadpriorityclasses", label_selector=selector):
            if found["metadata"]["name"] not in names:
                store.delete(kueue.GROUP, kueue.VERSION, "workloadpriorityclasses", None, found["metadata"]["name"])
        for obj in wanted:
            store.put(obj)

    def serve_karpenter(self, cluster: Cluster, enabled: bool) -> None:
        """Managed Karpenter's CRDs appear while AutoScaling is enabled and go when it is disabled."""
        store = self._store(cluster)
        if store is None:
            return
        for group, plural, kind in KARPENTER_KINDS:
            if not enabled:
                store.delete("apiextensions.k8s.io", "v1", "customresourcedefinitions", None, f"{plural}.{group}")
                continue
            if f"{plural}.{group}" == PUBLISHED_NODE_POOLS:
                store.put(published_crd(PUBLISHED_NODE_POOLS))
                continue
            version = {
                "name": "v1",
                "served": True,
                "storage": True,
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}},
                "subresources": {"status": {}},
            }
            names = {"plural": plural, "singular": kind.lower(), "kind": kind, "listKind": f"{kind}List"}
            store.put(
                {
                    "apiVersion": "apiextensions.k8s.io/v1",
                    "kind": "CustomResourceDefinition",
                    "metadata": {"name": f"{plural}.{group}"},
                    "spec": {"group": group, "names": names, "scope": "Cluster", "versions": [version]},
                }
            )


def _node_object(cluster: Cluster, group: InstanceGroup, node: Node) -> JsonObject:
    """The ``Node`` a HyperPod instance registers: capacity from its instance type, HyperPod's labels."""
    facts = lookup_instance_type(node.instance_type)
    vcpus, memory = (facts.vcpus, facts.memory_gib) if facts else (4, 16)
    capacity = {"cpu": str(vcpus), "memory": f"{memory}Gi", "pods": "110", "ephemeral-storage": "500Gi"}
    if facts and facts.gpus:
        resource = "nvidia.com/gpu" if facts.accelerator.startswith("nvidia") else "aws.amazon.com/neuron"
        capacity[resource] = str(facts.gpus)
    if facts and facts.efa_interfaces:
        capacity["vpc.amazonaws.com/efa"] = str(facts.efa_interfaces)
    allocatable = dict(capacity, cpu=f"{vcpus * 1000 - 100}m", memory=f"{int(memory * 0.95)}Gi")
    host = hostname(cluster.region, node.private_ip)
    labels = {
        "kubernetes.io/arch": "amd64",
        "kubernetes.io/os": "linux",
        "kubernetes.io/hostname": host,
        "node.kubernetes.io/instance-type": node.instance_type,
        "topology.kubernetes.io/region": cluster.region,
        "topology.kubernetes.io/zone": node.zone,
        "topology.k8s.aws/zone-id": node.zone_id,
        GROUP_LABEL: group.name,
        HEALTH_LABEL: node.health,
        "sagemaker.amazonaws.com/compute-type": "hyperpod",
        "sagemaker.amazonaws.com/capacity-type": node.capacity_type,
        "sagemaker.amazonaws.com/cluster-name": cluster.name,
        "sagemaker.amazonaws.com/node-logical-id": node.logical_id,
        **group.spec.labels,
    }
    ready = _ready_condition(node, _rfc3339(time.time()))
    taints = [kubernetes_taint(taint) for taint in group.spec.taints]
    if node.missing_permissions:
        taints.append(dict(NOT_READY_TAINT))
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": node.kubernetes_name, "labels": labels},
        "spec": {
            "providerID": f"aws:///{node.zone}/{node.instance_id}",
            "taints": taints,
        },
        "status": {
            "capacity": capacity,
            "allocatable": allocatable,
            "conditions": [ready],
            "addresses": [{"type": "InternalIP", "address": node.private_ip}, {"type": "Hostname", "address": host}],
            # Every field the API marks required (the official client refuses a Node without them).
            "nodeInfo": {
                "architecture": "amd64",
                "bootID": str(uuid.uuid5(uuid.NAMESPACE_URL, node.instance_id)),
                "containerRuntimeVersion": "containerd://1.7.27",
                "kernelVersion": "6.1.134-152.225.amzn2023.x86_64",
                "kubeProxyVersion": "v1.34.0-eks",
                "kubeletVersion": "v1.34.0-eks",
                "machineID": node.instance_id.removeprefix("i-").ljust(32, "0"),
                "operatingSystem": "linux",
                "osImage": "Amazon Linux 2023",
                "systemUUID": str(uuid.uuid5(uuid.NAMESPACE_DNS, node.instance_id)),
            },
        },
    }


def _ready_condition(node: Node, now: str) -> JsonObject:
    """The kubelet's Ready condition: not Ready while the execution role keeps the CNI from initialising."""
    if node.missing_permissions:
        status, reason, message = "False", NOT_READY_REASON, NOT_READY_MESSAGE
    else:
        status, reason, message = "True", "KubeletReady", "kubelet is posting ready status"
    return {
        "type": "Ready",
        "status": status,
        "reason": reason,
        "message": message,
        "lastHeartbeatTime": now,
        "lastTransitionTime": now,
    }


def _rfc3339(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
