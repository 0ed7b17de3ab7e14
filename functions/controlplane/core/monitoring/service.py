"""The monitoring reads of a cluster: its overview (SageMaker and Kubernetes read at the same time, every
Kubernetes list streamed in pages into a tally) and one page of its pods."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from itertools import islice
from typing import TypeVar

from controlplane.core.control_plane import reachable_control_plane
from controlplane.core.features.catalog.observability import OBSERVABILITY_ADDON, bring_your_own_grafana
from controlplane.core.monitoring.tally import EventTally, NodeTally, PodTally, overview
from controlplane.core.naming import hyperpod_cluster_of
from controlplane.core.ports.eks import Addon, EksCluster, EksGateway
from controlplane.core.ports.hyperpod import HyperPodGateway
from controlplane.core.ports.hyperpod_activity import EventFilter, HyperPodActivityGateway
from controlplane.core.ports.kubernetes import ClusterReadGateway, PodFacts
from controlplane.core.registry import ClusterService
from controlplane.models.clusters import ClusterRecord
from controlplane.models.common import DEFAULT_PAGE_SIZE
from controlplane.models.monitoring import ClusterOverview, ObservabilityLinks, PodList, PodView

T = TypeVar("T")
# The reads of an overview that run at once: HyperPod, its events, the add-on, nodes, pods, Kubernetes' events.
OVERVIEW_READS = 6
# HyperPod's newest cluster events the overview looks through for warnings.
HYPERPOD_EVENTS_READ = 200


class MonitoringService:
    def __init__(
        self,
        clusters: ClusterService,
        eks: Callable[[str], EksGateway],
        hyperpod: Callable[[str], HyperPodGateway],
        reads: ClusterReadGateway,
        activity: Callable[[str], HyperPodActivityGateway],
    ) -> None:
        self._clusters = clusters
        self._eks = eks
        self._hyperpod = hyperpod
        self._reads = reads
        self._activity = activity

    def overview(self, cluster_tag: str) -> ClusterOverview:
        """Nodes by state and health, GPUs per node, group and cluster, pods by phase, the pending ones and why,
        and the newest warnings of Kubernetes and HyperPod; each Kubernetes list is read in pages and folded into
        counts as it comes."""
        record, cluster = self._cluster(cluster_tag)
        region = record.region
        nodes, pods, events = NodeTally(), PodTally(), EventTally()
        hyperpod_name = hyperpod_cluster_of(record.clusterTag, record.hyperPodClusterName)
        with ThreadPoolExecutor(max_workers=OVERVIEW_READS) as pool:
            hyperpod = pool.submit(self._hyperpod(region).find_cluster, hyperpod_name)
            recent = pool.submit(
                lambda: list(islice(self._activity(region).events(hyperpod_name, EventFilter()), HYPERPOD_EVENTS_READ))
            )
            addon = pool.submit(self._eks(region).find_addon, cluster.name, OBSERVABILITY_ADDON)
            streams = [
                pool.submit(_fold, self._reads.node_pages(cluster, region), nodes.add),
                pool.submit(_fold, self._reads.pod_counts(cluster, region), pods.add),
                pool.submit(_fold, self._reads.warning_event_pages(cluster, region), events.add),
            ]
            for stream in streams:
                stream.result()
            found, installed = hyperpod.result(), addon.result()
            events.add_hyperpod(recent.result())
        links = _observability_links(region, hyperpod_name, installed) if installed else None
        return overview(cluster_tag, found, nodes, pods, events, links)

    def pods(
        self,
        cluster_tag: str,
        limit: int = DEFAULT_PAGE_SIZE,
        token: str | None = None,
        namespace: str | None = None,
        phase: str | None = None,
        node: str | None = None,
    ) -> PodList:
        """A page of the cluster's pods, filtered by the API server, in Kubernetes' order (namespace, name)."""
        record, cluster = self._cluster(cluster_tag)
        page = self._reads.pod_page(cluster, record.region, limit, token, namespace, phase, node)
        return PodList(clusterTag=cluster_tag, pods=[_pod_view(pod) for pod in page.items], continue_=page.next_token)

    def _cluster(self, cluster_tag: str) -> tuple[ClusterRecord, EksCluster]:
        record = self._clusters.get(cluster_tag)
        eks = self._eks(record.region)
        return record, reachable_control_plane(eks, record.eksClusterName, cluster_tag, active=True)


def _fold(pages: Iterator[T], add: Callable[[T], None]) -> None:
    for page in pages:
        add(page)


def _observability_links(region: str, hyperpod_name: str, addon: Addon) -> ObservabilityLinks:
    """The consoles, and the workspace the add-on writes to as its configuration names it."""
    console = f"https://{region}.console.aws.amazon.com"
    workspace = _configured_workspace(addon.configuration)
    endpoint = workspace.get("prometheusEndpoint")
    workspace_id = str(workspace.get("arn", "")).rpartition("/")[2] or None
    return ObservabilityLinks(
        addonStatus=addon.status,
        prometheusWorkspace=workspace_id,
        prometheusEndpoint=endpoint,
        grafana=f"{console}/grafana/home?region={region}#/workspaces",
        prometheus=f"{console}/prometheus/home?region={region}#/workspaces"
        + (f"/workspace/{workspace_id}" if workspace_id else ""),
        hyperPodConsole=f"{console}/sagemaker/home?region={region}#/cluster-management/{hyperpod_name}",
        bringYourOwn=bring_your_own_grafana(region, endpoint),
    )


def _configured_workspace(configuration: str | None) -> dict[str, str]:
    """`ampWorkspace` of the add-on's configurationValues ({} when it names none, e.g. installed by hand)."""
    try:
        parsed = json.loads(configuration or "{}")
    except ValueError:
        return {}
    workspace = parsed.get("ampWorkspace") if isinstance(parsed, dict) else None
    return workspace if isinstance(workspace, dict) else {}


def _pod_view(pod: PodFacts) -> PodView:
    return PodView(
        namespace=pod.namespace,
        name=pod.name,
        node=pod.node,
        phase=pod.phase,
        gpus=pod.gpus,
        restarts=pod.restarts,
        reason=pod.waiting_reason,
        createdAt=pod.created_at,
    )
