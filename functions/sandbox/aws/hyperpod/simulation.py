"""The HyperPod simulation: clusters and their lifecycles over simulated time, testable without moto.

CreateCluster is ``Creating`` and then ``InService`` with its nodes; UpdateCluster scales, adds and deletes
groups and changes settings; UpdateClusterSoftware moves groups to a new image while the cluster is
``SystemUpdating``; nodes reboot, are replaced or deleted, run deep health checks; an unhealthy node is replaced
under automatic recovery. Every transition takes ``seconds`` and happens lazily: each operation first runs the
transitions that have come due, so no thread exists (`state`). The clusters' operations are `lifecycle`, the nodes'
`node_actions` and `health_checks`. Nodes show up in Kubernetes through :class:`HyperPodKubernetes`; subnets, zones
and the EKS orchestrator are read through :class:`~sandbox.aws.hyperpod.fleet.Account`.
"""

from __future__ import annotations

import time

from sandbox.aws.hyperpod.fleet import Where
from sandbox.aws.hyperpod.governance import Governance
from sandbox.aws.hyperpod.health_checks import HealthChecks
from sandbox.aws.hyperpod.lifecycle import ClusterLifecycle
from sandbox.aws.hyperpod.model import Cluster, HyperPodError, JsonObject, TrainingPlan
from sandbox.aws.hyperpod.offerings import Offering

DEFAULT_ACCOUNT_ID = "123456789012"  # moto's, and so the sandbox's


class HyperPodSimulation(ClusterLifecycle, HealthChecks, Governance):
    """Every simulated HyperPod cluster and training plan, per (account, region): its reads and training plans here,
    its operations (and the clusters' compute quotas) inherited. Thread-safe."""

    def cluster(self, where: Where, name_or_arn: str) -> Cluster:
        with self.lock:
            self.advance()
            return self._find(where, name_or_arn)

    def clusters(self, where: Where) -> list[Cluster]:
        """The region's clusters, oldest first."""
        with self.lock:
            self.advance()
            return sorted(self._clusters.get(where, {}).values(), key=lambda cluster: cluster.created)

    def training_plans(self, where: Where) -> list[TrainingPlan]:
        with self.lock:
            return sorted(self._plans.get(where, {}).values(), key=lambda plan: plan.start)

    def training_plan(self, where: Where, name_or_arn: str) -> TrainingPlan:
        with self.lock:
            for plan in self._plans.get(where, {}).values():
                if name_or_arn in (plan.name, plan.arn):
                    return plan
        raise HyperPodError("ResourceNotFound", f"Training plan {name_or_arn} not found.")

    def search_offerings(self, where: Where, request: JsonObject) -> list[Offering]:
        """SearchTrainingPlanOfferings: the Region's first two AZs offer capacity (`offerings`)."""
        with self.lock:
            return self.offerings.search(where, [f"{where[1]}a", f"{where[1]}b"], request)

    def create_training_plan(self, where: Where, name: str, offering_id: str) -> TrainingPlan:
        """CreateTrainingPlan: the offering, still offered, reserved as a plan that starts when it does."""
        with self.lock:
            if name in self._plans.get(where, {}):
                raise HyperPodError("ResourceInUse", f"Training plan {name} already exists.")
            offering = self.offerings.take(where, offering_id)
            arn = f"arn:aws:sagemaker:{where[1]}:{where[0]}:training-plan/{name}"
            zone_id = self._account.zone_id(where, offering.zone)
            plan = TrainingPlan(
                arn,
                name,
                offering.instance_type,
                offering.count,
                offering.zone,
                zone_id,
                offering.start,
                offering.duration_hours,
                offering.fee,
            )
            self._plans.setdefault(where, {})[name] = plan
            return plan

    def addresses_in(self, subnet_id: str) -> int:
        """IPv4 addresses HyperPod nodes hold in a subnet: each node's private address (its primary interface)."""
        with self.lock:
            return sum(
                cluster.nodes.in_subnet(subnet_id)
                for clusters in self._clusters.values()
                for cluster in clusters.values()
            )

    def nodes_on_plan(self, plan: TrainingPlan) -> int:
        with self.lock:
            return sum(
                len(cluster.group_nodes(group.name))
                for clusters in self._clusters.values()
                for cluster in clusters.values()
                for group in cluster.groups.values()
                if group.spec.training_plan_arn == plan.arn
            )

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
        where = (account_id, region)
        arn = f"arn:aws:sagemaker:{region}:{account_id}:training-plan/{name}"
        zone_id = self._account.zone_id(where, availability_zone)
        plan = TrainingPlan(arn, name, instance_type, count, availability_zone, zone_id, time.time(), duration_hours)
        with self.lock:
            self._plans.setdefault(where, {})[name] = plan
        return arn
