"""The Kubernetes REST API over HTTP: a Starlette app the sandbox mounts where EKS endpoints point.

Thin by design: it authenticates an EKS-style bearer token, parses ``/{cluster}/api[s]/...`` into a kind,
namespace, name and subresource, decodes the body, and runs the call as one transaction on the
:class:`~sandbox.k8s.emulator.KubernetesEmulator`; the semantics live in :mod:`sandbox.k8s.store`.
Served: discovery and version, create, get, list (label and field selectors; pages by limit and continue),
delete, merge and strategic merge patches, server-side apply, the status subresource, pod logs and the service
proxy (answered by whoever the emulator names). Writes are checked against their kind's schema
(:mod:`sandbox.k8s.validation`). Watches are refused.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any
from urllib.parse import parse_qs, urlsplit

import yaml
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from sandbox.k8s import validation
from sandbox.k8s.apply import APPLY_PATCH, MERGE_PATCH, STRATEGIC_PATCH
from sandbox.k8s.buckets import Event
from sandbox.k8s.continuation import continue_key, continue_token
from sandbox.k8s.emulator import KubernetesEmulator
from sandbox.k8s.errors import ApiError, bad_request, details, method_not_allowed, no_such_resource, unsupported_media
from sandbox.k8s.kinds import NAMESPACES, POD_KIND, PODS, Kind
from sandbox.k8s.objects import encode_json, present
from sandbox.k8s.rbac import ApiAccess
from sandbox.k8s.selectors import parse_field_selector, parse_label_selector
from sandbox.k8s.store import ObjectStore

JsonObject = dict[str, Any]

TOKEN_PREFIX = "k8s-aws-v1."
_VERB_OF_METHOD = {"GET": "get", "HEAD": "get", "POST": "create", "PUT": "update", "PATCH": "patch", "DELETE": "delete"}
VERSION_INFO: JsonObject = {
    "major": "1",
    "minor": "34",
    "gitVersion": "v1.34.0-eks",
    "gitCommit": "0000000000000000000000000000000000000000",
    "gitTreeState": "clean",
    "buildDate": "2025-09-01T00:00:00Z",
    "goVersion": "go1.24.6",
    "compiler": "gc",
    "platform": "linux/amd64",
}
_VERBS = ["create", "delete", "get", "list", "patch"]
# Kinds whose DELETE answers with the deleted object instead of a Status.
_RETURNS_DELETED_OBJECT = frozenset({PODS, NAMESPACES, ("", "services")})


def asgi_app(emulator: KubernetesEmulator) -> Starlette:
    """The app serving ``/{cluster}/...``; mount it wherever the sandbox exposes Kubernetes."""
    api = _HttpApi(emulator)
    methods = ["GET", "POST", "PUT", "PATCH", "DELETE"]
    return Starlette(routes=[Route("/{cluster}/{path:path}", api.endpoint, methods=methods)])


@lru_cache(maxsize=256)  # a client sends one token with many requests (a node-by-node read sends hundreds)
def token_is_well_formed(token: str) -> bool:
    """An EKS token: ``k8s-aws-v1.`` + unpadded base64url of a presigned STS GetCallerIdentity URL."""
    if not token.startswith(TOKEN_PREFIX):
        return False
    encoded = token[len(TOKEN_PREFIX) :]
    try:
        url = base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)).decode()
    except (binascii.Error, ValueError):
        return False
    parts = urlsplit(url)
    query = parse_qs(parts.query)
    signed = ";".join(query.get("X-Amz-SignedHeaders", [])).lower().split(";")
    return (
        (parts.hostname or "").startswith("sts.")
        and query.get("Action") == ["GetCallerIdentity"]
        and "x-k8s-aws-id" in signed
    )


@dataclass(frozen=True)
class _Call:
    """The parts of one HTTP request the emulator looks at."""

    method: str
    cluster: str
    parts: list[str]
    query: Mapping[str, str]
    content_type: str
    authorization: str
    body: bytes
    host: str


@dataclass(frozen=True)
class _Target:
    """A resource request resolved against one cluster, handled inside that cluster's transaction."""

    call: _Call
    store: ObjectStore
    events: list[Event]
    kind: Kind
    namespace: str | None

    def respond(self, obj: JsonObject, status_code: int = 200, warnings: list[str] | None = None) -> JSONResponse:
        response = JSONResponse(present(self.kind, obj), status_code=status_code)
        for header, value in validation.warning_headers(warnings or []):
            response.headers.append(header, value)
        return response


class _YamlLoader(yaml.SafeLoader):
    """Safe YAML loading that keeps timestamps as strings, so every document stays plain JSON."""


_YamlLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


class _HttpApi:
    """Routes emulated Kubernetes REST calls onto the emulator's clusters."""

    def __init__(self, emulator: KubernetesEmulator) -> None:
        self._emulator = emulator

    async def endpoint(self, request: Request) -> Response:
        call = _Call(
            method=request.method,
            cluster=request.path_params["cluster"],
            parts=[part for part in request.path_params["path"].split("/") if part],
            query=request.query_params,
            content_type=request.headers.get("content-type", "").split(";")[0].strip().lower(),
            authorization=request.headers.get("authorization", ""),
            body=await request.body(),
            host=request.url.netloc,
        )
        return await run_in_threadpool(self._handle, call)

    def _handle(self, call: _Call) -> Response:
        try:
            scheme, _, token = call.authorization.partition(" ")
            token = token.strip()
            if scheme.lower() != "bearer" or not token_is_well_formed(token):
                raise ApiError(401, "Unauthorized", "Unauthorized")
            access = _access(call)
            allowed = self._emulator.authorized(call.cluster, token, access)
            if allowed is None:
                raise ApiError(401, "Unauthorized", "Unauthorized")
            if not allowed:
                raise ApiError(403, "Forbidden", access.refusal())
            if call.query.get("watch", "").lower() in ("true", "1"):
                raise bad_request("watch not supported")
            return self._route(call)
        except ApiError as error:
            return JSONResponse(error.status(), status_code=error.code)

    def _route(self, call: _Call) -> Response:
        parts = call.parts
        if parts[:3] == ["api", "v1", "namespaces"] and len(parts) >= 7 and parts[4:7:2] == ["services", "proxy"]:
            return self._service_proxy(call)
        if parts[:1] == ["api"] and len(parts) >= 2:
            group, version, rest = "", parts[1], parts[2:]
        elif parts[:1] == ["apis"] and len(parts) >= 3:
            group, version, rest = parts[1], parts[2], parts[3:]
        elif call.method != "GET":
            raise method_not_allowed()
        else:
            return JSONResponse(self._emulator.transact(call.cluster, lambda store, _: _root(call, store)))

        def handle(store: ObjectStore, events: list[Event]) -> Response:
            if not rest:
                return _resource_list(call, store, group, version)
            return self._resource(call, store, events, group, version, rest)

        return self._emulator.transact(call.cluster, handle)

    def _service_proxy(self, call: _Call) -> Response:
        """`/api/v1/namespaces/{ns}/services/{name[:port]}/proxy/{path}`: the request passed on to the Service."""
        namespace, service, path = call.parts[3], call.parts[5], "/" + "/".join(call.parts[7:])
        status, text = self._emulator.proxy(call.cluster, namespace, service, path, call.method, call.body)
        return Response(text, status_code=status, media_type="application/json")

    def _resource(
        self, call: _Call, store: ObjectStore, events: list[Event], group: str, version: str, rest: list[str]
    ) -> Response:
        namespace = None
        namespace_subresource = len(rest) == 3 and rest[2] in ("status", "finalize")
        if rest[0] == "namespaces" and len(rest) >= 3 and not namespace_subresource:
            namespace, rest = rest[1], rest[2:]
        if len(rest) > 3:
            raise no_such_resource()
        plural = rest[0]
        name = rest[1] if len(rest) > 1 else None
        subresource = rest[2] if len(rest) > 2 else None
        kind = store.kind(group, version, plural)
        if (
            kind is None
            or (namespace is not None and not kind.namespaced)
            or (namespace is None and kind.namespaced and name is not None)
        ):
            raise no_such_resource()
        target = _Target(call, store, events, kind, namespace)
        if name is None:
            return self._collection(target)
        if subresource is None or (subresource == "status" and kind.status_subresource):
            return self._item(target, name, status_only=subresource is not None)
        if subresource == "log" and kind.storage == PODS and call.method == "GET":
            return _pod_log(target, name)
        raise no_such_resource()

    def _collection(self, target: _Target) -> Response:
        call, store, kind = target.call, target.store, target.kind
        all_namespaces = kind.namespaced and target.namespace is None
        if call.method == "POST" and not all_namespaces:
            body = _decode(call)
            warnings = validation.created(store, kind, body, validation.directive_of(call.query))
            return target.respond(store.create(kind, target.namespace, body, target.events), 201, warnings)
        if call.method != "GET":
            raise method_not_allowed()
        try:
            labels = parse_label_selector(call.query.get("labelSelector", ""))
            fields = parse_field_selector(call.query.get("fieldSelector", ""), kind)
            limit = int(call.query["limit"]) if call.query.get("limit") else None
        except ValueError as exc:
            raise bad_request(str(exc)) from None
        after, issued = continue_key(call.query.get("continue"), self._emulator.continue_lifetime())
        items, last, more = store.encoded_page(kind, target.namespace, labels, fields, after, limit or None)
        metadata: JsonObject = {"resourceVersion": str(store.revision)}
        if more and last is not None:
            metadata["continue"] = continue_token(*last, issued)
        # The body is rendered here, under the cluster's lock, from each item's stored encoding.
        head = encode_json({"kind": f"{kind.kind}List", "apiVersion": kind.api_version, "metadata": metadata})
        body = b"".join((head[:-1], b',"items":[', b",".join(items), b"]}"))
        return Response(body, media_type="application/json")

    @staticmethod
    def _item(target: _Target, name: str, status_only: bool) -> Response:
        call, store, kind, namespace = target.call, target.store, target.kind, target.namespace
        if call.method == "GET":
            return target.respond(store.require(kind, namespace, name))
        if call.method == "PATCH":
            return _patch(target, name, status_only)
        if call.method == "DELETE" and not status_only:
            deleted = store.delete(kind, namespace, name, target.events)
            if kind.storage in _RETURNS_DELETED_OBJECT:
                return target.respond(deleted)
            status = {"kind": "Status", "apiVersion": "v1", "status": "Success"}
            return JSONResponse({**status, "details": {**details(kind, name), "uid": deleted["metadata"]["uid"]}})
        raise method_not_allowed()


def _patch(target: _Target, name: str, status_only: bool) -> Response:
    call, store, kind, namespace = target.call, target.store, target.kind, target.namespace
    accepted = [MERGE_PATCH, APPLY_PATCH] + ([] if kind.custom else [STRATEGIC_PATCH])
    if call.content_type not in accepted:
        raise unsupported_media(accepted)
    body = _decode(call)
    directive = validation.directive_of(call.query)
    if call.content_type != APPLY_PATCH:
        warnings = validation.patched(store, kind, (namespace, name), call.content_type, body, directive)
        patched = store.patch(kind, namespace, name, call.content_type, body, status_only, target.events)
        return target.respond(patched, warnings=warnings)
    manager = call.query.get("fieldManager")
    if not manager:
        raise bad_request("fieldManager: Required value: is required for apply patch")
    validation.applied(store, kind, namespace, name, body)
    obj, created = store.apply(kind, namespace, name, body, manager, status_only, target.events)
    return target.respond(obj, 201 if created else 200)


def _access(call: _Call) -> ApiAccess:
    """What the call does, as RBAC names it: its verb, and the API group and resource (None for discovery)."""
    parts = call.parts
    if parts[:1] == ["api"] and len(parts) > 2:
        group, rest = "", parts[2:]
    elif parts[:1] == ["apis"] and len(parts) > 3:
        group, rest = parts[1], parts[3:]
    else:
        return ApiAccess(_VERB_OF_METHOD[call.method], None, None)
    namespace = None
    if rest[0] == "namespaces" and len(rest) >= 3 and rest[2] not in ("status", "finalize"):
        namespace, rest = rest[1], rest[2:]
    named = len(rest) > 1
    verb = "list" if call.method == "GET" and not named else _VERB_OF_METHOD[call.method]
    resource = "/".join([rest[0], *rest[2:3]])
    return ApiAccess(verb, group, resource, namespace)


def _decode(call: _Call) -> Any:
    if not call.body:
        raise bad_request("the request needs a body")
    try:
        if "yaml" in call.content_type:
            return yaml.load(call.body, Loader=_YamlLoader)
        return json.loads(call.body)
    except (ValueError, yaml.YAMLError) as exc:
        raise bad_request(f"unable to decode the request body: {exc}") from None


def _pod_log(target: _Target, name: str) -> Response:
    namespace = target.namespace or ""
    target.store.require(POD_KIND, namespace, name)
    text = target.store.logs.get((namespace, name), "")
    raw_tail = target.call.query.get("tailLines")
    if raw_tail is not None:
        try:
            tail = int(raw_tail)
        except ValueError:
            raise bad_request(f"tailLines must be an integer, got {raw_tail!r}") from None
        text = "".join(text.splitlines(keepends=True)[-tail:]) if tail > 0 else ""
    return PlainTextResponse(text)


# --- discovery -------------------------------------------------------------------------------------


def _root(call: _Call, store: ObjectStore) -> JsonObject:
    """Discovery documents that sit above any group version."""
    kinds = store.kinds()
    groups = list(dict.fromkeys(kind.group for kind in kinds if kind.group))
    if call.parts == ["version"]:
        return VERSION_INFO
    if call.parts == ["api"]:
        addresses = [{"clientCIDR": "0.0.0.0/0", "serverAddress": call.host}]
        return {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": addresses}
    if call.parts == ["apis"]:
        return {"kind": "APIGroupList", "apiVersion": "v1", "groups": [_api_group(g, kinds) for g in groups]}
    if len(call.parts) == 2 and call.parts[0] == "apis" and call.parts[1] in groups:
        return {"kind": "APIGroup", "apiVersion": "v1", **_api_group(call.parts[1], kinds)}
    raise no_such_resource()


def _resource_list(call: _Call, store: ObjectStore, group: str, version: str) -> Response:
    kinds = [kind for kind in store.kinds() if (kind.group, kind.version) == (group, version)]
    if not kinds:
        raise no_such_resource()
    if call.method != "GET":
        raise method_not_allowed()
    return JSONResponse(
        {
            "kind": "APIResourceList",
            "apiVersion": "v1",
            "groupVersion": f"{group}/{version}" if group else version,
            "resources": [entry for kind in kinds for entry in _api_resources(kind)],
        },
    )


def _api_resources(kind: Kind) -> list[JsonObject]:
    """APIResource entries for a kind and its subresources."""
    base = {"namespaced": kind.namespaced, "kind": kind.kind}
    entries = [{"name": kind.plural, "singularName": kind.singular or kind.kind.lower(), **base, "verbs": _VERBS}]
    if kind.status_subresource:
        entries.append({"name": f"{kind.plural}/status", "singularName": "", **base, "verbs": ["get", "patch"]})
    if kind.storage == PODS:
        entries.append({"name": "pods/log", "singularName": "", **base, "verbs": ["get"]})
    return entries


def _api_group(group: str, kinds: Iterable[Kind]) -> JsonObject:
    versions = sorted({kind.version for kind in kinds if kind.group == group}, key=_version_priority)
    entries = [{"groupVersion": f"{group}/{version}", "version": version} for version in versions]
    return {"name": group, "versions": entries, "preferredVersion": entries[0]}


def _version_priority(version: str) -> tuple[int, int, int, str]:
    """Kubernetes version ordering: GA before beta before alpha, newer first, then anything else by name."""
    match = re.fullmatch(r"v(\d+)(?:(alpha|beta)(\d+))?", version)
    if not match:
        return (3, 0, 0, version)
    stage = {None: 0, "beta": 1, "alpha": 2}[match[2]]
    return (stage, -int(match[1]), -int(match[3] or 0), version)
