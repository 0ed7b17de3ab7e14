"""One EKS cluster's add-ons and Pod Identity associations, and their lifecycle, as plain Python.

An add-on is ``CREATING`` and, after ``seconds``, ``ACTIVE`` — or ``CREATE_FAILED`` with a
``ConfigurationConflict`` health issue when an add-on it depends on (see the catalog) is not installed and ACTIVE
at a recent enough version. An add-on that runs a Deployment is ``DEGRADED`` (``InsufficientNumberOfReplicas``)
instead of ``ACTIVE`` while no node of the cluster can run its pods, ``ACTIVE`` ``seconds`` after one can, and
``DEGRADED`` again when the last such node goes (`sandbox.aws.eks.health`). ``DELETING`` ends with the add-on gone,
and the associations it created with it. Transitions happen lazily, when :meth:`ClusterAddons.advance` runs (every
request does). Objects are kept in the shapes EKS returns (``addon``, ``association``);
:mod:`sandbox.aws.eks.addon_routes` serves them.
"""

from __future__ import annotations

import json
import secrets
import string
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sandbox.aws.eks.catalog import CATALOG, AddonEntry, version_key
from sandbox.aws.eks.errors import EksError
from sandbox.aws.eks.health import REPLICAS_ISSUE

JsonObject = dict[str, Any]

_FAILED = ("CREATE_FAILED", "DELETE_FAILED")
_HEALTHY_OR_NOT = ("ACTIVE", "DEGRADED")
_RESOLVE_CONFLICTS = ("OVERWRITE", "NONE", "PRESERVE")
_ID_ALPHABET = string.ascii_lowercase + string.digits


@dataclass
class _Addon:
    shape: JsonObject
    started: float
    token: str | None
    owned: list[str] = field(default_factory=list)  # ids of the associations it created
    missing: list[str] = field(default_factory=list)  # dependencies missing when it was created
    placed: float | None = None  # when a node that can run its Deployments' pods was first seen


@dataclass
class _Association:
    shape: JsonObject
    token: str | None


class ClusterAddons:
    """The add-ons and pod identity associations of one EKS cluster (its ARN and Kubernetes version given);
    ``schedulable(tolerates)`` says whether a node of the cluster can run a pod tolerating those taint keys."""

    def __init__(
        self,
        arn: str,
        kubernetes_version: str,
        seconds: float,
        schedulable: Callable[[tuple[str, ...]], bool],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.arn = arn
        self.name = arn.rsplit("/", 1)[-1]
        self._partition, self._region, self._account = arn.split(":")[1], arn.split(":")[3], arn.split(":")[4]
        self._kubernetes_version = kubernetes_version
        self._seconds = seconds
        self._clock = clock
        self._schedulable = schedulable
        self._addons: dict[str, _Addon] = {}
        self._associations: dict[str, _Association] = {}

    # --- add-ons -------------------------------------------------------------------------------

    def addon(self, addon_name: str) -> JsonObject:
        return self._addon(addon_name).shape

    def addon_names(self) -> list[str]:
        return sorted(self._addons)

    def create_addon(
        self,
        addon_name: str,
        version: str | None = None,
        *,
        role_arn: str | None = None,
        configuration: str | None = None,
        resolve_conflicts: str | None = None,
        namespace: str | None = None,
        pod_identities: tuple[tuple[str, str], ...] = (),  # (service account, role ARN)
        tags: dict[str, str] | None = None,
        token: str | None = None,
    ) -> JsonObject:
        """A new add-on, CREATING; a retry with the same client request token returns the same one."""
        existing = self._addons.get(addon_name)
        if existing is not None:
            if token and existing.token == token:
                return existing.shape
            raise self._addon_error(409, "ResourceInUseException", f"Addon already exists: {addon_name}", addon_name)
        entry = CATALOG.get(addon_name)
        resolved = self._resolve_version(addon_name, entry, version)
        self._check_request(addon_name, entry, configuration, resolve_conflicts, pod_identities)
        assert entry is not None
        association_namespace = namespace or entry.association_namespace
        for service_account, _ in pod_identities:
            self._refuse_taken(association_namespace, service_account)
        now = time.time()
        arn = f"arn:{self._partition}:eks:{self._region}:{self._account}:addon/{self.name}/{addon_name}/{uuid.uuid4()}"
        shape: JsonObject = {
            "addonName": addon_name,
            "clusterName": self.name,
            "status": "CREATING",
            "addonVersion": resolved,
            "health": {"issues": []},
            "addonArn": arn,
            "createdAt": now,
            "modifiedAt": now,
            "tags": dict(tags or {}),
            "publisher": entry.publisher,
            "owner": entry.owner,
            "podIdentityAssociations": [],
        }
        if role_arn:
            shape["serviceAccountRoleArn"] = role_arn
        if configuration:
            shape["configurationValues"] = configuration
        if namespace:
            shape["namespaceConfig"] = {"namespace": namespace}
        addon = self._addons[addon_name] = _Addon(shape, self._clock(), token, missing=self._missing(addon_name))
        for service_account, role in pod_identities:
            association = self._new_association(association_namespace, service_account, role, owner=arn)
            addon.owned.append(association["associationId"])
            shape["podIdentityAssociations"].append(association["associationArn"])
        return shape

    def delete_addon(self, addon_name: str) -> JsonObject:
        addon = self._addon(addon_name)
        if addon.shape["status"] != "DELETING":
            addon.shape.update(status="DELETING", modifiedAt=time.time())
            addon.started = self._clock()
        return addon.shape

    def advance(self) -> None:
        """Settle every add-on whose delay has passed, oldest first (a dependency created first settles first), and
        bring the health of the settled ones in line with the cluster's nodes."""
        now = self._clock()
        for name, addon in sorted(self._addons.items(), key=lambda item: item[1].started):
            shape = addon.shape
            due = now - addon.started >= self._seconds
            if shape["status"] in _FAILED or (shape["status"] not in _HEALTHY_OR_NOT and not due):
                continue
            if shape["status"] == "DELETING":
                del self._addons[name]
                for association_id in addon.owned:
                    self._associations.pop(association_id, None)
                continue
            if shape["status"] == "CREATING":
                missing = sorted(set(addon.missing) | set(self._missing(name)))
                addon.missing = []
                if missing:
                    self._set(shape, "CREATE_FAILED", [_dependency_issue(name, missing)])
                    continue
            entry = CATALOG[name]
            if not entry.needs_nodes(shape["addonVersion"]):
                self._set(shape, "ACTIVE", [])
                continue
            if not self._schedulable(entry.tolerates):
                addon.placed = None
                self._set(shape, "DEGRADED", [dict(REPLICAS_ISSUE)])
                continue
            # Pods just placed take a moment to start; an add-on created with nodes there starts with them (said
            # outright: in floating point, now - (now - s) may fall short of s).
            created_with_nodes = shape["status"] == "CREATING"
            addon.placed = now - self._seconds if created_with_nodes else addon.placed or now
            ready = created_with_nodes or now - addon.placed >= self._seconds
            self._set(shape, "ACTIVE" if ready else "DEGRADED", [] if ready else [dict(REPLICAS_ISSUE)])

    # --- pod identity associations -------------------------------------------------------------

    def create_association(
        self,
        namespace: str,
        service_account: str,
        role_arn: str,
        *,
        tags: dict[str, str] | None = None,
        token: str | None = None,
        options: JsonObject | None = None,
    ) -> JsonObject:
        """A new association (``options``: targetRoleArn, policy, disableSessionTags); idempotent by token."""
        for association in self._associations.values():
            shape = association.shape
            if (
                token
                and association.token == token
                and (shape["namespace"], shape["serviceAccount"])
                == (
                    namespace,
                    service_account,
                )
            ):
                return shape
        self._refuse_taken(namespace, service_account)
        return self._new_association(namespace, service_account, role_arn, tags=tags, token=token, options=options)

    def associations(self, namespace: str | None = None, service_account: str | None = None) -> list[JsonObject]:
        """Summaries of the associations, oldest first, filtered by namespace and service account."""
        summaries = []
        for association in sorted(self._associations.values(), key=lambda a: a.shape["createdAt"]):
            shape = association.shape
            if (namespace and shape["namespace"] != namespace) or (
                service_account and shape["serviceAccount"] != service_account
            ):
                continue
            keys = ("clusterName", "namespace", "serviceAccount", "associationArn", "associationId", "ownerArn")
            summaries.append({key: shape[key] for key in keys if key in shape})
        return summaries

    def association(self, association_id: str) -> JsonObject:
        association = self._associations.get(association_id)
        if association is None:
            raise EksError(
                404,
                "ResourceNotFoundException",
                f"No Pod Identity Association found for id: {association_id}",
                clusterName=self.name,
            )
        return association.shape

    def delete_association(self, association_id: str) -> JsonObject:
        shape = self.association(association_id)
        if shape.get("ownerArn"):
            raise EksError(
                400,
                "InvalidRequestException",
                f"Cannot delete Pod Identity Association {association_id}: it is owned by {shape['ownerArn']}; "
                "use the add-on API instead.",
                clusterName=self.name,
            )
        del self._associations[association_id]
        return shape

    # --- helpers -------------------------------------------------------------------------------

    def _addon(self, addon_name: str) -> _Addon:
        addon = self._addons.get(addon_name)
        if addon is None:
            message = f"No addon: {addon_name} found in cluster: {self.name}"
            raise self._addon_error(404, "ResourceNotFoundException", message, addon_name)
        return addon

    @staticmethod
    def _set(shape: JsonObject, status: str, issues: list[JsonObject]) -> None:
        if (shape["status"], shape["health"]["issues"]) != (status, issues):
            shape.update(status=status, health={"issues": issues}, modifiedAt=time.time())

    def _addon_error(self, status: int, code: str, message: str, addon_name: str) -> EksError:
        return EksError(status, code, message, clusterName=self.name, addonName=addon_name)

    def _resolve_version(self, addon_name: str, entry: AddonEntry | None, requested: str | None) -> str:
        """The requested version, or the newest for the cluster's Kubernetes version when none is requested."""
        kubernetes = self._kubernetes_version
        if entry is None:
            message = f"Addon {addon_name} specified is not supported in {kubernetes} kubernetes version"
            raise self._addon_error(400, "InvalidParameterException", message, addon_name)
        candidates = entry.compatible(kubernetes)
        if requested is None:
            return candidates[0]
        if requested not in candidates:
            message = f"Addon version specified is not supported for {addon_name} in {kubernetes} kubernetes version"
            raise self._addon_error(400, "InvalidParameterException", message, addon_name)
        return requested

    def _check_request(
        self,
        addon_name: str,
        entry: AddonEntry | None,
        configuration: str | None,
        resolve_conflicts: str | None,
        pod_identities: tuple[tuple[str, str], ...],
    ) -> None:
        if resolve_conflicts is not None and resolve_conflicts not in _RESOLVE_CONFLICTS:
            message = f"resolveConflicts must be one of {', '.join(_RESOLVE_CONFLICTS)}"
            raise EksError(400, "InvalidParameterException", message)
        parsed: Any = {}
        if configuration:
            try:
                parsed = json.loads(configuration)
            except ValueError:
                parsed = None
            if not isinstance(parsed, dict):
                message = (
                    f"ConfigurationValue provided in request is not supported: {addon_name} configurationValues "
                    "must be a JSON object"
                )
                raise self._addon_error(400, "InvalidParameterException", message, addon_name)
        missing = [key for key in (entry.required_configuration if entry else ()) if not parsed.get(key)]
        if missing:
            message = (
                f"ConfigurationValue provided in request is not supported: {addon_name} requires "
                f"{', '.join(missing)} in configurationValues"
            )
            raise self._addon_error(400, "InvalidParameterException", message, addon_name)
        accounts = [service_account for service_account, _ in pod_identities]
        if len(accounts) != len(set(accounts)):
            message = "podIdentityAssociations lists a service account more than once."
            raise EksError(400, "InvalidParameterException", message)

    def _missing(self, addon_name: str) -> list[str]:
        """The dependencies of an add-on that are not ACTIVE at their minimum version."""
        entry = CATALOG.get(addon_name)
        missing = []
        for dependency, minimum in (entry.dependencies if entry else {}).items():
            installed = self._addons.get(dependency)
            if (
                installed is None
                or installed.shape["status"] != "ACTIVE"
                or (minimum is not None and version_key(installed.shape["addonVersion"]) < version_key(minimum))
            ):
                missing.append(dependency)
        return missing

    def _refuse_taken(self, namespace: str, service_account: str) -> None:
        for association in self._associations.values():
            shape = association.shape
            if shape["namespace"] == namespace and shape["serviceAccount"] == service_account:
                raise EksError(
                    409,
                    "ResourceInUseException",
                    f"Association already exists: {shape['associationArn']}",
                    clusterName=self.name,
                )

    def _new_association(
        self,
        namespace: str,
        service_account: str,
        role_arn: str,
        *,
        owner: str | None = None,
        tags: dict[str, str] | None = None,
        token: str | None = None,
        options: JsonObject | None = None,
    ) -> JsonObject:
        options = options or {}
        association_id = "a-" + "".join(secrets.choice(_ID_ALPHABET) for _ in range(17))
        now = time.time()
        shape: JsonObject = {
            "clusterName": self.name,
            "namespace": namespace,
            "serviceAccount": service_account,
            "roleArn": role_arn,
            "associationArn": (
                f"arn:{self._partition}:eks:{self._region}:{self._account}:podidentityassociation/"
                f"{self.name}/{association_id}"
            ),
            "associationId": association_id,
            "tags": dict(tags or {}),
            "createdAt": now,
            "modifiedAt": now,
            "disableSessionTags": bool(options.get("disableSessionTags", False)),
        }
        if owner:
            shape["ownerArn"] = owner
        for key in ("targetRoleArn", "policy"):
            if options.get(key):
                shape[key] = options[key]
        if options.get("targetRoleArn"):
            shape["externalId"] = str(uuid.uuid4())
        self._associations[association_id] = _Association(shape, token)
        return shape


def _dependency_issue(addon_name: str, missing: list[str]) -> JsonObject:
    dependencies = CATALOG[addon_name].dependencies
    needs = [f"{name} (>= {minimum})" if (minimum := dependencies.get(name)) else name for name in missing]
    message = (
        f"Addon {addon_name} requires {', '.join(needs)} to be installed and ACTIVE on the cluster. "
        "Install the missing add-ons, then update or recreate this add-on."
    )
    return {"code": "ConfigurationConflict", "message": message, "resourceIds": missing}
