"""What moto lacks for EKS: access entries and access policies, a CREATING → ACTIVE → DELETING lifecycle,
`resourcesVpcConfig.vpcId`, and endpoints that point at the Kubernetes emulator.

Access entries are served through moto's own URL dispatch, so boto3 calls (with botocore's request
validation) reach them exactly as they would reach EKS.
"""

from __future__ import annotations

import base64
import json
import threading
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote, urlparse

from moto.core import DEFAULT_ACCOUNT_ID
from moto.ec2.models import ec2_backends
from moto.eks import urls as eks_urls
from moto.eks.models import EKSBackend, eks_backends
from moto.eks.responses import EKSResponse

# A PEM-shaped CA so the production client path (decode, write to a file) runs unchanged.
SANDBOX_CA = base64.b64encode(
    b"-----BEGIN CERTIFICATE-----\nSU5TVEFOVFNUQVJULVNBTkRCT1gtQ0E=\n-----END CERTIFICATE-----\n"
).decode()


class EksExtension:
    """Installs the lifecycle and access-entry routes on moto's EKS backend."""

    def __init__(
        self,
        endpoint_for: Callable[[str], str],
        seconds_to_active: float,
        on_active: Callable[[str], None],
        on_deleted: Callable[[str], None],
    ) -> None:
        self._endpoint_for = endpoint_for
        self._seconds = seconds_to_active
        self._on_active = on_active
        self._on_deleted = on_deleted
        self._lock = threading.RLock()
        # (region, cluster) → principalArn → {"entry": {...}, "policies": {policyArn: scope}}
        self.access_entries: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
        self._timers: dict[tuple[str, str], float] = {}
        self._originals: dict[str, Any] = {}

    # --- installation ------------------------------------------------------------------------

    def install(self) -> None:
        extension = self
        self._originals = {
            "create_cluster": EKSBackend.create_cluster,
            "describe_cluster": EKSBackend.describe_cluster,
            "delete_cluster": EKSBackend.delete_cluster,
            "list_clusters": EKSBackend.list_clusters,
            "respond_create_cluster": EKSResponse.create_cluster,
        }

        def respond_create_cluster(response: EKSResponse) -> Any:
            result = extension._originals["respond_create_cluster"](response)
            # moto drops accessConfig; EKS's default mode is CONFIG_MAP, which HyperPod refuses.
            cluster = response.eks_backend.clusters[response._get_param("name")]
            cluster.access_config = response._get_param("accessConfig") or {"authenticationMode": "CONFIG_MAP"}
            return result

        def create_cluster(backend: EKSBackend, *args: Any, **kwargs: Any) -> Any:
            cluster = extension._originals["create_cluster"](backend, *args, **kwargs)
            cluster.status = "CREATING"
            cluster.endpoint = extension._endpoint_for(cluster.name)
            cluster.certificate_authority = {"data": SANDBOX_CA}
            # EKS reports the VPC of the cluster's subnets; moto echoes the request only.
            subnets = cluster.resources_vpc_config.get("subnetIds") or []
            if subnets:
                subnet = ec2_backends[backend.account_id][backend.region_name].get_subnet(subnets[0])
                cluster.resources_vpc_config = {**cluster.resources_vpc_config, "vpcId": subnet.vpc_id}
            extension._timers[(backend.region_name, cluster.name)] = time.monotonic()
            return cluster

        def describe_cluster(backend: EKSBackend, name: str) -> Any:
            extension._advance(backend, name)
            return extension._originals["describe_cluster"](backend, name)

        def delete_cluster(backend: EKSBackend, name: str) -> Any:
            cluster = extension._originals["describe_cluster"](backend, name)
            if cluster.status != "DELETING":
                cluster.status = "DELETING"
                extension._timers[(backend.region_name, name)] = time.monotonic()
            return cluster

        def list_clusters(backend: EKSBackend, *args: Any, **kwargs: Any) -> Any:
            for name in list(backend.clusters):
                extension._advance(backend, name)
            return extension._originals["list_clusters"](backend, *args, **kwargs)

        EKSBackend.create_cluster = create_cluster  # type: ignore[method-assign]
        EKSBackend.describe_cluster = describe_cluster  # type: ignore[method-assign]
        EKSBackend.delete_cluster = delete_cluster  # type: ignore[method-assign]
        EKSBackend.list_clusters = list_clusters  # type: ignore[method-assign]
        EKSResponse.create_cluster = respond_create_cluster  # type: ignore[method-assign]
        base = "{0}/clusters/(?P<name>[^/]+)/access-entries"
        eks_urls.url_paths[base + "$"] = self.dispatch
        eks_urls.url_paths[base + "/(?P<principal>[^/]+)$"] = self.dispatch
        eks_urls.url_paths[base + "/(?P<principal>[^/]+)/access-policies$"] = self.dispatch
        eks_urls.url_paths[base + "/(?P<principal>[^/]+)/access-policies/(?P<policy>[^/]+)$"] = self.dispatch

    def uninstall(self) -> None:
        for name, original in self._originals.items():
            if name.startswith("respond_"):
                setattr(EKSResponse, name.removeprefix("respond_"), original)
            else:
                setattr(EKSBackend, name, original)
        for key in [key for key in eks_urls.url_paths if "access-entries" in key]:
            del eks_urls.url_paths[key]

    def reset(self) -> None:
        with self._lock:
            self.access_entries.clear()
            self._timers.clear()

    # --- lifecycle ---------------------------------------------------------------------------

    def _advance(self, backend: EKSBackend, name: str) -> None:
        cluster = backend.clusters.get(name)
        started = self._timers.get((backend.region_name, name))
        if cluster is None or started is None or time.monotonic() - started < self._seconds:
            return
        if cluster.status == "CREATING":
            cluster.status = "ACTIVE"
            del self._timers[(backend.region_name, name)]
            self._on_active(name)
        elif cluster.status == "DELETING":
            backend.clusters.pop(name, None)
            del self._timers[(backend.region_name, name)]
            with self._lock:
                self.access_entries.pop((backend.region_name, name), None)
            self._on_deleted(name)

    def principal_has_admin(self, cluster_name: str, principal_arn: str) -> bool:
        with self._lock:
            for (_, name), entries in self.access_entries.items():
                if name == cluster_name and principal_arn in entries:
                    return any(
                        arn.endswith("/AmazonEKSClusterAdminPolicy") for arn in entries[principal_arn]["policies"]
                    )
        return False

    # --- access entries (EKS REST API shapes) ------------------------------------------------

    def dispatch(self, request: Any, full_url: str, headers: Any) -> tuple[int, dict[str, str], str]:
        parsed = urlparse(full_url)
        region = parsed.netloc.split(".")[1]
        parts = [unquote(part) for part in parsed.path.strip("/").split("/")]
        cluster_name = parts[1]
        account_backend = eks_backends[DEFAULT_ACCOUNT_ID][region]
        if cluster_name not in account_backend.clusters:
            return _error(404, "ResourceNotFoundException", f"No cluster found for name: {cluster_name}.")
        cluster = account_backend.clusters[cluster_name]
        raw = request.get_data()
        body = json.loads(raw) if raw else {}
        method = request.method
        with self._lock:
            entries = self.access_entries.setdefault((region, cluster_name), {})
            if len(parts) == 3:
                if method == "POST":
                    return self._create(cluster, entries, body)
                return 200, {}, json.dumps({"accessEntries": sorted(entries)})
            principal = parts[3]
            if principal not in entries:
                return _error(404, "ResourceNotFoundException", "The specified principalArn could not be found.")
            entry = entries[principal]
            if len(parts) == 4:
                if method == "DELETE":
                    del entries[principal]
                    return 200, {}, "{}"
                return 200, {}, json.dumps({"accessEntry": entry["entry"]})
            if len(parts) == 5 and method == "POST":
                entry["policies"][body["policyArn"]] = body["accessScope"]
                return (
                    200,
                    {},
                    json.dumps(
                        {
                            "clusterName": cluster_name,
                            "principalArn": principal,
                            "associatedAccessPolicy": _associated(body["policyArn"], body["accessScope"]),
                        }
                    ),
                )
            if len(parts) == 5:
                return (
                    200,
                    {},
                    json.dumps(
                        {
                            "clusterName": cluster_name,
                            "principalArn": principal,
                            "associatedAccessPolicies": [
                                _associated(arn, scope) for arn, scope in entry["policies"].items()
                            ],
                        }
                    ),
                )
            policy = parts[5]
            if policy not in entry["policies"]:
                return _error(404, "ResourceNotFoundException", "The access policy is not associated.")
            del entry["policies"][policy]
            return 200, {}, "{}"

    @staticmethod
    def _create(
        cluster: Any, entries: dict[str, dict[str, Any]], body: dict[str, Any]
    ) -> tuple[int, dict[str, str], str]:
        principal = body["principalArn"]
        if principal in entries:
            return _error(409, "ResourceInUseException", "The specified access entry resource is already in use.")
        entry = {
            "clusterName": cluster.name,
            "principalArn": principal,
            "kubernetesGroups": body.get("kubernetesGroups", []),
            "accessEntryArn": f"{cluster.arn.replace(':cluster/', ':access-entry/')}/{abs(hash(principal))}",
            "createdAt": time.time(),
            "modifiedAt": time.time(),
            "tags": body.get("tags", {}),
            "username": body.get("username") or principal,
            "type": body.get("type", "STANDARD"),
        }
        entries[principal] = {"entry": entry, "policies": {}}
        return 200, {}, json.dumps({"accessEntry": entry})


def _associated(policy_arn: str, scope: dict[str, Any]) -> dict[str, Any]:
    return {"policyArn": policy_arn, "accessScope": scope, "associatedAt": time.time(), "modifiedAt": time.time()}


def _error(status: int, code: str, message: str) -> tuple[int, dict[str, str], str]:
    return status, {"x-amzn-ErrorType": code}, json.dumps({"__type": code, "message": message})
