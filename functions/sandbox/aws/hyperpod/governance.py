"""Task governance as SageMaker keeps it: compute quotas (CreateComputeQuota and its siblings), one per team and
cluster, on an instance type the cluster has; and one scheduler config per cluster (CreateClusterSchedulerConfig and
its siblings). Both are versioned: an update names the version it read. Their Kueue side is the add-on's, in the
cluster: each quota's namespace and queues, and the config's priority classes, follow them there
(`HyperPodKubernetes.put_team_queue`, `remove_team_queue`, `put_priority_classes`)."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable

from sandbox.aws.hyperpod.fleet import Where
from sandbox.aws.hyperpod.model import Cluster, ComputeQuota, HyperPodError, JsonObject, SchedulerConfig, validation
from sandbox.aws.hyperpod.state import SimulationState


class Governance(SimulationState):
    """The compute quotas of every cluster, per (account, region)."""

    def create_quota(
        self,
        where: Where,
        name: str,
        cluster_arn: str,
        config: JsonObject,
        target: JsonObject,
        activation: str,
        description: str | None,
    ) -> ComputeQuota:
        with self.lock:
            self.advance()
            cluster = self._find(where, cluster_arn)
            team = target["TeamName"]
            quotas = self._quotas.setdefault(where, {})
            if any(q.cluster_arn == cluster.arn and q.team == team for q in quotas.values()):
                raise HyperPodError(
                    "ConflictException", f"A compute quota for team {team} already exists in cluster {cluster.arn}."
                )
            self._check_types(cluster.arn, config)
            quota_id = uuid.uuid4().hex[:12]
            now = time.time()
            quota = ComputeQuota(
                quota_id=quota_id,
                arn=f"arn:aws:sagemaker:{where[1]}:{where[0]}:compute-quota/{quota_id}",
                name=name,
                cluster_arn=cluster.arn,
                config=config,
                team=team,
                fair_share_weight=target.get("FairShareWeight"),
                activation=activation,
                description=description,
                created=now,
                modified=now,
            )
            quotas[quota_id] = quota
            self._kubernetes.put_team_queue(cluster, quota)
            return quota

    def quota(self, where: Where, quota_id: str) -> ComputeQuota:
        with self.lock:
            found = self._quotas.get(where, {}).get(quota_id)
            if found is None:
                raise HyperPodError("ResourceNotFound", f"Compute quota {quota_id} not found.")
            return found

    def quotas(self, where: Where, cluster_arn: str | None) -> list[ComputeQuota]:
        """The region's quotas (of one cluster when `cluster_arn`), oldest first."""
        with self.lock:
            found = self._quotas.get(where, {}).values()
            return sorted((q for q in found if cluster_arn in (None, q.cluster_arn)), key=lambda q: q.created)

    def update_quota(
        self, where: Where, quota_id: str, target_version: int, changes: JsonObject, team: str | None
    ) -> ComputeQuota:
        with self.lock:
            quota = self.quota(where, quota_id)
            if target_version != quota.version:
                raise HyperPodError(
                    "ConflictException",
                    f"TargetVersion {target_version} does not match the compute quota's version {quota.version}.",
                )
            if team is not None and team != quota.team:
                raise validation("The team of a compute quota cannot be changed.")
            if "ComputeQuotaConfig" in changes:
                self._check_types(quota.cluster_arn, changes["ComputeQuotaConfig"])
                quota.config = changes["ComputeQuotaConfig"]
            if "FairShareWeight" in changes:
                quota.fair_share_weight = changes["FairShareWeight"]
            quota.activation = changes.get("ActivationState", quota.activation)
            quota.description = changes.get("Description", quota.description)
            quota.version += 1
            quota.status = "Updated"
            quota.modified = time.time()
            self._follow(where, quota.cluster_arn, lambda cluster: self._kubernetes.put_team_queue(cluster, quota))
            return quota

    def delete_quota(self, where: Where, quota_id: str) -> None:
        with self.lock:
            quota = self.quota(where, quota_id)
            del self._quotas[where][quota_id]
            self._follow(
                where, quota.cluster_arn, lambda cluster: self._kubernetes.remove_team_queue(cluster, quota.team)
            )

    def create_scheduler_config(
        self, where: Where, name: str, cluster_arn: str, config: JsonObject, description: str | None
    ) -> SchedulerConfig:
        with self.lock:
            self.advance()
            cluster = self._find(where, cluster_arn)
            configs = self._scheduler_configs.setdefault(where, {})
            if any(found.cluster_arn == cluster.arn for found in configs.values()):
                raise HyperPodError(
                    "ConflictException", f"A cluster scheduler config already exists for cluster {cluster.arn}."
                )
            _check_priority_classes(config)
            config_id = uuid.uuid4().hex[:12]
            now = time.time()
            created = SchedulerConfig(
                config_id=config_id,
                arn=f"arn:aws:sagemaker:{where[1]}:{where[0]}:cluster-scheduler-config/{config_id}",
                name=name,
                cluster_arn=cluster.arn,
                config=config,
                description=description,
                created=now,
                modified=now,
            )
            configs[config_id] = created
            self._kubernetes.put_priority_classes(cluster, created)
            return created

    def scheduler_config(self, where: Where, config_id: str) -> SchedulerConfig:
        with self.lock:
            found = self._scheduler_configs.get(where, {}).get(config_id)
            if found is None:
                raise HyperPodError("ResourceNotFound", f"Cluster scheduler config {config_id} not found.")
            return found

    def scheduler_configs(self, where: Where, cluster_arn: str | None) -> list[SchedulerConfig]:
        with self.lock:
            found = self._scheduler_configs.get(where, {}).values()
            return sorted((c for c in found if cluster_arn in (None, c.cluster_arn)), key=lambda c: c.created)

    def update_scheduler_config(
        self, where: Where, config_id: str, target_version: int, config: JsonObject | None, description: str | None
    ) -> SchedulerConfig:
        with self.lock:
            found = self.scheduler_config(where, config_id)
            if target_version != found.version:
                raise HyperPodError(
                    "ConflictException",
                    f"TargetVersion {target_version} does not match the scheduler config's version {found.version}.",
                )
            if config is not None:
                _check_priority_classes(config)
                found.config = config
            found.description = description if description is not None else found.description
            found.version += 1
            found.status = "Updated"
            found.modified = time.time()
            self._follow(
                where, found.cluster_arn, lambda cluster: self._kubernetes.put_priority_classes(cluster, found)
            )
            return found

    def delete_scheduler_config(self, where: Where, config_id: str) -> None:
        with self.lock:
            found = self.scheduler_config(where, config_id)
            del self._scheduler_configs[where][config_id]
            self._follow(where, found.cluster_arn, lambda cluster: self._kubernetes.put_priority_classes(cluster, None))

    def _follow(self, where: Where, cluster_arn: str, change: Callable[[Cluster], None]) -> None:
        """Let the add-on's Kueue objects follow a change, while the quota's cluster exists."""
        cluster = next((c for c in self._clusters.get(where, {}).values() if c.arn == cluster_arn), None)
        if cluster is not None:
            change(cluster)

    def _check_types(self, cluster_arn: str, config: JsonObject) -> None:
        """Each allocated instance type must be one of the cluster's instance groups'."""
        cluster = next(c for clusters in self._clusters.values() for c in clusters.values() if c.arn == cluster_arn)
        offered = {t for g in cluster.groups.values() for t in (g.spec.instance_type, *g.spec.instance_types) if t}
        for resource in config.get("ComputeQuotaResources") or []:
            if resource["InstanceType"] not in offered:
                raise validation(
                    f"Instance type {resource['InstanceType']} is not in cluster {cluster.name}'s instance groups."
                )


def _check_priority_classes(config: JsonObject) -> None:
    names = [priority["Name"] for priority in config.get("PriorityClasses") or []]
    if len(names) != len(set(names)):
        raise validation("Priority class names must be unique.")
