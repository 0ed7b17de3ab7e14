"""What moto lacks for EKS add-ons and EKS Pod Identity: CreateAddon and friends, DescribeAddonVersions,
DescribeAddonConfiguration, DescribeUpdate for add-on updates, and the pod identity association API.

Served through moto's own URL dispatch (like `eks_extension`), so boto3 calls — with botocore's request
validation — reach them exactly as they would reach EKS. Status changes are lazy: every request for a
cluster first advances that cluster's add-ons whose `seconds_to_active` have elapsed; there are no threads.

`on_change(region, cluster, kind, obj)` is called after every add-on status change (kind "addon", obj the
`addon` shape) and every pod identity association change (kind "pod-identity-association", obj the
`association` shape). When an object is gone, obj carries `"deleted": True` (an add-on also
`"status": "DELETED"` and `"preserve"`, the DeleteAddon flag). Callbacks run after the internal lock is
released, so they may call the EKS API again.
"""

from __future__ import annotations

import copy
import json
import re
import secrets
import string
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, unquote, urlparse

from moto.core import DEFAULT_ACCOUNT_ID
from moto.eks import urls as eks_urls
from moto.eks.models import eks_backends

Response = tuple[int, dict[str, str], str]
OnChange = Callable[[str, str, str, dict[str, Any]], None]

KUBERNETES_VERSIONS = ("1.32", "1.33", "1.34", "1.35")

ADDON = "addon"
ASSOCIATION = "pod-identity-association"

TRAINING_OPERATOR = "amazon-sagemaker-hyperpod-training-operator"
INFERENCE_OPERATOR = "amazon-sagemaker-hyperpod-inference"
OBSERVABILITY = "amazon-sagemaker-hyperpod-observability"
TASK_GOVERNANCE = "amazon-sagemaker-hyperpod-taskgovernance"


def _catalog_entry(
    name: str,
    addon_type: str,
    publisher: str,
    owner: str,
    namespace: str,
    versions: list[tuple[str, tuple[str, ...]]],
    *,
    requires_configuration: bool = False,
    requires_iam_permissions: bool = False,
) -> dict[str, Any]:
    """One `addons[]` item of DescribeAddonVersions. `versions` is newest first; the newest version compatible
    with a Kubernetes version is that version's default."""
    defaults: set[str] = set()
    infos = []
    for version, kubernetes_versions in versions:
        compatibilities = []
        for kubernetes_version in kubernetes_versions:
            is_default = kubernetes_version not in defaults
            defaults.add(kubernetes_version)
            compatibilities.append(
                {"clusterVersion": kubernetes_version, "platformVersions": ["*"], "defaultVersion": is_default}
            )
        infos.append(
            {
                "addonVersion": version,
                "architecture": ["amd64", "arm64"],
                "computeTypes": ["ec2"],
                "compatibilities": compatibilities,
                "requiresConfiguration": requires_configuration,
                "requiresIamPermissions": requires_iam_permissions,
            }
        )
    return {
        "addonName": name,
        "type": addon_type,
        "addonVersions": infos,
        "publisher": publisher,
        "owner": owner,
        "defaultNamespace": namespace,
    }


_ALL = KUBERNETES_VERSIONS
_OLDER = ("1.32", "1.33")
_NOT_NEWEST = ("1.32", "1.33", "1.34")

# DescribeAddonVersions catalog, keyed by add-on name; each value is exactly one `addons[]` response item.
ADDON_CATALOG: dict[str, dict[str, Any]] = {
    entry["addonName"]: entry
    for entry in (
        _catalog_entry(
            "eks-pod-identity-agent",
            "security",
            "eks",
            "aws",
            "kube-system",
            [("v1.3.8-eksbuild.2", _ALL), ("v1.3.7-eksbuild.2", _ALL), ("v1.3.4-eksbuild.1", _OLDER)],
        ),
        _catalog_entry(
            "aws-mountpoint-s3-csi-driver",
            "storage",
            "s3",
            "aws",
            "kube-system",
            [
                ("v2.1.0-eksbuild.1", _ALL),
                ("v1.15.0-eksbuild.1", _ALL),
                ("v1.14.1-eksbuild.1", _NOT_NEWEST),
                ("v1.11.0-eksbuild.1", _OLDER),
            ],
            requires_iam_permissions=True,
        ),
        _catalog_entry(
            "aws-fsx-csi-driver",
            "storage",
            "eks",
            "aws",
            "kube-system",
            [("v1.7.0-eksbuild.1", _ALL), ("v1.6.0-eksbuild.1", _ALL), ("v1.5.0-eksbuild.1", _OLDER)],
            requires_iam_permissions=True,
        ),
        _catalog_entry(
            "aws-ebs-csi-driver",
            "storage",
            "eks",
            "aws",
            "kube-system",
            [("v1.48.0-eksbuild.2", _ALL), ("v1.46.0-eksbuild.1", _ALL), ("v1.44.0-eksbuild.1", _NOT_NEWEST)],
            requires_iam_permissions=True,
        ),
        _catalog_entry(
            "cert-manager",
            "security",
            "eks",
            "community",
            "cert-manager",
            [("v1.18.2-eksbuild.2", _ALL), ("v1.18.2-eksbuild.1", _ALL), ("v1.17.2-eksbuild.1", _NOT_NEWEST)],
        ),
        _catalog_entry(
            "metrics-server",
            "observability",
            "eks",
            "community",
            "kube-system",
            [
                ("v0.8.0-eksbuild.2", _ALL),
                ("v0.7.2-eksbuild.4", _ALL),
                ("v0.7.2-eksbuild.3", _ALL),
                ("v0.7.2-eksbuild.1", _OLDER),
            ],
        ),
        _catalog_entry(
            TRAINING_OPERATOR,
            "machine-learning",
            "eks",
            "aws",
            "aws-hyperpod",
            [("v1.2.0-eksbuild.1", _ALL), ("v1.1.1-eksbuild.1", _ALL), ("v1.0.0-eksbuild.1", _OLDER)],
            requires_iam_permissions=True,
        ),
        _catalog_entry(
            INFERENCE_OPERATOR,
            "machine-learning",
            "eks",
            "aws",
            "hyperpod-inference-system",
            [
                ("v2.0.0-eksbuild.2", _ALL),
                ("v2.0.0-eksbuild.1", _ALL),
                ("v1.1.0-eksbuild.1", _ALL),
                ("v1.0.0-eksbuild.1", _NOT_NEWEST),
            ],
            requires_configuration=True,
            requires_iam_permissions=True,
        ),
        _catalog_entry(
            OBSERVABILITY,
            "observability",
            "eks",
            "aws",
            "hyperpod-observability",
            [("v1.1.0-eksbuild.1", _ALL), ("v1.0.2-eksbuild.1", _NOT_NEWEST)],
            requires_iam_permissions=True,
        ),
        _catalog_entry(
            TASK_GOVERNANCE,
            "machine-learning",
            "eks",
            "aws",
            "kueue-system",
            [("v1.4.0-eksbuild.1", _ALL), ("v1.3.0-eksbuild.1", _ALL), ("v1.2.1-eksbuild.1", _OLDER)],
        ),
    )
}

# Namespace of the pod identity associations an add-on creates (CreateAddon podIdentityAssociations);
# add-ons not listed use kube-system. namespaceConfig.namespace, when given, wins.
ADDON_NAMESPACES: dict[str, str] = {
    TRAINING_OPERATOR: "aws-hyperpod",
    INFERENCE_OPERATOR: "hyperpod-inference-system",
    OBSERVABILITY: "hyperpod-observability",
    "aws-mountpoint-s3-csi-driver": "kube-system",
    "aws-fsx-csi-driver": "kube-system",
    "aws-ebs-csi-driver": "kube-system",
}

# Add-ons that must be ACTIVE on the cluster first: dependency → minimum version (None: any).
ADDON_DEPENDENCIES: dict[str, dict[str, str | None]] = {
    TRAINING_OPERATOR: {"cert-manager": None, "eks-pod-identity-agent": None},
    INFERENCE_OPERATOR: {
        "aws-mountpoint-s3-csi-driver": "v1.14.1",
        "aws-fsx-csi-driver": "v1.6.0",
        "metrics-server": "v0.7.2",
        "cert-manager": "v1.18.2",
    },
}

# configurationValues keys an add-on cannot install without (its `requiresConfiguration` catalog flag).
ADDON_REQUIRED_CONFIGURATION: dict[str, tuple[str, ...]] = {
    INFERENCE_OPERATOR: ("executionRoleArn", "tlsCertificateS3Bucket"),
}

# DescribeAddonConfiguration podIdentityConfiguration: service account → recommended managed policies.
ADDON_SERVICE_ACCOUNTS: dict[str, dict[str, list[str]]] = {
    TRAINING_OPERATOR: {
        "hp-training-operator-controller-manager": [
            "arn:aws:iam::aws:policy/AmazonSageMakerHyperPodTrainingOperatorAccess"
        ]
    },
    INFERENCE_OPERATOR: {
        "hyperpod-inference-controller-manager": ["arn:aws:iam::aws:policy/AmazonSageMakerHyperPodInferenceAccess"]
    },
    OBSERVABILITY: {
        "hyperpod-observability-operator-otel-collector": [
            "arn:aws:iam::aws:policy/AmazonPrometheusRemoteWriteAccess",
            "arn:aws:iam::aws:policy/CloudWatchAgentServerPolicy",
        ]
    },
    "aws-mountpoint-s3-csi-driver": {"s3-csi-driver-sa": []},
    "aws-fsx-csi-driver": {"fsx-csi-controller-sa": ["arn:aws:iam::aws:policy/AmazonFSxFullAccess"]},
    "aws-ebs-csi-driver": {"ebs-csi-controller-sa": ["arn:aws:iam::aws:policy/service-role/AmazonEBSCSIDriverPolicy"]},
}

_SETTLED = ("ACTIVE", "CREATE_FAILED", "UPDATE_FAILED", "DEGRADED", "DELETE_FAILED")
_INSTALLED = ("ACTIVE", "UPDATING")
_RESOLVE_CONFLICTS = ("OVERWRITE", "NONE", "PRESERVE")
_ID_ALPHABET = string.ascii_lowercase + string.digits


def addon_namespace(addon_name: str, namespace_config: dict[str, Any] | None = None) -> str:
    """Namespace an add-on's pod identity associations live in."""
    if namespace_config and namespace_config.get("namespace"):
        return str(namespace_config["namespace"])
    return ADDON_NAMESPACES.get(addon_name, "kube-system")


def _version_key(version: str) -> tuple[int, ...]:
    """`v1.18.2-eksbuild.3` → (1, 18, 2, 3); `v1.18.2` → (1, 18, 2, 0)."""
    match = re.match(r"v?(\d+)\.(\d+)\.(\d+)(?:-eksbuild\.(\d+))?", version)
    if match is None:
        return (0,)
    return tuple(int(part or 0) for part in match.groups())


class _ApiError(Exception):
    def __init__(self, status: int, code: str, message: str, **fields: str) -> None:
        super().__init__(message)
        self.response = _error(status, code, message, **fields)


class EksAddonsExtension:
    """Installs the add-on and pod identity routes on moto's EKS URL table."""

    def __init__(self, seconds_to_active: float = 2.0, on_change: OnChange | None = None) -> None:
        self._seconds = seconds_to_active
        self._on_change = on_change
        self._lock = threading.RLock()
        # (region, cluster) → addon name → {"addon": shape, "started", "token", "preserve", "missing", ...}
        self.addons: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
        # (region, cluster) → association id → {"association": shape, "token"}
        self.associations: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
        # (region, cluster) → update id → {"update": shape, "addon": name}
        self.updates: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
        # (region, cluster) → the moto cluster's createdAt, to notice a cluster deleted and created again
        self._generations: dict[tuple[str, str], Any] = {}
        self._patterns: list[str] = []

    # --- installation ------------------------------------------------------------------------

    def install(self) -> None:
        cluster = "{0}/clusters/(?P<name>[^/]+)"
        self._patterns = [
            cluster + "/addons$",
            cluster + "/addons/(?P<addonName>[^/]+)$",
            cluster + "/addons/(?P<addonName>[^/]+)/update$",
            cluster + "/pod-identity-associations$",
            cluster + "/pod-identity-associations/(?P<associationId>[^/]+)$",
            cluster + "/updates/(?P<updateId>[^/]+)$",
            "{0}/addons/supported-versions$",
            "{0}/addons/configuration-schemas$",
        ]
        for pattern in self._patterns:
            eks_urls.url_paths[pattern] = self.dispatch

    def uninstall(self) -> None:
        for pattern in self._patterns:
            if eks_urls.url_paths.get(pattern) == self.dispatch:
                del eks_urls.url_paths[pattern]
        self._patterns = []

    def reset(self) -> None:
        with self._lock:
            self.addons.clear()
            self.associations.clear()
            self.updates.clear()
            self._generations.clear()

    def forget_cluster(self, region: str, cluster: str) -> None:
        """Drops a deleted cluster's add-ons, associations and updates (no on_change calls)."""
        with self._lock:
            key = (region, cluster)
            for table in (self.addons, self.associations, self.updates, self._generations):
                table.pop(key, None)

    # --- dispatch ----------------------------------------------------------------------------

    def dispatch(self, request: Any, full_url: str, headers: Any) -> Response:
        parsed = urlparse(full_url)
        region = parsed.netloc.split(".")[1]
        parts = [unquote(part) for part in parsed.path.strip("/").split("/")]
        query = parse_qs(parsed.query)
        raw = request.get_data()
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            return _error(400, "InvalidParameterException", "The request body is not valid JSON.")
        events: list[tuple[str, str, str, dict[str, Any]]] = []
        try:
            with self._lock:
                if parts[0] == "addons":
                    result = self._addon_catalog_route(parts, query)
                else:
                    result = self._cluster_route(region, parts, request.method, query, body, events)
        except _ApiError as error:
            result = error.response
        if self._on_change is not None:
            for event in events:
                self._on_change(*event)
        return result

    def _addon_catalog_route(self, parts: list[str], query: dict[str, list[str]]) -> Response:
        if parts[1] == "supported-versions":
            return self._describe_addon_versions(query)
        return self._describe_addon_configuration(query)

    def _cluster_route(
        self,
        region: str,
        parts: list[str],
        method: str,
        query: dict[str, list[str]],
        body: dict[str, Any],
        events: list[tuple[str, str, str, dict[str, Any]]],
    ) -> Response:
        cluster_name = parts[1]
        cluster = eks_backends[DEFAULT_ACCOUNT_ID][region].clusters.get(cluster_name)
        key = (region, cluster_name)
        if cluster is None or self._generations.get(key, cluster.created_at) != cluster.created_at:
            self.forget_cluster(region, cluster_name)
        if cluster is None:
            raise _ApiError(
                404,
                "ResourceNotFoundException",
                f"No cluster found for name: {cluster_name}.",
                clusterName=cluster_name,
            )
        self._generations[key] = cluster.created_at
        self._advance(region, cluster_name, events)
        context = _Context(self, region, cluster, events)
        resource = parts[2]
        if resource == "updates":
            return context.describe_update(parts[3], query)
        if resource == "pod-identity-associations":
            if len(parts) == 3:
                if method == "POST":
                    return context.create_association(body)
                return context.list_associations(query)
            if method == "DELETE":
                return context.delete_association(parts[3])
            if method == "POST":
                return context.update_association(parts[3], body)
            return context.describe_association(parts[3])
        if len(parts) == 3:
            if method == "POST":
                return context.create_addon(body)
            return context.list_addons(query)
        if len(parts) == 5:
            return context.update_addon(parts[3], body)
        if method == "DELETE":
            return context.delete_addon(parts[3], query)
        return _ok({"addon": context.addon_record(parts[3])["addon"]})

    # --- lifecycle ---------------------------------------------------------------------------

    def _advance(self, region: str, cluster_name: str, events: list[tuple[str, str, str, dict[str, Any]]]) -> None:
        """Settles every add-on of the cluster whose delay has passed, oldest first (so a dependency created
        before its dependent settles first)."""
        key = (region, cluster_name)
        records = self.addons.get(key, {})
        now = time.monotonic()
        for name, record in sorted(records.items(), key=lambda item: item[1]["started"]):
            addon = record["addon"]
            if addon["status"] in _SETTLED or now - record["started"] < self._seconds:
                continue
            if addon["status"] == "DELETING":
                del records[name]
                for association_id in list(record["owned"]):
                    self._remove_association(region, cluster_name, association_id, events)
                gone = {**copy.deepcopy(addon), "status": "DELETED", "deleted": True, "preserve": record["preserve"]}
                events.append((region, cluster_name, ADDON, gone))
                continue
            missing = sorted(set(record["missing"]) | set(self._missing_dependencies(region, cluster_name, name)))
            if addon["status"] == "CREATING":
                addon["status"] = "CREATE_FAILED" if missing else "ACTIVE"
            else:
                addon["status"] = "UPDATE_FAILED" if missing else "ACTIVE"
                update = self.updates.get(key, {}).get(record.get("update_id", ""))
                if update is not None:
                    update["update"]["status"] = "Failed" if missing else "Successful"
                    if missing:
                        update["update"]["errors"] = [
                            {
                                "errorCode": "ConfigurationConflict",
                                "errorMessage": _dependency_message(name, missing),
                                "resourceIds": missing,
                            }
                        ]
            addon["health"] = {"issues": [_dependency_issue(name, missing)] if missing else []}
            addon["modifiedAt"] = time.time()
            record["missing"] = []
            events.append((region, cluster_name, ADDON, copy.deepcopy(addon)))

    def _missing_dependencies(self, region: str, cluster_name: str, addon_name: str) -> list[str]:
        records = self.addons.get((region, cluster_name), {})
        missing = []
        for dependency, minimum in ADDON_DEPENDENCIES.get(addon_name, {}).items():
            record = records.get(dependency)
            if (
                record is None
                or record["addon"]["status"] not in _INSTALLED
                or (minimum is not None and _version_key(record["addon"]["addonVersion"]) < _version_key(minimum))
            ):
                missing.append(dependency)
        return missing

    def _remove_association(
        self, region: str, cluster_name: str, association_id: str, events: list[tuple[str, str, str, dict[str, Any]]]
    ) -> dict[str, Any] | None:
        record = self.associations.get((region, cluster_name), {}).pop(association_id, None)
        if record is None:
            return None
        for addon in self.addons.get((region, cluster_name), {}).values():
            if association_id in addon["owned"]:
                addon["owned"].remove(association_id)
                arns = addon["addon"]["podIdentityAssociations"]
                arns[:] = [arn for arn in arns if not arn.endswith("/" + association_id)]
        events.append((region, cluster_name, ASSOCIATION, {**copy.deepcopy(record["association"]), "deleted": True}))
        return record["association"]

    # --- catalog -----------------------------------------------------------------------------

    @staticmethod
    def _describe_addon_versions(query: dict[str, list[str]]) -> Response:
        name = _one(query, "addonName")
        kubernetes_version = _one(query, "kubernetesVersion")
        types, publishers, owners = query.get("types"), query.get("publishers"), query.get("owners")
        items = []
        for entry in ADDON_CATALOG.values():
            if (
                (name and entry["addonName"] != name)
                or (types and entry["type"] not in types)
                or (publishers and entry["publisher"] not in publishers)
                or (owners and entry["owner"] not in owners)
            ):
                continue
            item = copy.deepcopy(entry)
            if kubernetes_version:
                item["addonVersions"] = [
                    {
                        **info,
                        "compatibilities": [
                            c for c in info["compatibilities"] if c["clusterVersion"] == kubernetes_version
                        ],
                    }
                    for info in item["addonVersions"]
                    if any(c["clusterVersion"] == kubernetes_version for c in info["compatibilities"])
                ]
                if not item["addonVersions"]:
                    continue
            items.append(item)
        page, token = _page(items, query, default_size=100)
        return _ok({"addons": page, **({"nextToken": token} if token else {})})

    @staticmethod
    def _describe_addon_configuration(query: dict[str, list[str]]) -> Response:
        name, version = _one(query, "addonName"), _one(query, "addonVersion")
        entry = ADDON_CATALOG.get(name or "")
        if entry is None or not any(info["addonVersion"] == version for info in entry["addonVersions"]):
            raise _ApiError(
                404,
                "ResourceNotFoundException",
                f"Addon {name} with version {version} not found.",
                addonName=name or "",
            )
        schema = {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties": {}}
        return _ok(
            {
                "addonName": name,
                "addonVersion": version,
                "configurationSchema": json.dumps(schema),
                "podIdentityConfiguration": [
                    {"serviceAccount": account, "recommendedManagedPolicies": policies}
                    for account, policies in ADDON_SERVICE_ACCOUNTS.get(name or "", {}).items()
                ],
            }
        )


class _Context:
    """One request against one cluster; the caller holds the extension's lock."""

    def __init__(
        self,
        extension: EksAddonsExtension,
        region: str,
        cluster: Any,
        events: list[tuple[str, str, str, dict[str, Any]]],
    ) -> None:
        self.extension = extension
        self.region = region
        self.cluster = cluster
        self.name: str = cluster.name
        self.key = (region, cluster.name)
        self.events = events
        self.account = cluster.arn.split(":")[4]
        self.partition = cluster.arn.split(":")[1]

    @property
    def addons(self) -> dict[str, dict[str, Any]]:
        return self.extension.addons.setdefault(self.key, {})

    @property
    def associations(self) -> dict[str, dict[str, Any]]:
        return self.extension.associations.setdefault(self.key, {})

    def _emit(self, kind: str, obj: dict[str, Any]) -> None:
        self.events.append((self.region, self.name, kind, copy.deepcopy(obj)))

    # --- add-ons -----------------------------------------------------------------------------

    def addon_record(self, addon_name: str) -> dict[str, Any]:
        record = self.addons.get(addon_name)
        if record is None:
            raise _ApiError(
                404,
                "ResourceNotFoundException",
                f"No addon: {addon_name} found in cluster: {self.name}",
                clusterName=self.name,
                addonName=addon_name,
            )
        return record

    def _resolve_version(self, addon_name: str, requested: str | None) -> str:
        entry = ADDON_CATALOG.get(addon_name)
        kubernetes_version = str(self.cluster.version)
        if entry is None:
            raise _ApiError(
                400,
                "InvalidParameterException",
                f"Addon {addon_name} specified is not supported in {kubernetes_version} kubernetes version",
                clusterName=self.name,
                addonName=addon_name,
            )
        # Clusters on a Kubernetes version the catalog does not cover (moto's default is 1.19) accept any version.
        known = kubernetes_version in KUBERNETES_VERSIONS
        candidates = [
            info
            for info in entry["addonVersions"]
            if not known or any(c["clusterVersion"] == kubernetes_version for c in info["compatibilities"])
        ]
        if requested is None:
            defaults = [
                info
                for info in candidates
                if any(
                    c["clusterVersion"] == kubernetes_version and c["defaultVersion"] for c in info["compatibilities"]
                )
            ]
            return str((defaults or candidates)[0]["addonVersion"])
        if not any(info["addonVersion"] == requested for info in candidates):
            raise _ApiError(
                400,
                "InvalidParameterException",
                f"Addon version specified is not supported for {addon_name} in {kubernetes_version} kubernetes version",
                clusterName=self.name,
                addonName=addon_name,
            )
        return requested

    def _check_common(self, addon_name: str, body: dict[str, Any], *, creating: bool) -> None:
        resolve = body.get("resolveConflicts")
        if resolve is not None and resolve not in _RESOLVE_CONFLICTS:
            raise _ApiError(
                400, "InvalidParameterException", f"resolveConflicts must be one of {', '.join(_RESOLVE_CONFLICTS)}"
            )
        values = body.get("configurationValues")
        parsed: Any = {}
        if values:
            try:
                parsed = json.loads(values)
            except ValueError:
                parsed = None
            if not isinstance(parsed, dict):
                raise _ApiError(
                    400,
                    "InvalidParameterException",
                    f"ConfigurationValue provided in request is not supported: {addon_name} configurationValues "
                    "must be a JSON object",
                    clusterName=self.name,
                    addonName=addon_name,
                )
        required = ADDON_REQUIRED_CONFIGURATION.get(addon_name, ())
        missing = [key for key in required if not parsed.get(key)]
        # An update without configurationValues keeps the installed (complete) configuration.
        if missing and (creating or values is not None):
            raise _ApiError(
                400,
                "InvalidParameterException",
                f"ConfigurationValue provided in request is not supported: {addon_name} requires "
                f"{', '.join(missing)} in configurationValues",
                clusterName=self.name,
                addonName=addon_name,
            )
        accounts = [item["serviceAccount"] for item in body.get("podIdentityAssociations") or []]
        if len(accounts) != len(set(accounts)):
            raise _ApiError(
                400, "InvalidParameterException", "podIdentityAssociations lists a service account more than once."
            )

    def create_addon(self, body: dict[str, Any]) -> Response:
        addon_name = body["addonName"]
        existing = self.addons.get(addon_name)
        if existing is not None:
            token = body.get("clientRequestToken")
            if token and existing["token"] == token:
                return _ok({"addon": existing["addon"]})
            raise _ApiError(
                409,
                "ResourceInUseException",
                f"Addon already exists: {addon_name}",
                clusterName=self.name,
                addonName=addon_name,
            )
        version = self._resolve_version(addon_name, body.get("addonVersion"))
        self._check_common(addon_name, body, creating=True)
        namespace = addon_namespace(addon_name, body.get("namespaceConfig"))
        for item in body.get("podIdentityAssociations") or []:
            self._refuse_taken(namespace, item["serviceAccount"])
        entry = ADDON_CATALOG[addon_name]
        now = time.time()
        arn = f"arn:{self.partition}:eks:{self.region}:{self.account}:addon/{self.name}/{addon_name}/{uuid.uuid4()}"
        addon: dict[str, Any] = {
            "addonName": addon_name,
            "clusterName": self.name,
            "status": "CREATING",
            "addonVersion": version,
            "health": {"issues": []},
            "addonArn": arn,
            "createdAt": now,
            "modifiedAt": now,
            "tags": dict(body.get("tags") or {}),
            "publisher": entry["publisher"],
            "owner": entry["owner"],
            "podIdentityAssociations": [],
        }
        if body.get("serviceAccountRoleArn"):
            addon["serviceAccountRoleArn"] = body["serviceAccountRoleArn"]
        if body.get("configurationValues"):
            addon["configurationValues"] = body["configurationValues"]
        if body.get("namespaceConfig"):
            addon["namespaceConfig"] = {"namespace": namespace}
        record: dict[str, Any] = {
            "addon": addon,
            "started": time.monotonic(),
            "token": body.get("clientRequestToken"),
            "preserve": False,
            "owned": [],
            "missing": self.extension._missing_dependencies(self.region, self.name, addon_name),
        }
        self.addons[addon_name] = record
        for item in body.get("podIdentityAssociations") or []:
            self._add_owned(record, namespace, item["serviceAccount"], item["roleArn"])
        self._emit(ADDON, addon)
        return _ok({"addon": addon})

    def list_addons(self, query: dict[str, list[str]]) -> Response:
        page, token = _page(sorted(self.addons), query, default_size=100)
        return _ok({"addons": page, **({"nextToken": token} if token else {})})

    def update_addon(self, addon_name: str, body: dict[str, Any]) -> Response:
        record = self.addon_record(addon_name)
        addon = record["addon"]
        if addon["status"] in ("CREATING", "UPDATING", "DELETING"):
            raise _ApiError(
                409,
                "ResourceInUseException",
                f"Addon {addon_name} is in {addon['status']} state and cannot be updated",
                clusterName=self.name,
                addonName=addon_name,
            )
        # Validate everything before changing anything.
        self._check_common(addon_name, body, creating=False)
        version = None if body.get("addonVersion") is None else self._resolve_version(addon_name, body["addonVersion"])
        if body.get("podIdentityAssociations") is not None:
            namespace = addon_namespace(addon_name, addon.get("namespaceConfig"))
            for item in body["podIdentityAssociations"]:
                self._refuse_taken(namespace, item["serviceAccount"], owner=record)
        params = []
        if version is not None:
            addon["addonVersion"] = version
            params.append({"type": "AddonVersion", "value": version})
        if body.get("serviceAccountRoleArn") is not None:
            if body["serviceAccountRoleArn"]:
                addon["serviceAccountRoleArn"] = body["serviceAccountRoleArn"]
            else:
                addon.pop("serviceAccountRoleArn", None)
            params.append({"type": "ServiceAccountRoleArn", "value": body["serviceAccountRoleArn"]})
        if body.get("resolveConflicts") is not None:
            params.append({"type": "ResolveConflicts", "value": body["resolveConflicts"]})
        if body.get("configurationValues") is not None:
            if body["configurationValues"]:
                addon["configurationValues"] = body["configurationValues"]
            else:
                addon.pop("configurationValues", None)
            params.append({"type": "ConfigurationValues", "value": body["configurationValues"]})
        if body.get("podIdentityAssociations") is not None:
            self._replace_owned(record, body["podIdentityAssociations"])
            params.append({"type": "PodIdentityAssociations", "value": json.dumps(addon["podIdentityAssociations"])})
        update_id = str(uuid.uuid4())
        update: dict[str, Any] = {
            "id": update_id,
            "status": "InProgress",
            "type": "AddonUpdate",
            "params": params,
            "createdAt": time.time(),
            "errors": [],
        }
        self.extension.updates.setdefault(self.key, {})[update_id] = {"update": update, "addon": addon_name}
        addon["status"] = "UPDATING"
        addon["modifiedAt"] = time.time()
        record.update(started=time.monotonic(), update_id=update_id, missing=[])
        self._emit(ADDON, addon)
        return _ok({"update": update})

    def delete_addon(self, addon_name: str, query: dict[str, list[str]]) -> Response:
        record = self.addon_record(addon_name)
        addon = record["addon"]
        if addon["status"] != "DELETING":
            addon["status"] = "DELETING"
            addon["modifiedAt"] = time.time()
            record.update(started=time.monotonic(), preserve=_one(query, "preserve") == "true")
            self._emit(ADDON, addon)
        return _ok({"addon": addon})

    def describe_update(self, update_id: str, query: dict[str, list[str]]) -> Response:
        addon_name = _one(query, "addonName")
        update = self.extension.updates.get(self.key, {}).get(update_id)
        if update is None or addon_name != update["addon"]:
            raise _ApiError(
                404, "ResourceNotFoundException", f"No update found for ID: {update_id}", clusterName=self.name
            )
        return _ok({"update": update["update"]})

    # --- pod identity associations -----------------------------------------------------------

    def _refuse_taken(self, namespace: str, service_account: str, owner: dict[str, Any] | None = None) -> None:
        for record in self.associations.values():
            association = record["association"]
            if association["namespace"] == namespace and association["serviceAccount"] == service_account:
                if owner is not None and association["associationId"] in owner["owned"]:
                    continue
                raise _ApiError(
                    409,
                    "ResourceInUseException",
                    f"Association already exists: {association['associationArn']}",
                    clusterName=self.name,
                )

    def _new_association(self, body: dict[str, Any], owner_arn: str | None = None) -> dict[str, Any]:
        association_id = "a-" + "".join(secrets.choice(_ID_ALPHABET) for _ in range(17))
        now = time.time()
        association: dict[str, Any] = {
            "clusterName": self.name,
            "namespace": body["namespace"],
            "serviceAccount": body["serviceAccount"],
            "roleArn": body["roleArn"],
            "associationArn": (
                f"arn:{self.partition}:eks:{self.region}:{self.account}:podidentityassociation/"
                f"{self.name}/{association_id}"
            ),
            "associationId": association_id,
            "tags": dict(body.get("tags") or {}),
            "createdAt": now,
            "modifiedAt": now,
            "disableSessionTags": bool(body.get("disableSessionTags", False)),
        }
        if owner_arn:
            association["ownerArn"] = owner_arn
        for field in ("targetRoleArn", "policy"):
            if body.get(field):
                association[field] = body[field]
        if body.get("targetRoleArn"):
            association["externalId"] = str(uuid.uuid4())
        self.associations[association_id] = {"association": association, "token": body.get("clientRequestToken")}
        self._emit(ASSOCIATION, association)
        return association

    def _add_owned(self, record: dict[str, Any], namespace: str, service_account: str, role_arn: str) -> None:
        addon = record["addon"]
        association = self._new_association(
            {"namespace": namespace, "serviceAccount": service_account, "roleArn": role_arn}, addon["addonArn"]
        )
        record["owned"].append(association["associationId"])
        addon["podIdentityAssociations"].append(association["associationArn"])

    def _replace_owned(self, record: dict[str, Any], wanted: list[dict[str, str]]) -> None:
        addon = record["addon"]
        namespace = addon_namespace(addon["addonName"], addon.get("namespaceConfig"))
        roles = {item["serviceAccount"]: item["roleArn"] for item in wanted}
        for association_id in list(record["owned"]):
            association = self.associations[association_id]["association"]
            role = roles.pop(association["serviceAccount"], None)
            if role is None:
                self.extension._remove_association(self.region, self.name, association_id, self.events)
            elif role != association["roleArn"]:
                association.update(roleArn=role, modifiedAt=time.time())
                self._emit(ASSOCIATION, association)
        for service_account, role in roles.items():
            self._add_owned(record, namespace, service_account, role)

    def _association(self, association_id: str) -> dict[str, Any]:
        record = self.associations.get(association_id)
        if record is None:
            raise _ApiError(
                404,
                "ResourceNotFoundException",
                f"No Pod Identity Association found for id: {association_id}",
                clusterName=self.name,
            )
        association: dict[str, Any] = record["association"]
        return association

    def _refuse_owned(self, association: dict[str, Any], action: str) -> None:
        if association.get("ownerArn"):
            raise _ApiError(
                400,
                "InvalidRequestException",
                f"Cannot {action} Pod Identity Association {association['associationId']}: it is owned by "
                f"{association['ownerArn']}; use the add-on API instead.",
                clusterName=self.name,
            )

    def create_association(self, body: dict[str, Any]) -> Response:
        token = body.get("clientRequestToken")
        for record in self.associations.values():
            association = record["association"]
            if (
                token
                and record["token"] == token
                and (association["namespace"], association["serviceAccount"])
                == (body["namespace"], body["serviceAccount"])
            ):
                return _ok({"association": association})
        self._refuse_taken(body["namespace"], body["serviceAccount"])
        return _ok({"association": self._new_association(body)})

    def list_associations(self, query: dict[str, list[str]]) -> Response:
        namespace, service_account = _one(query, "namespace"), _one(query, "serviceAccount")
        summaries = []
        for record in sorted(self.associations.values(), key=lambda r: r["association"]["createdAt"]):
            association = record["association"]
            if namespace and association["namespace"] != namespace:
                continue
            if service_account and association["serviceAccount"] != service_account:
                continue
            summary = {
                field: association[field]
                for field in ("clusterName", "namespace", "serviceAccount", "associationArn", "associationId")
            }
            if association.get("ownerArn"):
                summary["ownerArn"] = association["ownerArn"]
            summaries.append(summary)
        page, token = _page(summaries, query, default_size=100)
        return _ok({"associations": page, **({"nextToken": token} if token else {})})

    def describe_association(self, association_id: str) -> Response:
        return _ok({"association": self._association(association_id)})

    def update_association(self, association_id: str, body: dict[str, Any]) -> Response:
        association = self._association(association_id)
        self._refuse_owned(association, "update")
        if body.get("roleArn"):
            association["roleArn"] = body["roleArn"]
        if body.get("disableSessionTags") is not None:
            association["disableSessionTags"] = bool(body["disableSessionTags"])
        if body.get("policy") is not None:
            if body["policy"]:
                association["policy"] = body["policy"]
            else:
                association.pop("policy", None)
        if body.get("targetRoleArn") is not None:
            if body["targetRoleArn"]:
                association["targetRoleArn"] = body["targetRoleArn"]
                association.setdefault("externalId", str(uuid.uuid4()))
            else:
                association.pop("targetRoleArn", None)
                association.pop("externalId", None)
        association["modifiedAt"] = time.time()
        self._emit(ASSOCIATION, association)
        return _ok({"association": association})

    def delete_association(self, association_id: str) -> Response:
        self._refuse_owned(self._association(association_id), "delete")
        association = self.extension._remove_association(self.region, self.name, association_id, self.events)
        return _ok({"association": association})


# --- helpers -----------------------------------------------------------------------------------


def _dependency_message(addon_name: str, missing: list[str]) -> str:
    needs = [
        f"{name} (>= {minimum})" if (minimum := ADDON_DEPENDENCIES[addon_name].get(name)) else name for name in missing
    ]
    return (
        f"Addon {addon_name} requires {', '.join(needs)} to be installed and ACTIVE on the cluster. "
        "Install the missing add-ons, then update or recreate this add-on."
    )


def _dependency_issue(addon_name: str, missing: list[str]) -> dict[str, Any]:
    return {
        "code": "ConfigurationConflict",
        "message": _dependency_message(addon_name, missing),
        "resourceIds": missing,
    }


def _one(query: dict[str, list[str]], name: str) -> str | None:
    values = query.get(name)
    return values[0] if values else None


def _page(items: list[Any], query: dict[str, list[str]], default_size: int) -> tuple[list[Any], str | None]:
    raw_size, raw_token = _one(query, "maxResults"), _one(query, "nextToken")
    try:
        size = int(raw_size) if raw_size else default_size
        start = int(raw_token) if raw_token else 0
    except ValueError:
        raise _ApiError(400, "InvalidParameterException", "The nextToken or maxResults is not valid.") from None
    if size < 1 or size > 100 or start < 0:
        raise _ApiError(400, "InvalidParameterException", "maxResults must be between 1 and 100.")
    end = start + size
    return items[start:end], (str(end) if end < len(items) else None)


def _ok(payload: dict[str, Any]) -> Response:
    return 200, {}, json.dumps(payload)


def _error(status: int, code: str, message: str, **fields: str) -> Response:
    return status, {"x-amzn-ErrorType": code}, json.dumps({"__type": code, "message": message, **fields})
