"""What every context is built with: the clock, this deployment, the wait policy, confirmations, and the
Kubernetes clients of the control plane's three identities on a cluster."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from controlplane import wiring
from controlplane.settings import settings
from controlplane.wiring.provider import provider

if TYPE_CHECKING:
    from controlplane.adapters.k8s.client import KubernetesClientFactory
    from controlplane.core.confirmations import Confirmations
    from controlplane.core.naming import Deployment
    from controlplane.core.polling import Poller
    from controlplane.core.ports.eks import ControlPlaneAccess


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


@provider
def clock() -> SystemClock:
    return SystemClock()


@provider
def deployment() -> Deployment:
    """This control plane: the name and Region it tags what it creates with, and the partition of its ARNs."""
    from controlplane.adapters.aws.session import partition, session
    from controlplane.core.naming import Deployment

    region = session().region_name
    if not region:
        raise RuntimeError("No AWS Region configured: set AWS_REGION.")
    return Deployment(name=settings().deployment_name, region=region, partition=partition(region))


@provider
def poller() -> Poller:
    from controlplane.core.polling import Poller, PollSettings

    config = settings()
    return Poller(
        settings=PollSettings(first_wait_seconds=config.poll_seconds, max_wait_seconds=config.poll_max_seconds),
        clock=wiring.clock(),
    )


@provider
def confirmations() -> Confirmations:
    from controlplane.adapters.aws.dynamo.confirmations import DynamoConfirmationStore
    from controlplane.core.confirmations import Confirmations

    return Confirmations(store=DynamoConfirmationStore(table=settings().confirmations_table), clock=wiring.clock())


@provider
def kubernetes_clients() -> KubernetesClientFactory:
    """Clients of the steps that change clusters: signed as the cluster-admin role."""
    from controlplane.adapters.k8s.client import KubernetesClientFactory

    return KubernetesClientFactory(role_arn=settings().kubernetes_role_arn)


@provider
def kubernetes_readers() -> KubernetesClientFactory:
    """Clients of the API's live reads: signed as the view role, which no cluster lets write."""
    from controlplane.adapters.k8s.client import KubernetesClientFactory

    return KubernetesClientFactory(role_arn=settings().kubernetes_view_role_arn, reader=True)


@provider
def kubernetes_job_writers() -> KubernetesClientFactory:
    """Clients of the API's job writes: signed as the jobs role, which RBAC limits to job objects."""
    from controlplane.adapters.k8s.client import KubernetesClientFactory

    return KubernetesClientFactory(role_arn=settings().kubernetes_jobs_role_arn)


def control_plane_access() -> ControlPlaneAccess:
    """The three identities' access entries, which the steps that create or import a cluster keep on it."""
    from controlplane.core.naming import JOB_WRITERS_GROUP, VIEWERS_GROUP
    from controlplane.core.ports.eks import ControlPlaneAccess

    config = settings()
    return ControlPlaneAccess(
        admin_role_arn=config.kubernetes_role_arn,
        view_role_arn=config.kubernetes_view_role_arn,
        jobs_role_arn=config.kubernetes_jobs_role_arn,
        jobs_group=JOB_WRITERS_GROUP,
        view_group=VIEWERS_GROUP,
    )
