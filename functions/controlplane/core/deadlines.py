"""How long each kind of wait may last before its operation fails: sized to the work, generous over the usual.

Fixed waits are the AWS control planes' own work (EKS, add-ons, NAT gateways, features, deletions). HyperPod
creation and scaling grow with the instances they bring up and with deep health checks, which run on every new
instance before it joins; FSx creation grows with the file system's capacity; a software update with its rolling
batches; a download with its expected size. No wait lasts longer than `LONGEST_WAIT`, the longest a wait loop may
run within 10 % of Step Functions' history limit.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from datetime import timedelta

from controlplane.core.ports.hyperpod import InstanceGroup
from controlplane.models.instance_groups import RollingPolicy

LONGEST_WAIT = timedelta(hours=72)

# The least the work usually takes AWS (a wait loop does not check before: `core.polling`), from below its usual time:
# an EKS control plane is ACTIVE in about 10 minutes, an FSx for Lustre file system of the smallest size AVAILABLE in
# about 10 (larger ones take longer).
EKS_CLUSTER_ACTIVE_USUALLY = timedelta(minutes=8)
FSX_AVAILABLE_USUALLY = timedelta(minutes=8)

EKS_CLUSTER_ACTIVE = timedelta(minutes=30)
EKS_CLUSTER_DELETED = timedelta(minutes=30)
NAT_GATEWAY_RELEASED = timedelta(minutes=20)
ADDONS_ACTIVE = timedelta(minutes=30)
# DaemonSet pods on nodes that just joined: the scheduler, an image pull of up to a few GB, the container's start.
NODE_AGENTS_READY = timedelta(minutes=20)
# Add-ons that waited for nodes, once nodes joined: their pods scheduled and started, then EKS's next health check.
ADDONS_HEALTHY = timedelta(minutes=20)
FEATURE_SETTLED = timedelta(minutes=30)
# A team's namespace: the task governance add-on reconciles a new quota within a minute or so; a static PV and its
# claim bind on the PV controller's next pass.
TEAM_NAMESPACE_CREATED = timedelta(minutes=10)
TEAM_NAMESPACE_READY = timedelta(minutes=10)
FSX_FILE_SYSTEMS_DELETED = timedelta(hours=1)
# HyperPod terminates a group's instances together; a count read while they go would shrink the deadline.
HYPERPOD_DELETED = timedelta(hours=2)

FSX_CREATION = timedelta(minutes=30)
FSX_CREATION_PER_TIB = timedelta(minutes=2)

HYPERPOD_PROVISIONING = timedelta(hours=1)
HYPERPOD_PROVISIONING_PER_INSTANCE = timedelta(seconds=6)
DEEP_HEALTH_CHECKS = timedelta(hours=2)
DEEP_HEALTH_CHECKS_PER_INSTANCE = timedelta(seconds=6)
SOFTWARE_UPDATE = timedelta(hours=1)
# Rebooted nodes back Running, replaced or deleted nodes gone (a replacement is provisioned like a new instance).
NODES_SETTLED = timedelta(hours=1)
# Deep health checks: GPU/EFA stress runs for up to a few hours, then a failed node is rebooted or replaced.
HEALTH_CHECKS_DONE = timedelta(hours=6)
SOFTWARE_UPDATE_PER_BATCH = timedelta(minutes=30)
# A Hugging Face download: the image pull and the repository's file list, then the bytes at a modest 20 MB/s.
DOWNLOAD = timedelta(minutes=20)
DOWNLOAD_PER_GIB = timedelta(seconds=60)


def instances_in_service(groups: Iterable[InstanceGroup]) -> timedelta:
    """Bringing `groups` to their target counts: 1 h + 1 min per 10 instances, and when any group runs deep health
    checks another 2 h + 1 min per 10 instances (500 instances: 1 h 50 min, 4 h 40 min with deep health checks)."""
    groups = tuple(groups)
    instances = sum(group.target_count for group in groups)
    deadline = HYPERPOD_PROVISIONING + instances * HYPERPOD_PROVISIONING_PER_INSTANCE
    if any(group.deep_health_checks for group in groups):
        deadline += DEEP_HEALTH_CHECKS + instances * DEEP_HEALTH_CHECKS_PER_INSTANCE
    return min(deadline, LONGEST_WAIT)


def software_update(groups: Iterable[InstanceGroup], policy: RollingPolicy) -> timedelta:
    """Patching `groups` batch after batch: 1 h + 30 min and the pause between batches, per batch of each group."""
    batches = sum(_batches(group.current_count, policy) for group in groups)
    per_batch = SOFTWARE_UPDATE_PER_BATCH + timedelta(seconds=policy.waitIntervalSeconds)
    return min(SOFTWARE_UPDATE + batches * per_batch, LONGEST_WAIT)


def fsx_available(storage_capacity_gib: int) -> timedelta:
    """Creating an FSx for Lustre file system: 30 min + 2 min per TiB (1,200 GiB: 34 min; 120 TiB: 4 h 30 min)."""
    return min(FSX_CREATION + math.ceil(storage_capacity_gib / 1024) * FSX_CREATION_PER_TIB, LONGEST_WAIT)


def download(size_gib: int) -> timedelta:
    """A download of about `size_gib` into the S3 claim."""
    return min(LONGEST_WAIT, DOWNLOAD + DOWNLOAD_PER_GIB * size_gib)


def _batches(instances: int, policy: RollingPolicy) -> int:
    if policy.batchType == "count":
        return max(1, math.ceil(instances / policy.batchSize))
    return max(1, math.ceil(100 / policy.batchSize))
