"""The delete plan of a cluster, from live state: which of its IAM roles exist, and (while its EKS cluster is ACTIVE)
the jobs, model servers and managed endpoints on it, as the workload contexts list them. What the plan says is
`deletion_plan`'s."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from controlplane.core.clusters.deletion_plan import LiveFacts, Workloads, delete_actions, role_names
from controlplane.core.concurrency import each
from controlplane.core.endpoints.service import EndpointService
from controlplane.core.naming import Deployment, job_namespace
from controlplane.core.ports.eks import EksGateway
from controlplane.core.ports.iam import IamGateway
from controlplane.core.serving.service import ModelServerService
from controlplane.core.training.service import TrainingJobService
from controlplane.models.clusters import ClusterRecord, PlannedAction
from controlplane.models.common import PageView
from controlplane.models.errors import DomainError

Item = TypeVar("Item")
Listed = TypeVar("Listed", bound=PageView)
PAGE = 100


class DeletionPlanner:
    def __init__(
        self,
        deployment: Deployment,
        iam: IamGateway,
        eks: Callable[[str], EksGateway],
        jobs: TrainingJobService,
        servers: ModelServerService,
        endpoints: EndpointService,
    ) -> None:
        self._deployment = deployment
        self._iam = iam
        self._eks = eks
        self._jobs = jobs
        self._servers = servers
        self._endpoints = endpoints

    def plan(self, record: ClusterRecord) -> list[PlannedAction]:
        """What deleting the cluster removes and leaves, as it is now."""
        names = list(role_names(self._deployment, record.clusterTag))
        found = each(lambda name: self._iam.find_role(name) is not None, names)
        roles = frozenset(name for name, exists in zip(names, found, strict=True) if exists)
        workloads = Workloads() if record.imported else self._workloads(record)
        return delete_actions(self._deployment, record, LiveFacts(roles=roles, workloads=workloads))

    def _workloads(self, record: ClusterRecord) -> Workloads:
        """The cluster's work while its Kubernetes API can answer (nothing runs on a cluster that is not ACTIVE)."""
        cluster = self._eks(record.region).find_cluster(record.eksClusterName)
        if cluster is None or cluster.status != "ACTIVE":
            return Workloads()
        tag = record.clusterTag
        try:
            jobs = (  # jobs need the storage claim: none runs before it
                _every(lambda token: self._jobs.list_jobs(tag, PAGE, token), lambda page: page.jobs)
                if record.storageClaim
                else []
            )
            servers = _every(
                lambda token: self._servers.list_deployments(tag, PAGE, token), lambda page: page.deployments
            )
            endpoints = _every(
                lambda token: self._endpoints.list_endpoints(tag, PAGE, token), lambda page: page.endpoints
            )
            details = [self._endpoints.get(tag, endpoint.name) for endpoint in endpoints]
        except DomainError as error:
            return Workloads(unreadable=error.message)
        return Workloads(namespace=job_namespace(record.storageClaim), jobs=jobs, servers=servers, endpoints=details)


def _every(read: Callable[[str | None], Listed], items: Callable[[Listed], list[Item]]) -> list[Item]:
    """Every item of a paged list."""
    found: list[Item] = []
    token: str | None = None
    while True:
        page = read(token)
        found += items(page)
        token = page.continue_
        if not token:
            return found
