"""What moto lacks for SageMaker HyperPod: a faithful cluster simulation behind the real API shapes.

moto 5.2.5 has a minimal, partly wrong cluster model (instance-type allowlist, dropped fields, no
``Creating`` state, ``ValidationException`` for missing clusters, no update or batch node APIs). This
extension replaces every cluster operation on ``SageMakerResponse`` (moto dispatches a JSON-protocol
action ``X-Amz-Target: SageMaker.CreateCluster`` to the method ``create_cluster``) and adds training
plans, keeping moto's other SageMaker features untouched.

State is kept per (account, region). Time advances lazily: every request (and :meth:`tick`) runs the
transitions that have come due, so no background thread exists. Nodes of EKS-orchestrated clusters
appear as Kubernetes ``Node`` objects in the :class:`~sandbox.k8s.emulator.KubernetesEmulator` store
of the EKS cluster named by ``Orchestrator.Eks.ClusterArn``.
"""

from __future__ import annotations

import copy
import json
import random
import secrets
import string
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from moto.core import DEFAULT_ACCOUNT_ID
from moto.ec2.exceptions import InvalidSubnetIdError
from moto.ec2.models import ec2_backends
from moto.eks.exceptions import ResourceNotFoundException as EksResourceNotFound
from moto.eks.models import eks_backends
from moto.sagemaker.responses import SageMakerResponse

from controlplane.models.instance_types import instance_type as lookup_instance_type
from sandbox.k8s.emulator import KubernetesEmulator

JsonObject = dict[str, Any]
EventListener = Callable[[str, JsonObject], None]

HEALTH_LABEL = "sagemaker.amazonaws.com/node-health-status"
STATE_CHANGE = "SageMaker HyperPod Cluster State Change"
NODE_HEALTH = "SageMaker HyperPod Cluster Node Health Event"
_GROUP_LABEL = "sagemaker.amazonaws.com/instance-group-name"
_ID_ALPHABET = string.ascii_lowercase + string.digits
_IMAGE_VERSION = "1.0.0"
# The newest HyperPod AMI release the sandbox offers: new groups start one release behind it.
_LATEST_IMAGE_VERSION = "1.0.1"
_IMAGE_ID = "ami-0a1b2c3d4e5f67890"

# The Karpenter kinds HyperPod's managed autoscaling serves in the EKS cluster while AutoScaling is enabled
# (group, plural, kind). Installing them with AutoScaling and removing them with it is [inferred].
_KARPENTER_KINDS = (
    ("karpenter.sagemaker.amazonaws.com", "hyperpodnodeclasses", "HyperpodNodeClass"),
    ("karpenter.sh", "nodepools", "NodePool"),
    ("karpenter.sh", "nodeclaims", "NodeClaim"),
)

# Wire action → moto's method name on SageMakerResponse.
_ACTIONS = {
    "CreateCluster": "create_cluster",
    "DescribeCluster": "describe_cluster",
    "ListClusters": "list_clusters",
    "DeleteCluster": "delete_cluster",
    "UpdateCluster": "update_cluster",
    "UpdateClusterSoftware": "update_cluster_software",
    "ListClusterNodes": "list_cluster_nodes",
    "DescribeClusterNode": "describe_cluster_node",
    "BatchRebootClusterNodes": "batch_reboot_cluster_nodes",
    "BatchReplaceClusterNodes": "batch_replace_cluster_nodes",
    "BatchDeleteClusterNodes": "batch_delete_cluster_nodes",
    "BatchAddClusterNodes": "batch_add_cluster_nodes",
    "ListTrainingPlans": "list_training_plans",
    "DescribeTrainingPlan": "describe_training_plan",
    "ListTags": "list_tags",
    "AddTags": "add_tags",
}
# Tag actions reach the simulation only for its clusters' ARNs; every other ARN stays with moto.
_TAG_ACTIONS = {"ListTags", "AddTags"}


class HyperPodError(Exception):
    """A service-side refusal, returned as a JSON-protocol error (HTTP 400, ``__type`` = code)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _validation(message: str) -> HyperPodError:
    return HyperPodError("ValidationException", message)


# --- state -----------------------------------------------------------------------------------


@dataclass
class _Node:
    instance_id: str | None
    logical_id: str
    group: str
    instance_type: str
    subnet_id: str | None
    availability_zone: str
    availability_zone_id: str
    capacity_type: str
    private_ip: str
    launch_time: float
    status: str = "Running"
    message: str = ""
    health: str = "Schedulable"
    last_software_update: float | None = None
    image_version: str = _IMAGE_VERSION

    @property
    def kubernetes_name(self) -> str:
        return f"hyperpod-{self.instance_id}"


@dataclass
class _Group:
    spec: JsonObject
    target: int
    creating: bool = True
    deleting: bool = False
    scaling: int = 0
    launched: int = 0
    software_status: str | None = None
    software_config: JsonObject | None = None
    software_pending: int = 0
    image_version: str = _IMAGE_VERSION
    desired_image_version: str = _IMAGE_VERSION
    image_id: str = _IMAGE_ID
    desired_image_id: str = _IMAGE_ID
    current_labels: dict[str, str] = field(default_factory=dict)
    current_taints: list[JsonObject] = field(default_factory=list)

    @property
    def name(self) -> str:
        return str(self.spec["InstanceGroupName"])

    @property
    def instance_type(self) -> str:
        if self.spec.get("InstanceType"):
            return str(self.spec["InstanceType"])
        types = (self.spec.get("InstanceRequirements") or {}).get("InstanceTypes") or ["ml.m5.xlarge"]
        return str(types[0])


@dataclass
class _Task:
    due: float
    run: Callable[[], None]


@dataclass
class _Cluster:
    name: str
    arn: str
    account: str
    region: str
    created: float
    request: JsonObject
    groups: dict[str, _Group] = field(default_factory=dict)
    nodes: list[_Node] = field(default_factory=list)
    tasks: list[_Task] = field(default_factory=list)
    creating: bool = True
    deleting: bool = False
    updating: int = 0
    system_updating: int = 0
    autoscaling_ready: bool = False
    reported_status: str | None = None

    @property
    def continuous(self) -> bool:
        return self.request.get("NodeProvisioningMode") == "Continuous"

    @property
    def eks_cluster_name(self) -> str | None:
        arn = ((self.request.get("Orchestrator") or {}).get("Eks") or {}).get("ClusterArn")
        return str(arn).rsplit("/", 1)[-1] if arn else None

    @property
    def status(self) -> str:
        if self.deleting:
            return "Deleting"
        if self.creating:
            return "Creating"
        if self.system_updating:
            return "SystemUpdating"
        if self.updating and not self.continuous:
            return "Updating"
        return "InService"


@dataclass
class _TrainingPlan:
    arn: str
    name: str
    instance_type: str
    count: int
    availability_zone: str
    availability_zone_id: str
    start: float
    duration_hours: int


# --- the extension ---------------------------------------------------------------------------


class HyperPodExtension:
    """Installs the HyperPod cluster simulation (and training plans) on moto's SageMaker responses."""

    def __init__(self, emulator: KubernetesEmulator, seconds_to_in_service: float = 3.0) -> None:
        self._emulator = emulator
        self._seconds = seconds_to_in_service
        self._lock = threading.RLock()
        self._clusters: dict[tuple[str, str], dict[str, _Cluster]] = {}
        self._plans: dict[tuple[str, str], dict[str, _TrainingPlan]] = {}
        self._originals: dict[str, Any] = {}
        self._listeners: list[EventListener] = []
        self._outbox: list[tuple[str, JsonObject]] = []

    # --- installation ------------------------------------------------------------------------

    def install(self) -> None:
        with self._lock:
            if self._originals:
                return
            for action, method in _ACTIONS.items():
                self._originals[method] = SageMakerResponse.__dict__.get(method)
                setattr(SageMakerResponse, method, self._responder(action))

    def uninstall(self) -> None:
        with self._lock:
            for method, original in self._originals.items():
                if original is None:
                    if method in SageMakerResponse.__dict__:
                        delattr(SageMakerResponse, method)
                else:
                    setattr(SageMakerResponse, method, original)
            self._originals = {}

    def reset(self) -> None:
        with self._lock:
            for clusters in self._clusters.values():
                for cluster in clusters.values():
                    for node in cluster.nodes:
                        self._remove_kubernetes_node(cluster, node)
            self._clusters.clear()
            self._plans.clear()
            self._outbox.clear()

    def _responder(self, action: str) -> Callable[[SageMakerResponse], Any]:
        extension = self

        def respond(response: SageMakerResponse) -> Any:
            request = _body(response)
            if action in _TAG_ACTIONS and not extension._owns_arn(str(request.get("ResourceArn", ""))):
                return extension._originals[_ACTIONS[action]](response)
            return extension.handle(action, response.current_account, response.region, request)

        respond.__name__ = _ACTIONS[action]
        return respond

    def handle(self, action: str, account: str, region: str, request: JsonObject) -> Any:
        """Serve one wire action; returns moto's (body, headers) pair."""
        try:
            with self._lock:
                self._advance_region(account, region)
                handler = getattr(self, "_op_" + _ACTIONS[action])
                result = handler(account, region, request)
                self._report_statuses(account, region)
        except HyperPodError as error:
            self._flush()
            body = json.dumps({"__type": error.code, "message": error.message})
            return body, {"status": 400, "x-amzn-ErrorType": error.code, "Content-Type": "application/x-amz-json-1.1"}
        self._flush()
        return json.dumps(result, default=_json_default), {"status": 200, "Content-Type": "application/x-amz-json-1.1"}

    def _owns_arn(self, arn: str) -> bool:
        with self._lock:
            return any(cluster.arn == arn for clusters in self._clusters.values() for cluster in clusters.values())

    def _cluster_by_arn(self, account: str, region: str, arn: str) -> _Cluster:
        for cluster in self._clusters.get((account, region), {}).values():
            if cluster.arn == arn:
                return cluster
        raise HyperPodError("ResourceNotFound", f"Resource {arn} not found.")

    def _op_list_tags(self, account: str, region: str, request: JsonObject) -> JsonObject:
        cluster = self._cluster_by_arn(account, region, str(request["ResourceArn"]))
        return {"Tags": list(cluster.request.get("Tags") or [])}

    def _op_add_tags(self, account: str, region: str, request: JsonObject) -> JsonObject:
        cluster = self._cluster_by_arn(account, region, str(request["ResourceArn"]))
        tags = {tag["Key"]: tag["Value"] for tag in cluster.request.get("Tags") or []}
        tags.update({tag["Key"]: tag["Value"] for tag in request.get("Tags") or []})
        cluster.request["Tags"] = [{"Key": key, "Value": value} for key, value in tags.items()]
        return {"Tags": cluster.request["Tags"]}

    # --- public controls ---------------------------------------------------------------------

    def add_listener(self, listener: EventListener) -> None:
        """Call ``listener(detail_type, detail)`` for simulated ``aws.sagemaker`` events."""
        with self._lock:
            self._listeners.append(listener)

    def tick(self) -> None:
        """Run every transition that has come due (reads do this too)."""
        with self._lock:
            for account, region in list(self._clusters):
                self._advance_region(account, region)
                self._report_statuses(account, region)
        self._flush()

    def add_training_plan(
        self,
        region: str,
        name: str,
        instance_type: str,
        count: int,
        availability_zone: str,
        account_id: str = DEFAULT_ACCOUNT_ID,
        duration_hours: int = 24,
    ) -> str:
        """Seed an Active training plan (moto has none); returns its ARN."""
        zone_id = _zone_id(account_id, region, availability_zone)
        arn = f"arn:aws:sagemaker:{region}:{account_id}:training-plan/{name}"
        with self._lock:
            self._plans.setdefault((account_id, region), {})[name] = _TrainingPlan(
                arn, name, instance_type, count, availability_zone, zone_id, time.time(), duration_hours
            )
        return arn

    def mark_node_unhealthy(self, cluster_name: str, instance_id: str, region: str | None = None) -> None:
        """Label the node ``UnschedulablePendingReplacement``; with NodeRecovery Automatic, replace it later."""
        with self._lock:
            cluster = self._find_anywhere(cluster_name, region)
            self._advance(cluster)
            node = _node_by_id(cluster, instance_id)
            if node is None:
                raise KeyError(f"Node {instance_id} is not in cluster {cluster_name}")
            node.health = "UnschedulablePendingReplacement"
            # The health agent also taints the node so that nothing new is scheduled on it.
            taint = {"key": HEALTH_LABEL, "value": "Unschedulable", "effect": "NoSchedule"}
            self._patch_kubernetes_node(cluster, node, labels={HEALTH_LABEL: node.health}, taints=([], [taint]))
            self._emit(
                NODE_HEALTH,
                {
                    "ClusterName": cluster.name,
                    "ClusterArn": cluster.arn,
                    "InstanceId": instance_id,
                    "Tags": {},
                    "HealthSummary": {
                        "HealthStatus": "Unhealthy",
                        "HealthStatusReason": "Sandbox fault: node marked unhealthy",
                        "RepairAction": "Replace"
                        if cluster.request.get("NodeRecovery", "Automatic") == "Automatic"
                        else "None",
                        "Recommendation": "Replace the node",
                    },
                },
            )
            if cluster.request.get("NodeRecovery", "Automatic") == "Automatic":
                self._schedule(cluster, lambda: self._finish_replace(cluster, node))
        self._flush()

    # --- time --------------------------------------------------------------------------------

    def _schedule(self, cluster: _Cluster, run: Callable[[], None], delay: float | None = None) -> None:
        cluster.tasks.append(_Task(time.monotonic() + (self._seconds if delay is None else delay), run))

    def _advance_region(self, account: str, region: str) -> None:
        for cluster in list(self._clusters.get((account, region), {}).values()):
            self._advance(cluster)

    def _advance(self, cluster: _Cluster) -> None:
        while True:
            now = time.monotonic()
            due = sorted((task for task in cluster.tasks if task.due <= now), key=lambda task: task.due)
            if not due:
                return
            task = due[0]
            cluster.tasks.remove(task)
            task.run()

    def _report_statuses(self, account: str, region: str) -> None:
        for cluster in self._clusters.get((account, region), {}).values():
            if cluster.status != cluster.reported_status:
                cluster.reported_status = cluster.status
                detail = self._describe(cluster)
                detail["CreationTime"] = int(cluster.created * 1000)
                self._emit(STATE_CHANGE, detail)

    def _emit(self, detail_type: str, detail: JsonObject) -> None:
        self._outbox.append((detail_type, json.loads(json.dumps(detail, default=_json_default))))

    def _flush(self) -> None:
        with self._lock:
            events, self._outbox = self._outbox, []
            listeners = list(self._listeners)
        for detail_type, detail in events:
            for listener in listeners:
                listener(detail_type, detail)

    # --- lookups -----------------------------------------------------------------------------

    def _find(self, account: str, region: str, name_or_arn: str) -> _Cluster:
        clusters = self._clusters.get((account, region), {})
        if name_or_arn.startswith("arn:"):
            for cluster in clusters.values():
                if cluster.arn == name_or_arn:
                    return cluster
        elif name_or_arn in clusters:
            return clusters[name_or_arn]
        raise HyperPodError("ResourceNotFound", f"Cluster with name or arn {name_or_arn} not found")

    def _find_anywhere(self, name: str, region: str | None) -> _Cluster:
        for (_, cluster_region), clusters in self._clusters.items():
            if (region is None or region == cluster_region) and name in clusters:
                return clusters[name]
        raise KeyError(f"No HyperPod cluster named {name}")

    # --- CreateCluster -----------------------------------------------------------------------

    def _op_create_cluster(self, account: str, region: str, request: JsonObject) -> JsonObject:
        name = request["ClusterName"]
        clusters = self._clusters.setdefault((account, region), {})
        if name in clusters:
            raise HyperPodError("ResourceInUse", f"Cluster with name {name} already exists.")
        groups = request.get("InstanceGroups") or []
        if not groups and not request.get("RestrictedInstanceGroups"):
            raise _validation("At least one instance group must be specified.")
        names = [group["InstanceGroupName"] for group in groups]
        if len(set(names)) != len(names):
            raise _validation("Instance group names must be unique within a cluster.")
        if request.get("Orchestrator", {}).get("Eks"):
            self._check_eks(account, region, request["Orchestrator"]["Eks"]["ClusterArn"])
        self._check_cluster_settings(request, request.get("NodeProvisioningMode"), request.get("ClusterRole"))
        for group in groups:
            self._check_group(account, region, group, request.get("VpcConfig"))
        cluster_id = "".join(secrets.choice(_ID_ALPHABET) for _ in range(12))
        cluster = _Cluster(
            name=name,
            arn=f"arn:aws:sagemaker:{region}:{account}:cluster/{cluster_id}",
            account=account,
            region=region,
            created=time.time(),
            request=copy.deepcopy({key: value for key, value in request.items() if key != "InstanceGroups"}),
        )
        for spec in groups:
            cluster.groups[spec["InstanceGroupName"]] = _Group(spec=copy.deepcopy(spec), target=spec["InstanceCount"])
        clusters[name] = cluster

        def become_in_service() -> None:
            for group in cluster.groups.values():
                if group.creating:
                    self._finish_group_creation(cluster, group)
            cluster.creating = False
            cluster.autoscaling_ready = True

        self._schedule(cluster, become_in_service)
        return {"ClusterArn": cluster.arn}

    def _check_eks(self, account: str, region: str, cluster_arn: str) -> None:
        parts = cluster_arn.split(":")
        eks_region, eks_account, eks_name = parts[3], parts[4], parts[5].split("/", 1)[-1]
        if (eks_account, eks_region) != (account, region):
            raise _validation(f"The EKS cluster {cluster_arn} must be in the same account and region as the cluster.")
        backend = eks_backends[eks_account][eks_region]
        try:
            eks_cluster = backend.describe_cluster(eks_name)  # advances the sandbox EKS lifecycle
        except EksResourceNotFound as error:
            raise _validation(f"Unable to find EKS cluster {cluster_arn}.") from error
        if eks_cluster.status != "ACTIVE":
            raise _validation(
                f"The EKS cluster {cluster_arn} is in {eks_cluster.status} status; it must be ACTIVE to be used "
                "as the orchestrator."
            )
        mode = (getattr(eks_cluster, "access_config", None) or {}).get("authenticationMode", "CONFIG_MAP")
        if mode not in ("API", "API_AND_CONFIG_MAP"):
            raise _validation(
                f"The EKS cluster {cluster_arn} uses authentication mode {mode}. HyperPod requires the EKS cluster "
                "authentication mode to be API or API_AND_CONFIG_MAP."
            )

    @staticmethod
    def _check_cluster_settings(request: JsonObject, mode: str | None, cluster_role: str | None) -> None:
        autoscaling = request.get("AutoScaling")
        if autoscaling and autoscaling.get("Mode") == "Enable":
            if mode != "Continuous":
                raise _validation("AutoScaling requires NodeProvisioningMode to be Continuous.")
            if not cluster_role:
                raise _validation("ClusterRole is required when AutoScaling is enabled.")
        tiered = request.get("TieredStorageConfig")
        if tiered and tiered.get("Mode") == "Enable":
            percentage = tiered.get("InstanceMemoryAllocationPercentage")
            if percentage is not None and not 20 <= percentage <= 100:
                raise _validation("InstanceMemoryAllocationPercentage must be between 20 and 100.")

    def _check_group(self, account: str, region: str, spec: JsonObject, vpc: JsonObject | None) -> None:
        name = spec["InstanceGroupName"]
        if spec.get("InstanceType") and spec.get("InstanceRequirements"):
            raise _validation(f"Instance group {name}: specify either InstanceType or InstanceRequirements, not both.")
        if not spec.get("InstanceType") and not spec.get("InstanceRequirements"):
            raise _validation(f"Instance group {name}: InstanceType is required.")
        source = (spec.get("LifeCycleConfig") or {}).get("SourceS3Uri")
        if source is not None and not source.startswith("s3://sagemaker-"):
            raise _validation(
                f"Instance group {name}: LifeCycleConfig.SourceS3Uri {source} is invalid; the S3 bucket name must "
                "start with 'sagemaker-' (s3://sagemaker-...)."
            )
        capacity = spec.get("CapacityRequirements") or {}
        if "Spot" in capacity and "OnDemand" in capacity:
            raise _validation(
                f"Instance group {name}: CapacityRequirements may specify only one of Spot or OnDemand, not both."
            )
        checks = spec.get("OnStartDeepHealthChecks")
        if checks:
            known = lookup_instance_type(spec.get("InstanceType") or "")
            if known is not None and not known.deep_health_checks:
                raise _validation(
                    f"Instance group {name}: deep health checks are not supported for instance type {known.name}."
                )
            if (spec.get("KubernetesConfig") or {}).get("Taints"):
                raise _validation(
                    f"Instance group {name}: custom taints are not supported on instance groups with deep health "
                    "checks."
                )
        zones = {zone for _, zone, _ in self._subnet_zones(account, region, spec, vpc)}
        plan_arn = spec.get("TrainingPlanArn")
        if plan_arn:
            plan = self._plan_by_arn(account, region, plan_arn)
            if plan is None:
                raise _validation(f"Instance group {name}: training plan {plan_arn} does not exist.")
            if plan.instance_type != spec.get("InstanceType"):
                raise _validation(
                    f"Instance group {name}: instance type {spec.get('InstanceType')} does not match the instance "
                    f"type {plan.instance_type} of training plan {plan_arn}."
                )
            if zones and plan.availability_zone not in zones:
                raise _validation(
                    f"Instance group {name}: training plan {plan_arn} reserves capacity in "
                    f"{plan.availability_zone}, which none of the group's subnets are in."
                )
            if spec["InstanceCount"] > plan.count:
                raise _validation(
                    f"Instance group {name}: InstanceCount {spec['InstanceCount']} exceeds the {plan.count} "
                    f"instances reserved by training plan {plan_arn}."
                )

    def _subnet_zones(
        self, account: str, region: str, spec: JsonObject, vpc: JsonObject | None
    ) -> list[tuple[str | None, str, str]]:
        subnets = (spec.get("OverrideVpcConfig") or vpc or {}).get("Subnets") or []
        backend = ec2_backends[account][region]
        zones: list[tuple[str | None, str, str]] = []
        for subnet_id in subnets:
            try:
                subnet = backend.get_subnet(subnet_id)
            except InvalidSubnetIdError as error:
                raise _validation(f"The subnet ID '{subnet_id}' does not exist.") from error
            zones.append((subnet_id, subnet.availability_zone, subnet.availability_zone_id))
        return zones

    def _plan_by_arn(self, account: str, region: str, arn: str) -> _TrainingPlan | None:
        return next((plan for plan in self._plans.get((account, region), {}).values() if plan.arn == arn), None)

    # --- nodes -------------------------------------------------------------------------------

    def _finish_group_creation(self, cluster: _Cluster, group: _Group) -> None:
        group.creating = False
        self._reconcile(cluster, group)

    def _reconcile(self, cluster: _Cluster, group: _Group) -> None:
        """Bring the group's running nodes to its target count and its nodes to its Kubernetes config."""
        live = [node for node in cluster.nodes if node.group == group.name and node.status != "ShuttingDown"]
        for _ in range(group.target - len(live)):
            self._launch(cluster, group)
        for node in reversed(live[group.target :]):
            self._terminate(cluster, node)
        self._apply_kubernetes_config(cluster, group)

    def _launch(self, cluster: _Cluster, group: _Group, logical_id: str | None = None) -> _Node:
        spec = group.spec
        plan = self._plan_by_arn(cluster.account, cluster.region, spec.get("TrainingPlanArn") or "")
        if plan is not None:
            subnet, zone, zone_id = None, plan.availability_zone, plan.availability_zone_id
            for candidate in self._subnet_zones(
                cluster.account, cluster.region, spec, cluster.request.get("VpcConfig")
            ):
                if candidate[1] == plan.availability_zone:
                    subnet = candidate[0]
        else:
            zones = self._subnet_zones(cluster.account, cluster.region, spec, cluster.request.get("VpcConfig"))
            if zones:
                subnet, zone, zone_id = zones[group.launched % len(zones)]
            else:
                subnet, zone, zone_id = None, f"{cluster.region}a", _zone_id(cluster.account, cluster.region, "")
        group.launched += 1
        ip = f"10.{random.randint(0, 255)}.{random.randint(0, 255)}.{random.randint(1, 254)}"
        node = _Node(
            instance_id="i-" + secrets.token_hex(9)[:17],
            logical_id=logical_id or _logical_id(),
            group=group.name,
            instance_type=group.instance_type,
            subnet_id=subnet,
            availability_zone=zone,
            availability_zone_id=zone_id,
            capacity_type="Spot" if "Spot" in (spec.get("CapacityRequirements") or {}) else "OnDemand",
            private_ip=ip,
            launch_time=time.time(),
            image_version=group.image_version,
        )
        cluster.nodes.append(node)
        self._put_kubernetes_node(cluster, group, node)
        return node

    def _terminate(self, cluster: _Cluster, node: _Node) -> None:
        if node in cluster.nodes:
            cluster.nodes.remove(node)
        self._remove_kubernetes_node(cluster, node)

    def _finish_replace(self, cluster: _Cluster, node: _Node) -> None:
        group = cluster.groups.get(node.group)
        if node not in cluster.nodes or group is None:
            return
        self._terminate(cluster, node)
        self._launch(cluster, group)

    # --- Kubernetes Node objects -------------------------------------------------------------

    def _put_kubernetes_node(self, cluster: _Cluster, group: _Group, node: _Node) -> None:
        eks_name = cluster.eks_cluster_name
        if eks_name is None or node.instance_id is None:
            return
        facts = lookup_instance_type(node.instance_type)
        vcpus, memory = (facts.vcpus, facts.memory_gib) if facts else (4, 16)
        capacity = {"cpu": str(vcpus), "memory": f"{memory}Gi", "pods": "110", "ephemeral-storage": "500Gi"}
        if facts and facts.gpus:
            resource = "nvidia.com/gpu" if facts.accelerator.startswith("nvidia") else "aws.amazon.com/neuron"
            capacity[resource] = str(facts.gpus)
        if facts and facts.efa_interfaces:
            capacity["vpc.amazonaws.com/efa"] = str(facts.efa_interfaces)
        allocatable = dict(capacity, cpu=f"{vcpus * 1000 - 100}m", memory=f"{int(memory * 0.95)}Gi")
        kubernetes_config = group.spec.get("KubernetesConfig") or {}
        hostname = _hostname(cluster.region, node.private_ip)
        labels = {
            "kubernetes.io/arch": "amd64",
            "kubernetes.io/os": "linux",
            "kubernetes.io/hostname": hostname,
            "node.kubernetes.io/instance-type": node.instance_type,
            "topology.kubernetes.io/region": cluster.region,
            "topology.kubernetes.io/zone": node.availability_zone,
            "topology.k8s.aws/zone-id": node.availability_zone_id,
            _GROUP_LABEL: group.name,
            HEALTH_LABEL: node.health,
            "sagemaker.amazonaws.com/compute-type": "hyperpod",
            "sagemaker.amazonaws.com/capacity-type": node.capacity_type,
            "sagemaker.amazonaws.com/cluster-name": cluster.name,
            "sagemaker.amazonaws.com/node-logical-id": node.logical_id,
            **(kubernetes_config.get("Labels") or {}),
        }
        now = _rfc3339(time.time())
        self._emulator.store(eks_name).put(
            {
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {"name": node.kubernetes_name, "labels": labels},
                "spec": {
                    "providerID": f"aws:///{node.availability_zone}/{node.instance_id}",
                    "taints": [_kubernetes_taint(taint) for taint in kubernetes_config.get("Taints") or []],
                },
                "status": {
                    "capacity": capacity,
                    "allocatable": allocatable,
                    "conditions": [
                        {
                            "type": "Ready",
                            "status": "True",
                            "reason": "KubeletReady",
                            "message": "kubelet is posting ready status",
                            "lastHeartbeatTime": now,
                            "lastTransitionTime": now,
                        }
                    ],
                    "addresses": [
                        {"type": "InternalIP", "address": node.private_ip},
                        {"type": "Hostname", "address": hostname},
                    ],
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
        )

    def _patch_kubernetes_node(
        self,
        cluster: _Cluster,
        node: _Node,
        labels: dict[str, str] | None = None,
        drop_labels: list[str] | None = None,
        taints: tuple[list[JsonObject], list[JsonObject]] | None = None,
        ready: str | None = None,
    ) -> None:
        eks_name = cluster.eks_cluster_name
        if eks_name is None or node.instance_id is None:
            return
        store = self._emulator.store(eks_name)
        obj = store.get("", "v1", "nodes", None, node.kubernetes_name)
        if obj is None:
            return
        meta_labels = obj["metadata"].setdefault("labels", {})
        for key in drop_labels or []:
            meta_labels.pop(key, None)
        meta_labels.update(labels or {})
        if taints is not None:
            old, new = taints
            old_keys = {(taint["key"], taint.get("effect")) for taint in old + new}
            kept = [
                taint
                for taint in obj["spec"].get("taints") or []
                if (taint["key"], taint.get("effect")) not in old_keys
            ]
            obj["spec"]["taints"] = kept + new
        if ready is not None:
            for condition in obj.get("status", {}).get("conditions", []):
                if condition["type"] == "Ready":
                    condition["status"] = ready
                    condition["lastTransitionTime"] = _rfc3339(time.time())
        store.put(obj)

    def _remove_kubernetes_node(self, cluster: _Cluster, node: _Node) -> None:
        eks_name = cluster.eks_cluster_name
        if eks_name is None or node.instance_id is None or eks_name not in self._emulator.clusters():
            return
        self._emulator.store(eks_name).delete("", "v1", "nodes", None, node.kubernetes_name)

    def _apply_kubernetes_config(self, cluster: _Cluster, group: _Group) -> None:
        config = group.spec.get("KubernetesConfig") or {}
        desired_labels = dict(config.get("Labels") or {})
        desired_taints = [_kubernetes_taint(taint) for taint in config.get("Taints") or []]
        old_taints = [_kubernetes_taint(taint) for taint in group.current_taints]
        if desired_labels != group.current_labels or config.get("Taints", []) != group.current_taints:
            dropped = [key for key in group.current_labels if key not in desired_labels]
            for node in cluster.nodes:
                if node.group == group.name:
                    self._patch_kubernetes_node(
                        cluster, node, labels=desired_labels, drop_labels=dropped, taints=(old_taints, desired_taints)
                    )
        group.current_labels = desired_labels
        group.current_taints = copy.deepcopy(config.get("Taints") or [])

    # --- DescribeCluster / ListClusters / DeleteCluster --------------------------------------

    def _op_describe_cluster(self, account: str, region: str, request: JsonObject) -> JsonObject:
        return self._describe(self._find(account, region, request["ClusterName"]))

    def _describe(self, cluster: _Cluster) -> JsonObject:
        request = cluster.request
        result: JsonObject = {
            "ClusterArn": cluster.arn,
            "ClusterName": cluster.name,
            "ClusterStatus": cluster.status,
            "CreationTime": cluster.created,
            "InstanceGroups": [self._group_details(cluster, group) for group in cluster.groups.values()],
            "NodeRecovery": request.get("NodeRecovery", "Automatic"),
        }
        for key in ("VpcConfig", "Orchestrator", "TieredStorageConfig", "NodeProvisioningMode", "ClusterRole"):
            if request.get(key) is not None:
                result[key] = request[key]
        for key in ("RestrictedInstanceGroupsConfig",):
            if request.get(key) is not None:
                result[key] = request[key]
        autoscaling = request.get("AutoScaling")
        if autoscaling:
            settling = "Creating" if autoscaling.get("Mode") == "Enable" else "Deleting"
            status = "InService" if cluster.autoscaling_ready else settling
            if cluster.deleting:
                status = "Deleting"
            result["AutoScaling"] = {**autoscaling, "Status": status}
        return result

    def _group_details(self, cluster: _Cluster, group: _Group) -> JsonObject:
        spec = group.spec
        nodes = [node for node in cluster.nodes if node.group == group.name]
        running = [node for node in nodes if node.status in ("Running", "Pending") and node.instance_id]
        if group.deleting:
            status = "Deleting"
        elif group.creating:
            status = "Creating"
        elif group.software_pending:
            status = "SystemUpdating"
        elif group.scaling and not cluster.continuous:
            status = "Updating"
        else:
            status = "InService"
        config = spec.get("KubernetesConfig") or {}
        details: JsonObject = {
            "CurrentCount": len(running),
            "TargetCount": group.target,
            "InstanceGroupName": group.name,
            "Status": status,
            "ThreadsPerCore": spec.get("ThreadsPerCore", 1),
            "InstanceStorageConfigs": spec.get("InstanceStorageConfigs", []),
            "CurrentImageId": group.image_id,
            "DesiredImageId": group.desired_image_id,
            "CurrentImageReleaseVersion": group.image_version,
            "DesiredImageReleaseVersion": group.desired_image_version,
            "ImageVersionStatus": _image_status(group.image_version),
            "KubernetesConfig": {
                "CurrentLabels": group.current_labels,
                "DesiredLabels": config.get("Labels") or {},
                "CurrentTaints": group.current_taints,
                "DesiredTaints": config.get("Taints") or [],
            },
            "TargetStateCount": group.target,
        }
        if spec.get("InstanceType"):
            details["InstanceType"] = spec["InstanceType"]
        if spec.get("InstanceRequirements"):
            types = spec["InstanceRequirements"]["InstanceTypes"]
            details["InstanceRequirements"] = {"CurrentInstanceTypes": types, "DesiredInstanceTypes": types}
            details["InstanceTypeDetails"] = [
                {
                    "InstanceType": kind,
                    "CurrentCount": sum(1 for node in running if node.instance_type == kind),
                    "ThreadsPerCore": spec.get("ThreadsPerCore", 1),
                }
                for kind in types
            ]
        if "MinInstanceCount" in spec:
            details["MinCount"] = spec["MinInstanceCount"]
        for key in (
            "LifeCycleConfig",
            "ExecutionRole",
            "OnStartDeepHealthChecks",
            "OverrideVpcConfig",
            "ScheduledUpdateConfig",
            "CapacityRequirements",
            "SlurmConfig",
            "NetworkInterface",
        ):
            if spec.get(key) is not None:
                details[key] = spec[key]
        if spec.get("TrainingPlanArn"):
            details["TrainingPlanArn"] = spec["TrainingPlanArn"]
            details["TrainingPlanStatus"] = "Active"
        if spec.get("AutoPatchConfig"):
            patch = dict(spec["AutoPatchConfig"])
            schedule = patch.pop("PatchSchedule", None)
            if schedule:
                patch["CurrentPatchSchedule"] = schedule
                patch["DesiredPatchSchedule"] = schedule
            details["AutoPatchConfig"] = patch
        if group.scaling:
            details["ActiveOperations"] = {"Scaling": group.scaling}
        if group.software_status:
            details["SoftwareUpdateStatus"] = group.software_status
        if group.software_config and group.software_pending:
            details["ActiveSoftwareUpdateConfig"] = group.software_config
        return details

    def _op_list_clusters(self, account: str, region: str, request: JsonObject) -> JsonObject:
        clusters = list(self._clusters.get((account, region), {}).values())
        if request.get("NameContains"):
            clusters = [cluster for cluster in clusters if request["NameContains"] in cluster.name]
        if request.get("CreationTimeAfter") is not None:
            clusters = [cluster for cluster in clusters if cluster.created > request["CreationTimeAfter"]]
        if request.get("CreationTimeBefore") is not None:
            clusters = [cluster for cluster in clusters if cluster.created < request["CreationTimeBefore"]]
        if request.get("TrainingPlanArn"):
            clusters = [cluster for cluster in clusters if request["TrainingPlanArn"] in _plan_arns(cluster)]
        if request.get("SortBy") == "NAME":
            clusters.sort(key=lambda cluster: cluster.name)
        else:
            clusters.sort(key=lambda cluster: cluster.created)
        if request.get("SortOrder") == "Descending":
            clusters.reverse()
        page, token = _page(clusters, request)
        summaries = []
        for cluster in page:
            summary: JsonObject = {
                "ClusterArn": cluster.arn,
                "ClusterName": cluster.name,
                "CreationTime": cluster.created,
                "ClusterStatus": cluster.status,
                "ImageVersionStatus": "UpToDate"
                if all(_image_status(group.image_version) == "UpToDate" for group in cluster.groups.values())
                else "UpdateAvailable",
            }
            if _plan_arns(cluster):
                summary["TrainingPlanArns"] = _plan_arns(cluster)
            summaries.append(summary)
        return _with_token({"ClusterSummaries": summaries}, token)

    def _op_delete_cluster(self, account: str, region: str, request: JsonObject) -> JsonObject:
        cluster = self._find(account, region, request["ClusterName"])
        if cluster.deleting:
            return {"ClusterArn": cluster.arn}
        cluster.deleting = True
        cluster.tasks.clear()

        def gone() -> None:
            for node in list(cluster.nodes):
                self._terminate(cluster, node)
            self._clusters.get((account, region), {}).pop(cluster.name, None)
            self._emit(
                STATE_CHANGE,
                {"ClusterArn": cluster.arn, "ClusterName": cluster.name, "ClusterStatus": "Deleted"},
            )

        self._schedule(cluster, gone)
        return {"ClusterArn": cluster.arn}

    # --- UpdateCluster -----------------------------------------------------------------------

    def _check_mutable(self, cluster: _Cluster) -> None:
        if cluster.status in ("Creating", "Deleting") or (
            not cluster.continuous and cluster.status in ("Updating", "SystemUpdating")
        ):
            raise HyperPodError(
                "ConflictException",
                f"Cluster {cluster.name} is in {cluster.status} status and cannot be updated.",
            )

    def _op_update_cluster(self, account: str, region: str, request: JsonObject) -> JsonObject:
        cluster = self._find(account, region, request["ClusterName"])
        self._check_mutable(cluster)
        specs = [self._inherit(cluster, spec) for spec in request.get("InstanceGroups") or []]
        to_delete = request.get("InstanceGroupsToDelete") or []
        for name in to_delete:
            if name not in cluster.groups:
                raise _validation(f"Instance group {name} does not exist in cluster {cluster.name}.")
        for spec in specs:
            if spec["InstanceGroupName"] in to_delete:
                raise _validation(f"Instance group {spec['InstanceGroupName']} cannot be both updated and deleted.")
            existing = cluster.groups.get(spec["InstanceGroupName"])
            if existing and spec.get("InstanceType") and spec.get("InstanceType") != existing.spec.get("InstanceType"):
                raise _validation(
                    f"Instance group {existing.name}: the instance type cannot be changed "
                    f"({existing.spec.get('InstanceType')} → {spec['InstanceType']})."
                )
            self._check_group(account, region, spec, cluster.request.get("VpcConfig"))
        enabled = (cluster.request.get("AutoScaling") or {}).get("Mode") == "Enable"
        if enabled and request.get("ClusterRole") not in (None, cluster.request.get("ClusterRole")):
            raise _validation("ClusterRole cannot be updated while autoscaling is enabled.")
        merged = {**cluster.request, **{key: request[key] for key in _CLUSTER_SETTINGS if key in request}}
        self._check_cluster_settings(merged, merged.get("NodeProvisioningMode"), merged.get("ClusterRole"))
        cluster.request = copy.deepcopy(merged)
        changed: list[_Group] = []
        for spec in specs:
            name = spec["InstanceGroupName"]
            if name in cluster.groups:
                group = cluster.groups[name]
                group.spec = copy.deepcopy(spec)
                group.target = spec["InstanceCount"]
                group.scaling += 1
            else:
                group = cluster.groups[name] = _Group(spec=copy.deepcopy(spec), target=spec["InstanceCount"])
            changed.append(group)
        deleting = [cluster.groups[name] for name in to_delete]
        for group in deleting:
            group.deleting = True
        cluster.updating += 1
        autoscaling = request.get("AutoScaling")
        if autoscaling is not None:
            cluster.autoscaling_ready = False

        def finish() -> None:
            for group in changed:
                if group.name not in cluster.groups:
                    continue
                if group.creating:
                    self._finish_group_creation(cluster, group)
                else:
                    group.scaling = max(0, group.scaling - 1)
                    self._reconcile(cluster, group)
            for group in deleting:
                for node in [node for node in cluster.nodes if node.group == group.name]:
                    self._terminate(cluster, node)
                cluster.groups.pop(group.name, None)
            cluster.updating -= 1
            cluster.autoscaling_ready = True
            if autoscaling is not None:
                self._serve_karpenter(cluster, autoscaling.get("Mode") == "Enable")

        self._schedule(cluster, finish)
        return {"ClusterArn": cluster.arn}

    def _serve_karpenter(self, cluster: _Cluster, enabled: bool) -> None:
        """Managed Karpenter's CRDs appear in the EKS cluster when UpdateCluster enables AutoScaling and go when
        it disables it."""
        if cluster.eks_cluster_name is None:
            return
        store = self._emulator.store(cluster.eks_cluster_name)
        for group, plural, kind in _KARPENTER_KINDS:
            if not enabled:
                store.delete("apiextensions.k8s.io", "v1", "customresourcedefinitions", None, f"{plural}.{group}")
                continue
            store.put(
                {
                    "apiVersion": "apiextensions.k8s.io/v1",
                    "kind": "CustomResourceDefinition",
                    "metadata": {"name": f"{plural}.{group}"},
                    "spec": {
                        "group": group,
                        "names": {"plural": plural, "singular": kind.lower(), "kind": kind, "listKind": f"{kind}List"},
                        "scope": "Cluster",
                        "versions": [
                            {
                                "name": "v1",
                                "served": True,
                                "storage": True,
                                "schema": {
                                    "openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
                                },
                                "subresources": {"status": {}},
                            }
                        ],
                    },
                }
            )

    @staticmethod
    def _inherit(cluster: _Cluster, spec: JsonObject) -> JsonObject:
        """The given spec replaces the group's; the immutable instance type carries over when omitted."""
        existing = cluster.groups.get(spec["InstanceGroupName"])
        if existing is None or spec.get("InstanceType") or spec.get("InstanceRequirements"):
            return spec
        inherited = dict(spec)
        for key in ("InstanceType", "InstanceRequirements"):
            if existing.spec.get(key):
                inherited[key] = existing.spec[key]
        return inherited

    def _op_update_cluster_software(self, account: str, region: str, request: JsonObject) -> JsonObject:
        cluster = self._find(account, region, request["ClusterName"])
        self._check_mutable(cluster)
        wanted = request.get("InstanceGroups") or [{"InstanceGroupName": name} for name in cluster.groups]
        groups: list[tuple[_Group, str]] = []
        for item in wanted:
            group = cluster.groups.get(item["InstanceGroupName"])
            if group is None:
                raise _validation(
                    f"Instance group {item['InstanceGroupName']} does not exist in cluster {cluster.name}."
                )
            groups.append((group, item.get("ImageReleaseVersion") or _LATEST_IMAGE_VERSION))
        for group, version in groups:
            group.software_status = "InProgress"
            group.software_pending += 1
            group.software_config = request.get("DeploymentConfig") or {
                "RollingUpdatePolicy": {"MaximumBatchSize": {"Type": "CAPACITY_PERCENTAGE", "Value": 100}},
                "WaitIntervalInSeconds": 0,
            }
            group.desired_image_version = version
            if request.get("ImageId"):
                group.desired_image_id = request["ImageId"]
        cluster.system_updating += 1

        def finish() -> None:
            now = time.time()
            for group, version in groups:
                group.software_pending -= 1
                group.software_status = "Succeeded"
                group.image_version = version
                group.image_id = group.desired_image_id
                for node in cluster.nodes:
                    if node.group == group.name:
                        node.image_version = version
                        node.last_software_update = now
            cluster.system_updating -= 1

        self._schedule(cluster, finish)
        return {"ClusterArn": cluster.arn}

    # --- nodes: list / describe --------------------------------------------------------------

    def _op_list_cluster_nodes(self, account: str, region: str, request: JsonObject) -> JsonObject:
        cluster = self._find(account, region, request["ClusterName"])
        nodes = [node for node in cluster.nodes if node.instance_id]
        if request.get("InstanceGroupNameContains"):
            nodes = [node for node in nodes if request["InstanceGroupNameContains"] in node.group]
        if request.get("CreationTimeAfter") is not None:
            nodes = [node for node in nodes if node.launch_time > request["CreationTimeAfter"]]
        if request.get("CreationTimeBefore") is not None:
            nodes = [node for node in nodes if node.launch_time < request["CreationTimeBefore"]]
        if request.get("SortBy") == "NAME":
            nodes.sort(key=lambda node: (node.group, node.instance_id or ""))
        else:
            nodes.sort(key=lambda node: node.launch_time)
        if request.get("SortOrder") == "Descending":
            nodes.reverse()
        page, token = _page(nodes, request)
        summaries = []
        for node in page:
            summary: JsonObject = {
                "InstanceGroupName": node.group,
                "InstanceId": node.instance_id,
                "InstanceType": node.instance_type,
                "LaunchTime": node.launch_time,
                "InstanceStatus": _instance_status(node),
                "PrivateDnsHostname": _hostname(cluster.region, node.private_ip),
                "CurrentImageReleaseVersion": node.image_version,
                "ImageVersionStatus": _image_status(node.image_version),
            }
            if request.get("IncludeNodeLogicalIds"):
                summary["NodeLogicalId"] = node.logical_id
            if node.last_software_update:
                summary["LastSoftwareUpdateTime"] = node.last_software_update
            summaries.append(summary)
        return _with_token({"ClusterNodeSummaries": summaries}, token)

    def _op_describe_cluster_node(self, account: str, region: str, request: JsonObject) -> JsonObject:
        cluster = self._find(account, region, request["ClusterName"])
        if request.get("NodeId"):
            node = _node_by_id(cluster, request["NodeId"])
            wanted = request["NodeId"]
        elif request.get("NodeLogicalId"):
            node = _node_by_logical_id(cluster, request["NodeLogicalId"])
            wanted = request["NodeLogicalId"]
        else:
            raise _validation("Either NodeId or NodeLogicalId must be specified.")
        if node is None:
            raise HyperPodError("ResourceNotFound", f"Node {wanted} not found in cluster {cluster.arn}")
        group = cluster.groups.get(node.group)
        spec = group.spec if group else {}
        config = spec.get("KubernetesConfig") or {}
        details: JsonObject = {
            "InstanceGroupName": node.group,
            "NodeLogicalId": node.logical_id,
            "InstanceStatus": _instance_status(node),
            "InstanceType": node.instance_type,
            "ThreadsPerCore": spec.get("ThreadsPerCore", 1),
            "InstanceStorageConfigs": spec.get("InstanceStorageConfigs", []),
            "Placement": {
                "AvailabilityZone": node.availability_zone,
                "AvailabilityZoneId": node.availability_zone_id,
            },
            "CurrentImageId": group.image_id if group else _IMAGE_ID,
            "DesiredImageId": group.desired_image_id if group else _IMAGE_ID,
            "CurrentImageReleaseVersion": node.image_version,
            "DesiredImageReleaseVersion": group.desired_image_version if group else node.image_version,
            "ImageVersionStatus": _image_status(node.image_version),
            "KubernetesConfig": {
                "CurrentLabels": group.current_labels if group else {},
                "DesiredLabels": config.get("Labels") or {},
                "CurrentTaints": group.current_taints if group else [],
                "DesiredTaints": config.get("Taints") or [],
            },
            "CapacityType": node.capacity_type,
        }
        if node.instance_id:
            details.update(
                {
                    "InstanceId": node.instance_id,
                    "LaunchTime": node.launch_time,
                    "PrivatePrimaryIp": node.private_ip,
                    "PrivateDnsHostname": _hostname(cluster.region, node.private_ip),
                }
            )
        for key in ("LifeCycleConfig", "OverrideVpcConfig", "NetworkInterface"):
            if spec.get(key) is not None:
                details[key] = spec[key]
        if node.last_software_update:
            details["LastSoftwareUpdateTime"] = node.last_software_update
        return {"NodeDetails": details}

    # --- batch node operations ---------------------------------------------------------------

    def _resolve_nodes(
        self, cluster: _Cluster, request: JsonObject, not_found_code: str
    ) -> tuple[list[tuple[str, bool, _Node]], list[JsonObject], list[JsonObject]]:
        """(id, is_logical, node) for the known ids; in-band failures for unknown ids and logical ids."""
        found: list[tuple[str, bool, _Node]] = []
        failed: list[JsonObject] = []
        failed_logical: list[JsonObject] = []
        for node_id in request.get("NodeIds") or []:
            node = _node_by_id(cluster, node_id)
            if node is None:
                failed.append({"NodeId": node_id, "code": not_found_code, "Message": f"Node {node_id} not found."})
            else:
                found.append((node_id, False, node))
        for logical_id in request.get("NodeLogicalIds") or []:
            node = _node_by_logical_id(cluster, logical_id)
            if node is None:
                failed_logical.append(
                    {"NodeLogicalId": logical_id, "code": not_found_code, "Message": f"Node {logical_id} not found."}
                )
            else:
                found.append((logical_id, True, node))
        return found, failed, failed_logical

    def _batch(
        self,
        account: str,
        region: str,
        request: JsonObject,
        *,
        code_key: str,
        not_found: str,
        bad_status: str,
        act: Callable[[_Cluster, _Node], None],
    ) -> JsonObject:
        cluster = self._find(account, region, request["ClusterName"])
        if not request.get("NodeIds") and not request.get("NodeLogicalIds"):
            raise _validation("Either NodeIds or NodeLogicalIds must be specified.")
        if cluster.status in ("Creating", "Deleting"):
            raise _validation(f"Cluster {cluster.name} is in {cluster.status} status.")
        found, failed, failed_logical = self._resolve_nodes(cluster, request, not_found)
        successful: list[str] = []
        successful_logical: list[str] = []
        for wanted, logical, node in found:
            if node.status != "Running" and not (code_key == "Code" and node.status == "Pending"):
                entry = {"code": bad_status, "Message": f"Node {wanted} is in {node.status} status."}
                if logical:
                    failed_logical.append({"NodeLogicalId": wanted, **entry})
                else:
                    failed.append({"NodeId": wanted, **entry})
                continue
            act(cluster, node)
            (successful_logical if logical else successful).append(wanted)
        result: JsonObject = {
            "Successful": successful,
            "Failed": [_rename(entry, code_key) for entry in failed],
        }
        if request.get("NodeLogicalIds"):
            result["SuccessfulNodeLogicalIds"] = successful_logical
            result["FailedNodeLogicalIds"] = [_rename(entry, code_key) for entry in failed_logical]
        return result

    def _op_batch_reboot_cluster_nodes(self, account: str, region: str, request: JsonObject) -> JsonObject:
        def reboot(cluster: _Cluster, node: _Node) -> None:
            node.status, node.message = "Pending", "Rebooting"
            self._patch_kubernetes_node(cluster, node, ready="Unknown")

            def done() -> None:
                if node in cluster.nodes and node.status == "Pending":
                    node.status, node.message = "Running", ""
                    self._patch_kubernetes_node(cluster, node, ready="True")

            self._schedule(cluster, done)

        return self._batch(
            account,
            region,
            request,
            code_key="ErrorCode",
            not_found="InstanceIdNotFound",
            bad_status="InvalidInstanceStatus",
            act=reboot,
        )

    def _op_batch_replace_cluster_nodes(self, account: str, region: str, request: JsonObject) -> JsonObject:
        def replace(cluster: _Cluster, node: _Node) -> None:
            node.status, node.message = "ShuttingDown", "Replacing"
            self._schedule(cluster, lambda: self._finish_replace(cluster, node))

        return self._batch(
            account,
            region,
            request,
            code_key="ErrorCode",
            not_found="InstanceIdNotFound",
            bad_status="InvalidInstanceStatus",
            act=replace,
        )

    def _op_batch_delete_cluster_nodes(self, account: str, region: str, request: JsonObject) -> JsonObject:
        def delete(cluster: _Cluster, node: _Node) -> None:
            group = cluster.groups.get(node.group)
            if group is not None:
                group.target = max(0, group.target - 1)
            if node.instance_id is None:
                cluster.nodes.remove(node)
                return
            node.status, node.message = "ShuttingDown", "Deleting"
            self._schedule(cluster, lambda: self._terminate(cluster, node))

        return self._batch(
            account,
            region,
            request,
            code_key="Code",
            not_found="NodeIdNotFound",
            bad_status="InvalidNodeStatus",
            act=delete,
        )

    def _op_batch_add_cluster_nodes(self, account: str, region: str, request: JsonObject) -> JsonObject:
        cluster = self._find(account, region, request["ClusterName"])
        if not cluster.continuous:
            raise _validation(
                f"BatchAddClusterNodes is supported only for clusters with NodeProvisioningMode Continuous; "
                f"cluster {cluster.name} does not use it."
            )
        successful: list[JsonObject] = []
        failed: list[JsonObject] = []
        for item in request["NodesToAdd"]:
            name, count = item["InstanceGroupName"], item["IncrementTargetCountBy"]
            group = cluster.groups.get(name)
            failure = self._add_failure(cluster, group, item)
            if failure is not None:
                code, message = failure
                entry = {"InstanceGroupName": name, "ErrorCode": code, "FailedCount": count, "Message": message}
                for key in ("AvailabilityZones", "InstanceTypes"):
                    if item.get(key):
                        entry[key] = item[key]
                failed.append(entry)
                continue
            assert group is not None
            group.target += count
            group.scaling += 1
            pending = []
            for _ in range(count):
                node = _Node(
                    instance_id=None,
                    logical_id=_logical_id(),
                    group=name,
                    instance_type=group.instance_type,
                    subnet_id=None,
                    availability_zone="",
                    availability_zone_id="",
                    capacity_type="Spot" if "Spot" in (group.spec.get("CapacityRequirements") or {}) else "OnDemand",
                    private_ip="",
                    launch_time=time.time(),
                    status="Pending",
                )
                cluster.nodes.append(node)
                pending.append(node)
                result: JsonObject = {"NodeLogicalId": node.logical_id, "InstanceGroupName": name, "Status": "Pending"}
                for key in ("AvailabilityZones", "InstanceTypes"):
                    if item.get(key):
                        result[key] = item[key]
                successful.append(result)
            self._schedule(cluster, self._provision_pending(cluster, group, pending))
        return {"Successful": successful, "Failed": failed}

    def _add_failure(self, cluster: _Cluster, group: _Group | None, item: JsonObject) -> tuple[str, str] | None:
        name = item["InstanceGroupName"]
        if group is None:
            return "InstanceGroupNotFound", f"Instance group {name} does not exist in cluster {cluster.name}."
        if group.creating or group.deleting or cluster.deleting:
            return "InvalidInstanceGroupStatus", f"Instance group {name} is not InService."
        zones = {
            zone
            for _, zone, _ in self._subnet_zones(
                cluster.account, cluster.region, group.spec, cluster.request.get("VpcConfig")
            )
        }
        if item.get("AvailabilityZones") and zones and not set(item["AvailabilityZones"]) <= zones:
            return "IncompatibleAvailabilityZones", f"Instance group {name} has no subnets in the requested zones."
        allowed = {group.spec.get("InstanceType")} | set(
            (group.spec.get("InstanceRequirements") or {}).get("InstanceTypes") or []
        )
        if item.get("InstanceTypes") and not set(item["InstanceTypes"]) <= allowed:
            return "IncompatibleInstanceTypes", f"Instance group {name} does not use the requested instance types."
        return None

    def _provision_pending(self, cluster: _Cluster, group: _Group, pending: list[_Node]) -> Callable[[], None]:
        def provision() -> None:
            group.scaling = max(0, group.scaling - 1)
            for placeholder in pending:
                if placeholder in cluster.nodes and group.name in cluster.groups:
                    cluster.nodes.remove(placeholder)
                    self._launch(cluster, group, logical_id=placeholder.logical_id)

        return provision

    # --- training plans ----------------------------------------------------------------------

    def _op_list_training_plans(self, account: str, region: str, request: JsonObject) -> JsonObject:
        plans = list(self._plans.get((account, region), {}).values())
        for item in request.get("Filters") or []:
            if item["Name"] == "Status" and item["Value"] != "Active":
                plans = []
        if request.get("StartTimeAfter") is not None:
            plans = [plan for plan in plans if plan.start > request["StartTimeAfter"]]
        if request.get("StartTimeBefore") is not None:
            plans = [plan for plan in plans if plan.start < request["StartTimeBefore"]]
        sort_key = request.get("SortBy", "StartTime")
        plans.sort(key=lambda plan: plan.name if sort_key == "TrainingPlanName" else plan.start)
        if request.get("SortOrder") == "Descending":
            plans.reverse()
        page, token = _page(plans, request)
        return _with_token({"TrainingPlanSummaries": [self._plan_summary(account, plan) for plan in page]}, token)

    def _op_describe_training_plan(self, account: str, region: str, request: JsonObject) -> JsonObject:
        wanted = request["TrainingPlanName"]
        for plan in self._plans.get((account, region), {}).values():
            if wanted in (plan.name, plan.arn):
                return {
                    **self._plan_summary(account, plan),
                    "UnhealthyInstanceCount": 0,
                    "AvailableSpareInstanceCount": 0,
                }
        raise HyperPodError("ResourceNotFound", f"Training plan {wanted} not found.")

    def _plan_summary(self, account: str, plan: _TrainingPlan) -> JsonObject:
        in_use = sum(
            1
            for (plan_account, _), clusters in self._clusters.items()
            if plan_account == account
            for cluster in clusters.values()
            for node in cluster.nodes
            if (cluster.groups.get(node.group) and cluster.groups[node.group].spec.get("TrainingPlanArn") == plan.arn)
        )
        end = plan.start + plan.duration_hours * 3600
        return {
            "TrainingPlanArn": plan.arn,
            "TrainingPlanName": plan.name,
            "Status": "Active",
            "StatusMessage": "Training plan is active",
            "DurationHours": plan.duration_hours,
            "DurationMinutes": 0,
            "StartTime": plan.start,
            "EndTime": end,
            "UpfrontFee": "0.00",
            "CurrencyCode": "USD",
            "TotalInstanceCount": plan.count,
            "AvailableInstanceCount": max(0, plan.count - in_use),
            "InUseInstanceCount": in_use,
            "TargetResources": ["hyperpod-cluster"],
            "ReservedCapacitySummaries": [
                {
                    "ReservedCapacityArn": plan.arn.replace(":training-plan/", ":reserved-capacity/"),
                    "ReservedCapacityType": "Instance",
                    "InstanceType": plan.instance_type,
                    "TotalInstanceCount": plan.count,
                    "Status": "Active",
                    "AvailabilityZone": plan.availability_zone,
                    "AvailabilityZoneId": plan.availability_zone_id,
                    "DurationHours": plan.duration_hours,
                    "DurationMinutes": 0,
                    "StartTime": plan.start,
                    "EndTime": end,
                }
            ],
        }


_CLUSTER_SETTINGS = (
    "TieredStorageConfig",
    "NodeRecovery",
    "NodeProvisioningMode",
    "ClusterRole",
    "AutoScaling",
    "Orchestrator",
    "RestrictedInstanceGroupsConfig",
)


# --- helpers ---------------------------------------------------------------------------------


def _body(response: SageMakerResponse) -> JsonObject:
    raw = response.body
    if isinstance(raw, bytes):
        raw = raw.decode()
    return json.loads(raw) if raw else {}


def _json_default(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.timestamp()
    raise TypeError(f"Cannot serialize {type(value).__name__}")


def _rfc3339(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _hostname(region: str, ip: str) -> str:
    return f"ip-{ip.replace('.', '-')}.{region}.compute.internal"


def _logical_id() -> str:
    return "node-" + secrets.token_hex(8)


def _zone_id(account: str, region: str, zone: str) -> str:
    try:
        for candidate in ec2_backends[account][region].describe_availability_zones():
            if candidate.name == zone:
                return str(candidate.zone_id)
    except Exception:  # noqa: BLE001 - an unknown region just gets a synthetic zone id
        pass
    return f"{region[:2]}{region.split('-')[1][:1]}{region[-1]}-az{(ord(zone[-1]) - 96) if zone else 1}"


def _kubernetes_taint(taint: JsonObject) -> JsonObject:
    result = {"key": taint["Key"], "effect": taint["Effect"]}
    if taint.get("Value") is not None:
        result["value"] = taint["Value"]
    return result


def _node_by_id(cluster: _Cluster, node_id: str) -> _Node | None:
    return next((node for node in cluster.nodes if node.instance_id == node_id), None)


def _node_by_logical_id(cluster: _Cluster, logical_id: str) -> _Node | None:
    return next((node for node in cluster.nodes if node.logical_id == logical_id), None)


def _instance_status(node: _Node) -> JsonObject:
    status: JsonObject = {"Status": node.status}
    if node.message:
        status["Message"] = node.message
    return status


def _rename(entry: JsonObject, code_key: str) -> JsonObject:
    result = {key: value for key, value in entry.items() if key != "code"}
    result[code_key] = entry["code"]
    return result


def _plan_arns(cluster: _Cluster) -> list[str]:
    return sorted({str(g.spec["TrainingPlanArn"]) for g in cluster.groups.values() if g.spec.get("TrainingPlanArn")})


def _image_status(version: str) -> str:
    return "UpToDate" if version == _LATEST_IMAGE_VERSION else "UpdateAvailable"


def _page(items: list[Any], request: JsonObject) -> tuple[list[Any], str | None]:
    start = int(request.get("NextToken") or 0)
    size = int(request.get("MaxResults") or 100)
    end = start + size
    return items[start:end], (str(end) if end < len(items) else None)


def _with_token(result: JsonObject, token: str | None) -> JsonObject:
    if token is not None:
        result["NextToken"] = token
    return result
