"""Hooks the HyperPod simulation into moto's SageMaker service.

moto 5.2.5 has a minimal, partly wrong cluster model (instance-type allowlist, dropped fields, no
``Creating`` state, ``ValidationException`` for missing clusters, no update or batch node APIs). moto
dispatches a JSON-protocol action (``X-Amz-Target: SageMaker.CreateCluster``) to the method of the same
snake_case name on ``SageMakerResponse``; :class:`HyperPodExtension` replaces those methods with the
:mod:`~sandbox.aws.hyperpod.wire` operations (every cluster action moto would answer from its own model, so none
contradicts the simulation's clusters). :class:`MotoAccount` lets the simulation read subnets, zones and EKS
clusters, the IAM roles' policies and the calling function (:mod:`sandbox.aws.lambda_roles`) from moto's backends.
Every other SageMaker feature stays moto's.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from moto.ec2.exceptions import InvalidSubnetIdError
from moto.ec2.models import ec2_backends
from moto.eks.exceptions import ResourceNotFoundException as EksResourceNotFound
from moto.eks.models import eks_backends
from moto.iam.exceptions import NoSuchEntity, NotFoundException
from moto.iam.models import iam_backends
from moto.sagemaker.responses import SageMakerResponse

from sandbox.aws.hyperpod.access import Caller, RolePolicies
from sandbox.aws.hyperpod.model import HyperPodError, JsonObject
from sandbox.aws.hyperpod.simulation import HyperPodSimulation, Where
from sandbox.aws.hyperpod.wire.operations import OPERATIONS
from sandbox.aws.lambda_roles import step_caller
from sandbox.aws.patches import Patches

# A HyperPod cluster's ARN (`arn:aws:sagemaker:us-west-2:123456789012:cluster/abc123`): the simulation's, live or gone.
CLUSTER_ARN = re.compile(r"^arn:[^:]+:sagemaker:[^:]*:[^:]*:cluster/")


class HyperPodExtension:
    """Installs the wire operations of one :class:`HyperPodSimulation` on moto's SageMaker responses."""

    def __init__(self, simulation: HyperPodSimulation) -> None:
        self._simulation = simulation
        self._patches = Patches()

    def install(self) -> None:
        for action in OPERATIONS:
            original = getattr(SageMakerResponse, _method(action), None)
            self._patches.replace(SageMakerResponse, _method(action), self._responder(action, original))

    def uninstall(self) -> None:
        self._patches.restore()

    def _responder(self, action: str, original: Any) -> Callable[[SageMakerResponse], Any]:
        def respond(response: SageMakerResponse) -> Any:
            request = _body(response)
            # ListTags reaches the simulation for any HyperPod cluster ARN, so a deleted cluster's is ResourceNotFound
            # (moto fails on it); every other ARN stays with moto.
            if action == "ListTags" and not CLUSTER_ARN.match(str(request.get("ResourceArn", ""))):
                return original(response)
            return self.handle(action, (response.current_account, response.region), request)

        respond.__name__ = _method(action)
        return respond

    def handle(self, action: str, where: Where, request: JsonObject) -> tuple[str, dict[str, Any]]:
        """Serve one wire action; returns moto's (body, headers) pair."""
        try:
            with self._simulation.lock:
                result = OPERATIONS[action](self._simulation, where, request)
                body = json.dumps(result)
        except HyperPodError as error:
            return _error(error.code, error.message)
        return body, {"status": 200, "Content-Type": "application/x-amz-json-1.1"}


class MotoAccount:
    """Subnets, zones, EKS clusters and IAM roles as moto's EC2, EKS and IAM backends hold them."""

    def subnet_zone(self, where: Where, subnet_id: str) -> tuple[str, str]:
        account, region = where
        try:
            subnet = ec2_backends[account][region].get_subnet(subnet_id)
        except InvalidSubnetIdError as error:
            raise LookupError(subnet_id) from error
        return str(subnet.availability_zone), str(subnet.availability_zone_id)

    def zone_id(self, where: Where, zone: str) -> str:
        account, region = where
        try:
            for candidate in ec2_backends[account][region].describe_availability_zones():
                if candidate.name == zone:
                    return str(candidate.zone_id)
        except Exception:  # noqa: BLE001 - an unknown region just gets a synthetic zone id
            pass
        return f"{region[:2]}{region.split('-')[1][:1]}{region[-1]}-az{(ord(zone[-1]) - 96) if zone else 1}"

    def eks_cluster(self, where: Where, name: str) -> tuple[str, str] | None:
        account, region = where
        try:
            cluster = eks_backends[account][region].describe_cluster(name)  # advances the sandbox EKS lifecycle
        except EksResourceNotFound:
            return None
        mode = (getattr(cluster, "access_config", None) or {}).get("authenticationMode", "CONFIG_MAP")
        return str(cluster.status), str(mode)

    def eks_cluster_tags(self, where: Where, name: str) -> dict[str, str]:
        account, region = where
        try:
            return dict(eks_backends[account][region].describe_cluster(name).tags or {})
        except EksResourceNotFound:
            return {}

    def role_policies(self, where: Where, role_arn: str) -> RolePolicies | None:
        partition, account, name = role_arn.split(":")[1], role_arn.split(":")[4], role_arn.rsplit("/", 1)[-1]
        backend = iam_backends[account][partition]
        try:
            role = backend.get_role(name)
            attached = [_default_document(policy) for policy in role.managed_policies.values()]
            boundary_arn = (role.permissions_boundary or {}).get("PermissionsBoundaryArn")
            boundary = _default_document(backend.get_policy(boundary_arn)) if boundary_arn else None
        except (NoSuchEntity, NotFoundException):
            return None
        inline = [json.loads(document) for document in role.policies.values()]
        return RolePolicies(attached + inline, boundary)

    def caller(self, where: Where) -> Caller | None:
        return step_caller(where[0])


def _default_document(policy: Any) -> JsonObject:
    """The document of a managed policy's default version."""
    version = next(version for version in policy.versions if version.is_default)
    document = version.document
    return json.loads(document) if isinstance(document, str) else dict(document)


def _method(action: str) -> str:
    """moto's method name for a wire action: ``CreateCluster`` → ``create_cluster``."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", action).lower()


def _error(code: str, message: str) -> tuple[str, dict[str, Any]]:
    body = json.dumps({"__type": code, "message": message})
    return body, {"status": 400, "x-amzn-ErrorType": code, "Content-Type": "application/x-amz-json-1.1"}


def _body(response: SageMakerResponse) -> JsonObject:
    raw = response.body
    if isinstance(raw, bytes):
        raw = raw.decode()
    return json.loads(raw) if raw else {}
