"""Dev spaces on a cluster: create (an allowed image, GPUs the cluster's nodes have, the S3 claim mounted at
~/workspace/s3), list with how to open each, start and stop (the Workspace's desiredStatus), delete behind
plan → confirm (the space's home storage goes with it).

Spaces live in the namespace of the cluster's S3 claim, as jobs do. Reads go through the view role; writes through
the jobs role, whose RBAC names the Workspace kind (`core.workload_access`). Every refusal is a 4xx naming what to
change.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from controlplane.core.auth import Actor
from controlplane.core.confirmations import Confirmations
from controlplane.core.control_plane import reachable_control_plane
from controlplane.core.features.catalog.dev_spaces import SPACES_ADDON
from controlplane.core.features.required import require_addon_feature
from controlplane.core.ports.eks import EksCluster, EksGateway
from controlplane.core.ports.kubernetes import KubernetesGateway, WorkloadGateway
from controlplane.core.registry import ClusterService
from controlplane.core.spaces import manifest
from controlplane.models.clusters import ClusterRecord, Plan, PlannedAction
from controlplane.models.errors import ConflictError, InvalidRequestError, NotFoundError
from controlplane.models.features import Feature
from controlplane.models.spaces import (
    ALLOWED_SPACE_IMAGES,
    CreateSpaceRequest,
    SpaceList,
    SpaceView,
    UpdateSpaceRequest,
)
from controlplane.models.status import GPU_RESOURCE

DELETE_SPACE_ACTION = "delete-space"
MAX_SPACES = 100


class SpaceNotFoundError(NotFoundError):
    code = "SpaceNotFound"


class SpaceNameInUseError(ConflictError):
    code = "SpaceNameInUse"


class SpaceService:
    def __init__(
        self,
        clusters: ClusterService,
        eks: Callable[[str], EksGateway],
        nodes: KubernetesGateway,
        reads: WorkloadGateway,
        writes: WorkloadGateway,
        confirmations: Confirmations,
    ) -> None:
        self._clusters = clusters
        self._eks = eks
        self._nodes = nodes
        self._reads = reads
        self._writes = writes
        self._confirmations = confirmations

    def create(self, cluster_tag: str, request: CreateSpaceRequest) -> SpaceView:
        image = manifest.image_of(request)
        if image not in ALLOWED_SPACE_IMAGES:
            raise InvalidRequestError(
                f"Image {image} is not allowed for spaces; choose one of: {', '.join(ALLOWED_SPACE_IMAGES)}.",
                {"allowedImages": list(ALLOWED_SPACE_IMAGES)},
            )
        record, cluster, namespace, claim = self._cluster(cluster_tag)
        self._require_addon(record, cluster)
        if request.gpus:
            self._require_gpus(record, cluster, request.gpus)
        if not self._writes.create(cluster, record.region, manifest.render(request, namespace, claim)):
            raise SpaceNameInUseError(
                f"A space named '{request.name}' exists in namespace {namespace}; choose another name, or delete it."
            )
        return self.get(cluster_tag, request.name)

    def list_spaces(self, cluster_tag: str) -> SpaceList:
        record, cluster, namespace, _ = self._cluster(cluster_tag)
        page = self._reads.list_objects(
            cluster, record.region, manifest.API_VERSION, manifest.KIND, namespace, MAX_SPACES, None
        )
        return SpaceList(
            clusterTag=cluster_tag,
            spaces=[manifest.view(workspace) for workspace in page.items],
            allowedImages=list(ALLOWED_SPACE_IMAGES),
        )

    def get(self, cluster_tag: str, name: str) -> SpaceView:
        record, cluster, namespace, _ = self._cluster(cluster_tag)
        return manifest.view(self._workspace(record, cluster, namespace, name))

    def update(self, cluster_tag: str, name: str, request: UpdateSpaceRequest) -> SpaceView:
        """Start or stop the space: its desiredStatus, nothing else (its storage is kept while stopped)."""
        record, cluster, namespace, _ = self._cluster(cluster_tag)
        self._workspace(record, cluster, namespace, name)
        patch = {
            "apiVersion": manifest.API_VERSION,
            "kind": manifest.KIND,
            "metadata": {"name": name, "namespace": namespace},
            "spec": {"desiredStatus": request.desiredStatus},
        }
        if not self._writes.patch_object(cluster, record.region, patch):
            raise _not_found(name, namespace)
        return self.get(cluster_tag, name)

    def plan_delete(self, cluster_tag: str, name: str, actor: Actor) -> Plan:
        space = self.get(cluster_tag, name)
        token, expires_at = self._confirmations.issue(actor, DELETE_SPACE_ACTION, f"{cluster_tag}/{name}")
        return Plan(
            actions=[_deletion(space)],
            confirmationToken=token,
            expiresAt=expires_at,
            message=f"Deleting space {name} ({space.status}) removes its home storage; the S3 claim keeps its files. "
            "Ask the person to confirm, then repeat the request with confirmationToken.",
        )

    def delete(self, cluster_tag: str, name: str, token: str, actor: Actor) -> Plan:
        record, cluster, namespace, _ = self._cluster(cluster_tag)
        space = self.get(cluster_tag, name)
        how = f"Call DELETE /clusters/{cluster_tag}/spaces/{name} without a token"
        with self._confirmations.redeeming(token, actor, DELETE_SPACE_ACTION, f"{cluster_tag}/{name}", how):
            if not self._writes.delete_object(
                cluster, record.region, manifest.API_VERSION, manifest.KIND, namespace, name
            ):
                raise _not_found(name, namespace)
        return Plan(dryRun=False, actions=[_deletion(space)], message=f"Deleted space {name}.")

    # --- helpers -----------------------------------------------------------------------------

    def _cluster(self, cluster_tag: str) -> tuple[ClusterRecord, EksCluster, str, str]:
        """The cluster, and the namespace and name of its S3 claim (spaces mount it and live beside it)."""
        record = self._clusters.get(cluster_tag)
        if not record.storageClaim:
            raise ConflictError(
                f"Cluster '{cluster_tag}' has no S3 claim for spaces to mount at ~/workspace/s3; run the storage "
                f"stage (POST /clusters/{cluster_tag}/storage) first.",
            )
        namespace, _, claim = record.storageClaim.rpartition("/")
        cluster = reachable_control_plane(self._eks(record.region), record.eksClusterName, cluster_tag)
        return record, cluster, namespace or "default", claim

    def _require_addon(self, record: ClusterRecord, cluster: EksCluster) -> None:
        require_addon_feature(
            self._eks(record.region),
            record.clusterTag,
            cluster.name,
            Feature.DEV_SPACES,
            needs="Spaces need",
            addon=f"the {SPACES_ADDON} add-on",
            then=", then create the space again",
        )

    def _require_gpus(self, record: ClusterRecord, cluster: EksCluster, gpus: int) -> None:
        most = max(
            (int(node.capacity.get(GPU_RESOURCE, "0")) for node in self._nodes.nodes(cluster, record.region)), default=0
        )
        if gpus > most:
            raise InvalidRequestError(
                f"gpus {gpus} is more than any node of cluster '{record.clusterTag}' has ({most}); ask for at most "
                f"{most}, or add an instance group with larger GPU instances.",
                {"gpus": most},
            )

    def _workspace(self, record: ClusterRecord, cluster: EksCluster, namespace: str, name: str) -> dict[str, Any]:
        found = self._nodes.get(cluster, record.region, manifest.API_VERSION, manifest.KIND, name, namespace)
        if found is None:
            raise _not_found(name, namespace)
        return found


def _deletion(space: SpaceView) -> PlannedAction:
    return PlannedAction(
        action="delete", resource=manifest.KIND, name=space.name, detail=f"{space.appType}, {space.status}"
    )


def _not_found(name: str, namespace: str) -> SpaceNotFoundError:
    return SpaceNotFoundError(
        f"No space named '{name}' in namespace {namespace}; space_list lists the cluster's spaces."
    )
