"""The EKS add-on and Pod Identity REST routes, served from :class:`~sandbox.aws.eks.addons.ClusterAddons`.

Served: CreateAddon, DescribeAddon, ListAddons, DeleteAddon, DescribeAddonVersions (from the catalog),
CreatePodIdentityAssociation, DescribePodIdentityAssociation, ListPodIdentityAssociations and
DeletePodIdentityAssociation. Each EKS cluster gets its own add-on state, dropped when moto no longer has the cluster
(or has a new one of the same name); ``schedulable(cluster name, tolerated taint keys)`` says whether a node of the
cluster can run a pod tolerating those taints, which its add-ons' health depends on.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import partial
from typing import Any

from moto.eks.models import eks_backends

from sandbox.aws.eks.addons import ClusterAddons
from sandbox.aws.eks.catalog import CATALOG, addon_info
from sandbox.aws.eks.errors import EksError
from sandbox.aws.eks.rest import CLUSTER, Response, RestCall, ok, route
from sandbox.aws.patches import Patches


class AddonRoutes:
    def __init__(self, account: str, seconds: float, schedulable: Callable[[str, tuple[str, ...]], bool]) -> None:
        self._account = account
        # How long an add-on takes to settle, for the clusters seen from then on; a benchmark may set it.
        self.seconds = seconds
        self._schedulable = schedulable
        self._lock = threading.Lock()
        self._clusters: dict[tuple[str, str], tuple[Any, ClusterAddons]] = {}  # → (moto's createdAt, state)
        self._patches = Patches()

    def install(self) -> None:
        patterns = [
            CLUSTER + "/addons$",
            CLUSTER + "/addons/(?P<addonName>[^/]+)$",
            CLUSTER + "/pod-identity-associations$",
            CLUSTER + "/pod-identity-associations/(?P<associationId>[^/]+)$",
        ]
        route(patterns, self._handle, self._patches)
        route(["{0}/addons/supported-versions$"], _addon_versions, self._patches)

    def uninstall(self) -> None:
        self._patches.restore()

    def _handle(self, call: RestCall) -> Response:
        with self._lock:
            addons = self._cluster(call.region, call.parts[1])
            addons.advance()
            resource, item = call.parts[2], call.parts[3] if len(call.parts) > 3 else None
            if resource == "addons":
                return _addon_call(addons, call, item)
            return _association_call(addons, call, item)

    def _cluster(self, region: str, name: str) -> ClusterAddons:
        cluster = eks_backends[self._account][region].clusters.get(name)
        key = (region, name)
        if cluster is None:
            self._clusters.pop(key, None)
            raise EksError(404, "ResourceNotFoundException", f"No cluster found for name: {name}.", clusterName=name)
        known = self._clusters.get(key)
        if known is None or known[0] != cluster.created_at:
            known = self._clusters[key] = (
                cluster.created_at,
                ClusterAddons(cluster.arn, str(cluster.version), self.seconds, partial(self._schedulable, name)),
            )
        return known[1]


def _addon_versions(call: RestCall) -> Response:
    """DescribeAddonVersions: the catalog's add-ons (or the one named), paged by `maxResults` and `nextToken`."""
    name, kubernetes = call.param("addonName"), call.param("kubernetesVersion")
    entries = [CATALOG[name]] if name in CATALOG else [] if name else list(CATALOG.values())
    start = int(call.param("nextToken") or 0)
    end = start + int(call.param("maxResults") or 100)
    page: dict[str, Any] = {"addons": [addon_info(entry, kubernetes) for entry in entries[start:end]]}
    if end < len(entries):
        page["nextToken"] = str(end)
    return ok(page)


def _addon_call(addons: ClusterAddons, call: RestCall, addon_name: str | None) -> Response:
    body = call.body
    if addon_name is None and call.method == "POST":
        addon = addons.create_addon(
            body["addonName"],
            body.get("addonVersion"),
            role_arn=body.get("serviceAccountRoleArn"),
            configuration=body.get("configurationValues"),
            resolve_conflicts=body.get("resolveConflicts"),
            namespace=(body.get("namespaceConfig") or {}).get("namespace"),
            pod_identities=tuple(
                (item["serviceAccount"], item["roleArn"]) for item in body.get("podIdentityAssociations") or []
            ),
            tags=body.get("tags"),
            token=body.get("clientRequestToken"),
        )
        return ok({"addon": addon})
    if addon_name is None:
        return ok({"addons": addons.addon_names()})
    if call.method == "DELETE":
        return ok({"addon": addons.delete_addon(addon_name)})
    return ok({"addon": addons.addon(addon_name)})


def _association_call(addons: ClusterAddons, call: RestCall, association_id: str | None) -> Response:
    body = call.body
    if association_id is None and call.method == "POST":
        options: dict[str, Any] = {k: body[k] for k in ("targetRoleArn", "policy", "disableSessionTags") if k in body}
        association = addons.create_association(
            body["namespace"],
            body["serviceAccount"],
            body["roleArn"],
            tags=body.get("tags"),
            token=body.get("clientRequestToken"),
            options=options,
        )
        return ok({"association": association})
    if association_id is None:
        return ok({"associations": addons.associations(call.param("namespace"), call.param("serviceAccount"))})
    if call.method == "DELETE":
        return ok({"association": addons.delete_association(association_id)})
    if call.method == "POST":
        raise EksError(400, "InvalidRequestException", "The sandbox does not simulate UpdatePodIdentityAssociation.")
    return ok({"association": addons.association(association_id)})
