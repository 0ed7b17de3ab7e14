"""The emulated Kubernetes API over real HTTP, driven by the official ``kubernetes`` client as production drives it."""

import base64
import json
import socket
import threading
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from botocore.credentials import Credentials
from botocore.hooks import HierarchicalEmitter
from botocore.model import ServiceId
from botocore.signers import RequestSigner
from kubernetes import client
from kubernetes.client.exceptions import ApiException
from kubernetes.dynamic import DynamicClient
from starlette.applications import Starlette
from starlette.routing import Mount

from sandbox.k8s.emulator import CONTINUE_LIFETIME_SECONDS, ClusterStore, KubernetesEmulator
from sandbox.k8s.http import asgi_app
from sandbox.k8s.rbac import ApiAccess

APPLY = "application/apply-patch+yaml"
MERGE = "application/merge-patch+json"
STRATEGIC = "application/strategic-merge-patch+json"
GROUP = "training.example.com"
CRD_NAME = f"trainjobs.{GROUP}"


class _ThreadedServer(uvicorn.Server):
    """A uvicorn server that says when it is listening."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.ready = threading.Event()

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        self.ready.set()


@dataclass(frozen=True)
class Served:
    emulator: KubernetesEmulator
    port: int

    def url(self, cluster: str) -> str:
        return f"http://127.0.0.1:{self.port}/k8s/{cluster}"


@dataclass(frozen=True)
class Cluster:
    """One fresh emulated cluster and an authenticated client for it."""

    emulator: KubernetesEmulator
    name: str
    api: client.ApiClient

    @property
    def core(self) -> client.CoreV1Api:
        return client.CoreV1Api(self.api)

    @property
    def apps(self) -> client.AppsV1Api:
        return client.AppsV1Api(self.api)

    @property
    def custom(self) -> client.CustomObjectsApi:
        return client.CustomObjectsApi(self.api)

    @property
    def store(self) -> ClusterStore:
        return self.emulator.store(self.name)


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    emulator = KubernetesEmulator()
    app = Starlette(routes=[Mount("/k8s", app=asgi_app(emulator))])
    # uvicorn binds port 0 itself: a pre-bound socket.socket() has proto 0, so asyncio would not set
    # TCP_NODELAY and every response would wait ~40 ms for a delayed ACK.
    server = _ThreadedServer(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    assert server.ready.wait(timeout=10), "uvicorn did not start"
    yield Served(emulator, server.servers[0].sockets[0].getsockname()[1])
    server.should_exit = True
    thread.join(timeout=10)


def eks_token(cluster: str) -> str:
    """A token minted the way production mints one for EKS (fake credentials, no network)."""
    emitter = HierarchicalEmitter()  # the signer only keeps a weak reference to it
    credentials = Credentials("AKIDEXAMPLE", "secret")
    signer = RequestSigner(ServiceId("sts"), "us-west-2", "sts", "v4", credentials, emitter)
    url = signer.generate_presigned_url(
        {
            "method": "GET",
            "url": "https://sts.us-west-2.amazonaws.com/?Action=GetCallerIdentity&Version=2011-06-15",
            "body": {},
            "headers": {"x-k8s-aws-id": cluster},
            "context": {},
        },
        region_name="us-west-2",
        expires_in=60,
        operation_name="",
    )
    return "k8s-aws-v1." + base64.urlsafe_b64encode(url.encode()).decode().rstrip("=")


def api_client(url: str, authorization: str | None) -> client.ApiClient:
    """A client sending ``authorization`` verbatim as the Authorization header.

    kubernetes 36.0.3 ignores ``api_key_prefix["authorization"]`` (kubernetes-client/python#2592), so the
    scheme goes into the value itself, which every client version sends unchanged.
    """
    configuration = client.Configuration(host=url)
    if authorization is not None:
        configuration.api_key = {"authorization": authorization}
    return client.ApiClient(configuration)


@pytest.fixture
def k8s(served: Served) -> Iterator[Cluster]:
    name = f"cluster-{uuid.uuid4().hex[:8]}"
    with api_client(served.url(name), f"Bearer {eks_token(name)}") as api:
        yield Cluster(served.emulator, name, api)


def status_of(error: ApiException) -> dict[str, Any]:
    return json.loads(error.body)


def pod(name: str, labels: dict[str, str] | None = None, node: str | None = None) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": labels or {}},
        "spec": {"nodeName": node, "containers": [{"name": "main", "image": "busybox"}]},
    }


def config_map(name: str, data: dict[str, str] | None = None) -> dict[str, Any]:
    return {"metadata": {"name": name}, "data": data or {}}


def deployment(name: str) -> dict[str, Any]:
    containers = [{"name": "app", "image": "app:1"}, {"name": "sidecar", "image": "proxy:1"}]
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": containers}},
        },
    }


def create_train_job_crd(k8s: Cluster) -> None:
    schema = {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}
    version = {
        "name": "v1",
        "served": True,
        "storage": True,
        "schema": schema,
        "subresources": {"status": {}},
    }
    client.ApiextensionsV1Api(k8s.api).create_custom_resource_definition(
        {
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": CRD_NAME},
            "spec": {
                "group": GROUP,
                "scope": "Namespaced",
                "names": {"plural": "trainjobs", "singular": "trainjob", "kind": "TrainJob"},
                "versions": [version],
            },
        }
    )


def train_job(name: str, replicas: int) -> dict[str, Any]:
    return {
        "apiVersion": f"{GROUP}/v1",
        "kind": "TrainJob",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"replicas": replicas},
    }


def names_of(listing: Any) -> list[str]:
    return [item.metadata.name for item in listing.items]


# ------------------------------------------------------------------------------------ authentication


def test_request_without_token_is_unauthorized_with_a_status_body(served: Served) -> None:
    with api_client(served.url("anonymous"), None) as anonymous, pytest.raises(ApiException) as raised:
        client.CoreV1Api(anonymous).list_namespace()

    assert raised.value.status == 401
    assert status_of(raised.value) == {
        "kind": "Status",
        "apiVersion": "v1",
        "status": "Failure",
        "message": "Unauthorized",
        "reason": "Unauthorized",
        "code": 401,
    }


def _encoded(url: str) -> str:
    return base64.urlsafe_b64encode(url.encode()).decode()


@pytest.mark.parametrize(
    "authorization",
    [
        "Bearer not-an-eks-token",
        "Bearer k8s-aws-v1." + _encoded("https://evil.example.com/?Action=GetCallerIdentity"),
        "Bearer k8s-aws-v1." + _encoded("https://sts.amazonaws.com/?Action=GetCallerIdentity"),
        eks_token("c"),  # a valid token without the Bearer scheme
    ],
)
def test_authorization_that_is_not_a_bearer_presigned_sts_url_is_unauthorized(
    served: Served, authorization: str
) -> None:
    with api_client(served.url("c"), authorization) as unsigned, pytest.raises(ApiException) as raised:
        client.CoreV1Api(unsigned).list_namespace()

    assert raised.value.status == 401


def test_authorizer_refusal_is_forbidden(k8s: Cluster) -> None:
    seen: list[tuple[str, str, ApiAccess]] = []

    def deny(cluster: str, token: str, access: ApiAccess) -> bool:
        seen.append((cluster, token, access))
        return False

    k8s.emulator.set_authorizer(deny)
    try:
        with pytest.raises(ApiException) as raised:
            k8s.core.list_namespace()
    finally:
        k8s.emulator.set_authorizer(None)

    assert raised.value.status == 403
    assert status_of(raised.value)["reason"] == "Forbidden"
    assert seen[0][0] == k8s.name and seen[0][1].startswith("k8s-aws-v1.")
    assert seen[0][2] == ApiAccess("list", "", "namespaces")


# ------------------------------------------------------------------------------------------ discovery


def test_version_reports_eks_1_34(k8s: Cluster) -> None:
    version = client.VersionApi(k8s.api).get_code()

    assert (version.major, version.minor, version.git_version) == ("1", "34", "v1.34.0-eks")


def test_dynamic_client_discovers_builtin_and_custom_kinds(k8s: Cluster, tmp_path: Path) -> None:
    create_train_job_crd(k8s)
    dynamic = DynamicClient(k8s.api, cache_file=str(tmp_path / "discovery.json"))

    deployments = dynamic.resources.get(api_version="apps/v1", kind="Deployment")
    train_jobs = dynamic.resources.get(api_version=f"{GROUP}/v1", kind="TrainJob")
    train_jobs.create(body=train_job("discovered", 1), namespace="default")

    assert deployments.namespaced and deployments.name == "deployments"
    assert "status" in train_jobs.subresources
    assert names_of(train_jobs.get(namespace="default")) == ["discovered"]


def test_unknown_resource_is_not_found(k8s: Cluster) -> None:
    with pytest.raises(ApiException) as raised:
        k8s.api.call_api("/apis/apps/v1/namespaces/default/widgets", "GET", auth_settings=["BearerToken"])

    assert raised.value.status == 404


# ----------------------------------------------------------------------------------------- namespaces


def test_initial_namespaces_exist_and_default_cannot_be_deleted(k8s: Cluster) -> None:
    names = set(names_of(k8s.core.list_namespace()))

    with pytest.raises(ApiException) as raised:
        k8s.core.delete_namespace("default")

    assert names == {"default", "kube-system", "kube-public", "kube-node-lease"}
    assert raised.value.status == 403


def test_deleting_a_namespace_deletes_everything_in_it(k8s: Cluster) -> None:
    created = k8s.core.create_namespace({"metadata": {"name": "team-a"}})
    k8s.core.create_namespaced_config_map("team-a", config_map("settings", {"k": "v"}))
    k8s.core.create_namespaced_pod("team-a", pod("worker"))
    k8s.core.create_namespaced_config_map("default", config_map("kept"))

    k8s.core.delete_namespace("team-a")

    assert created.status.phase == "Active"
    assert "team-a" not in names_of(k8s.core.list_namespace())
    assert names_of(k8s.core.list_config_map_for_all_namespaces()) == ["kept"]
    assert k8s.core.list_pod_for_all_namespaces().items == []
    assert k8s.store.count() == 5  # the four initial namespaces and the kept config map


def test_creating_in_a_missing_namespace_is_not_found(k8s: Cluster) -> None:
    with pytest.raises(ApiException) as raised:
        k8s.core.create_namespaced_config_map("nowhere", config_map("settings"))

    assert raised.value.status == 404
    assert status_of(raised.value)["details"] == {"name": "nowhere", "kind": "namespaces"}


# -------------------------------------------------------------------------------------------- secrets


def test_a_secret_s_string_data_is_written_into_its_data_and_never_returned(k8s: Cluster) -> None:
    body = {"metadata": {"name": "hf"}, "stringData": {"token": "hf_abc"}, "data": {"other": "eA=="}}
    k8s.core.create_namespaced_secret("default", body)
    k8s.core.patch_namespaced_secret("hf", "default", {"stringData": {"extra": "y"}})

    stored = k8s.core.read_namespaced_secret("hf", "default")

    assert stored.string_data is None
    assert stored.data == {"other": "eA==", "token": base64.b64encode(b"hf_abc").decode(), "extra": "eQ=="}


# ---------------------------------------------------------------------------------------- create, get


def test_create_sets_server_fields_and_get_returns_the_object(k8s: Cluster) -> None:
    first = k8s.core.create_namespaced_config_map("default", config_map("one", {"a": "1"}))
    second = k8s.core.create_namespaced_config_map("default", config_map("two"))

    fetched = k8s.core.read_namespaced_config_map("one", "default")

    assert first.metadata.uid and first.metadata.generation == 1 and first.metadata.namespace == "default"
    assert first.metadata.creation_timestamp is not None
    assert int(second.metadata.resource_version) > int(first.metadata.resource_version)
    assert fetched.data == {"a": "1"} and fetched.metadata.uid == first.metadata.uid


def test_duplicate_create_is_already_exists_conflict(k8s: Cluster) -> None:
    k8s.core.create_namespaced_config_map("default", config_map("twice"))

    with pytest.raises(ApiException) as raised:
        k8s.core.create_namespaced_config_map("default", config_map("twice"))

    assert raised.value.status == 409
    assert status_of(raised.value)["reason"] == "AlreadyExists"


@pytest.mark.parametrize("metadata", [{}, {"name": "Not_A_Name"}, {"name": "a" * 254}])
def test_missing_or_malformed_name_is_invalid(k8s: Cluster, metadata: dict[str, str]) -> None:
    with pytest.raises(ApiException) as raised:
        k8s.core.create_namespaced_config_map("default", {"metadata": metadata})

    assert raised.value.status == 422
    assert status_of(raised.value)["details"]["causes"][0]["field"] == "metadata.name"


def test_namespace_names_must_be_dns_labels(k8s: Cluster) -> None:
    with pytest.raises(ApiException) as raised:
        k8s.core.create_namespace({"metadata": {"name": "has.dots"}})

    assert raised.value.status == 422


def test_get_of_missing_object_is_not_found_with_details(k8s: Cluster) -> None:
    with pytest.raises(ApiException) as core_raised:
        k8s.core.read_namespaced_pod("ghost", "default")
    with pytest.raises(ApiException) as apps_raised:
        k8s.apps.read_namespaced_deployment("ghost", "default")

    assert core_raised.value.status == 404
    assert status_of(core_raised.value) == {
        "kind": "Status",
        "apiVersion": "v1",
        "status": "Failure",
        "message": 'pods "ghost" not found',
        "reason": "NotFound",
        "details": {"name": "ghost", "kind": "pods"},
        "code": 404,
    }
    assert status_of(apps_raised.value)["details"] == {
        "name": "ghost",
        "group": "apps",
        "kind": "deployments",
    }


def test_watch_is_refused(k8s: Cluster) -> None:
    with pytest.raises(ApiException) as raised:
        k8s.core.list_namespaced_pod("default", watch=True, _preload_content=False)

    assert raised.value.status == 400


# -------------------------------------------------------------------------------------------- listing


def test_pods_are_filtered_by_label_selector(k8s: Cluster) -> None:
    k8s.core.create_namespaced_pod("default", pod("a", {"app": "web", "tier": "front"}))
    k8s.core.create_namespaced_pod("default", pod("b", {"app": "web", "tier": "back"}))
    k8s.core.create_namespaced_pod("default", pod("c", {"app": "db"}))

    def selected(selector: str) -> list[str]:
        return names_of(k8s.core.list_namespaced_pod("default", label_selector=selector))

    assert selected("app=web") == ["a", "b"]
    assert selected("app==web,tier!=front") == ["b"]
    assert selected("tier") == ["a", "b"]
    assert selected("!tier") == ["c"]
    assert selected("app in (db, cache)") == ["c"]
    assert selected("tier notin (back),app") == ["a", "c"]


def test_pods_are_filtered_by_field_selector(k8s: Cluster) -> None:
    k8s.core.create_namespaced_pod("default", pod("on-node", node="node-1"))
    k8s.core.create_namespaced_pod("default", pod("unscheduled"))
    running = k8s.store.get("", "v1", "pods", "default", "on-node")
    assert running is not None
    k8s.store.put({**running, "status": {"phase": "Running"}})

    def selected(selector: str) -> list[str]:
        return names_of(k8s.core.list_pod_for_all_namespaces(field_selector=selector))

    assert selected("spec.nodeName=node-1") == ["on-node"]
    assert selected("status.phase==Pending") == ["unscheduled"]
    assert selected("status.phase!=Running,metadata.namespace=default") == ["unscheduled"]
    assert selected("metadata.name=on-node") == ["on-node"]


def test_lists_page_by_limit_and_continue_with_selectors_applied_first(k8s: Cluster) -> None:
    for index in range(7):
        k8s.core.create_namespaced_pod("default", pod(f"p{index}", {"app": "web" if index % 2 == 0 else "db"}))

    names, token, pages = [], None, 0
    while True:
        page = k8s.core.list_namespaced_pod("default", label_selector="app=web", limit=2, _continue=token)
        names += names_of(page)
        pages += 1
        token = page.metadata._continue
        if not token:
            break

    assert names == ["p0", "p2", "p4", "p6"]
    assert pages == 2
    raw = json.loads(k8s.core.list_namespaced_pod("default", limit=100, _preload_content=False).data)
    assert len(raw["items"]) == 7
    assert "continue" not in raw["metadata"]


def test_a_malformed_continue_token_is_a_bad_request(k8s: Cluster) -> None:
    with pytest.raises(ApiException) as raised:
        k8s.core.list_namespaced_pod("default", limit=2, _continue="not-a-token")
    assert raised.value.status == 400
    assert "invalid continue token" in json.loads(raised.value.body)["message"]


def test_a_continue_token_expires_as_the_api_servers_do(k8s: Cluster) -> None:
    for index in range(3):
        k8s.core.create_namespaced_pod("default", pod(f"p{index}", {"app": "web"}))
    first = k8s.core.list_namespaced_pod("default", limit=1)
    assert len(names_of(k8s.core.list_namespaced_pod("default", limit=1, _continue=first.metadata._continue))) == 1

    k8s.emulator.set_continue_lifetime(0)
    try:
        with pytest.raises(ApiException) as raised:
            k8s.core.list_namespaced_pod("default", limit=1, _continue=first.metadata._continue)
    finally:
        k8s.emulator.set_continue_lifetime(CONTINUE_LIFETIME_SECONDS)
    assert raised.value.status == 410
    assert json.loads(raised.value.body)["reason"] == "Expired"


def test_unsupported_field_selector_is_bad_request(k8s: Cluster) -> None:
    with pytest.raises(ApiException) as raised:
        k8s.core.list_namespaced_config_map("default", field_selector="data.key=value")

    assert raised.value.status == 400


# ---------------------------------------------------------------------------------------------- patch


def test_patch_carrying_a_stale_resource_version_is_conflict(k8s: Cluster) -> None:
    created = k8s.core.create_namespaced_config_map("default", config_map("cfg", {"v": "1"}))
    stale = created.metadata.resource_version
    k8s.core.patch_namespaced_config_map("cfg", "default", {"data": {"v": "2"}}, _content_type=MERGE)

    with pytest.raises(ApiException) as raised:
        patch = {"metadata": {"resourceVersion": stale}, "data": {"v": "3"}}
        k8s.core.patch_namespaced_config_map("cfg", "default", patch, _content_type=MERGE)

    assert raised.value.status == 409
    assert status_of(raised.value)["reason"] == "Conflict"
    assert k8s.core.read_namespaced_config_map("cfg", "default").data == {"v": "2"}


def test_patch_bumps_generation_only_when_spec_changes(k8s: Cluster) -> None:
    k8s.apps.create_namespaced_deployment("default", deployment("web"))

    relabelled = k8s.apps.patch_namespaced_deployment("web", "default", {"metadata": {"labels": {"team": "a"}}})
    scaled = k8s.apps.patch_namespaced_deployment("web", "default", {"spec": {"replicas": 3}})

    assert relabelled.metadata.generation == 1
    assert scaled.metadata.generation == 2


def test_strategic_patch_merges_containers_by_name_and_merge_patch_replaces_them(k8s: Cluster) -> None:
    k8s.apps.create_namespaced_deployment("default", deployment("web"))
    image_update = {"spec": {"template": {"spec": {"containers": [{"name": "app", "image": "app:2"}]}}}}

    strategic = k8s.apps.patch_namespaced_deployment("web", "default", image_update)
    merged = k8s.apps.patch_namespaced_deployment("web", "default", image_update, _content_type=MERGE)

    strategic_containers = [(c.name, c.image) for c in strategic.spec.template.spec.containers]
    assert strategic_containers == [("app", "app:2"), ("sidecar", "proxy:1")]
    assert strategic.metadata.generation == 2
    assert [(c.name, c.image) for c in merged.spec.template.spec.containers] == [("app", "app:2")]


def test_strategic_patch_deletes_a_named_item_with_a_patch_directive(k8s: Cluster) -> None:
    k8s.apps.create_namespaced_deployment("default", deployment("web"))
    remove_sidecar = {"name": "sidecar", "$patch": "delete"}
    patch = {"spec": {"template": {"spec": {"containers": [remove_sidecar]}}}}

    patched = k8s.apps.patch_namespaced_deployment("web", "default", patch)

    assert [c.name for c in patched.spec.template.spec.containers] == ["app"]


def test_merge_patch_with_null_removes_a_field(k8s: Cluster) -> None:
    k8s.core.create_namespaced_config_map("default", config_map("cfg", {"a": "1", "b": "2"}))
    patch = {"data": {"a": None, "c": "3"}}

    patched = k8s.core.patch_namespaced_config_map("cfg", "default", patch, _content_type=MERGE)

    assert patched.data == {"b": "2", "c": "3"}


def test_status_subresource_owns_status(k8s: Cluster) -> None:
    k8s.apps.create_namespaced_deployment("default", deployment("web"))

    k8s.apps.patch_namespaced_deployment_status("web", "default", {"status": {"readyReplicas": 1}})
    ignored = k8s.apps.patch_namespaced_deployment("web", "default", {"status": {"readyReplicas": 7}})

    assert ignored.status.ready_replicas == 1
    assert k8s.apps.read_namespaced_deployment_status("web", "default").status.ready_replicas == 1


# ----------------------------------------------------------------------------------- custom resources


def test_custom_resource_definition_enables_crud_and_status(k8s: Cluster) -> None:
    create_train_job_crd(k8s)
    crd = client.ApiextensionsV1Api(k8s.api).read_custom_resource_definition(CRD_NAME)
    body = {**train_job("llama", 2), "status": {"phase": "ignored on create"}}
    path = (GROUP, "v1", "default", "trainjobs")

    created = k8s.custom.create_namespaced_custom_object(*path, body)
    patched = k8s.custom.patch_namespaced_custom_object(*path, "llama", {"spec": {"replicas": 4}})
    k8s.custom.patch_namespaced_custom_object_status(*path, "llama", {"status": {"phase": "Running"}})
    listed = k8s.custom.list_cluster_custom_object(GROUP, "v1", "trainjobs")
    fetched = k8s.custom.get_namespaced_custom_object(*path, "llama")
    k8s.custom.delete_namespaced_custom_object(*path, "llama")

    assert {condition.type for condition in crd.status.conditions} == {"NamesAccepted", "Established"}
    assert "status" not in created and created["metadata"]["generation"] == 1
    assert patched["spec"] == {"replicas": 4} and patched["metadata"]["generation"] == 2
    assert [item["metadata"]["name"] for item in listed["items"]] == ["llama"]
    assert fetched["status"] == {"phase": "Running"} and fetched["kind"] == "TrainJob"
    assert k8s.custom.list_namespaced_custom_object(*path)["items"] == []


def test_custom_resources_refuse_strategic_merge_patch(k8s: Cluster) -> None:
    create_train_job_crd(k8s)
    path = (GROUP, "v1", "default", "trainjobs")
    k8s.custom.create_namespaced_custom_object(*path, train_job("llama", 1))

    with pytest.raises(ApiException) as raised:
        k8s.custom.patch_namespaced_custom_object(*path, "llama", {"spec": {}}, _content_type=STRATEGIC)

    assert raised.value.status == 415


def test_deleting_the_definition_removes_its_custom_resources(k8s: Cluster) -> None:
    create_train_job_crd(k8s)
    k8s.custom.create_namespaced_custom_object(GROUP, "v1", "default", "trainjobs", train_job("llama", 1))

    client.ApiextensionsV1Api(k8s.api).delete_custom_resource_definition(CRD_NAME)

    with pytest.raises(ApiException) as raised:
        k8s.custom.list_namespaced_custom_object(GROUP, "v1", "default", "trainjobs")
    assert raised.value.status == 404
    assert k8s.store.count() == 4


# ---------------------------------------------------------------------------------- server-side apply


def apply_train_job(k8s: Cluster, replicas: int) -> dict[str, Any] | None:
    """Server-side apply; the client maps the 201 of a creating apply to None."""
    return k8s.custom.patch_namespaced_custom_object(
        GROUP,
        "v1",
        "default",
        "trainjobs",
        "llama",
        train_job("llama", replicas),
        field_manager="instantstart",
        force=True,
        _content_type=APPLY,
    )


def test_apply_creates_the_object_and_records_the_manager(k8s: Cluster) -> None:
    create_train_job_crd(k8s)

    created = apply_train_job(k8s, 2)

    applied = k8s.custom.get_namespaced_custom_object(GROUP, "v1", "default", "trainjobs", "llama")
    managers = [(entry["manager"], entry["operation"]) for entry in applied["metadata"]["managedFields"]]
    assert created is None
    assert applied["spec"] == {"replicas": 2}
    assert managers == [("instantstart", "Apply")]


def test_apply_twice_with_same_content_keeps_resource_version(k8s: Cluster) -> None:
    create_train_job_crd(k8s)
    apply_train_job(k8s, 2)
    first = k8s.custom.get_namespaced_custom_object(GROUP, "v1", "default", "trainjobs", "llama")

    second, changed = apply_train_job(k8s, 2), apply_train_job(k8s, 3)

    assert second is not None and changed is not None
    assert second["metadata"]["resourceVersion"] == first["metadata"]["resourceVersion"]
    assert changed["metadata"]["resourceVersion"] != first["metadata"]["resourceVersion"]
    assert changed["spec"] == {"replicas": 3} and changed["metadata"]["generation"] == 2


def test_apply_merges_over_fields_it_does_not_mention(k8s: Cluster) -> None:
    existing = {"metadata": {"name": "cfg", "labels": {"keep": "me"}}, "data": {"a": "1"}}
    k8s.core.create_namespaced_config_map("default", existing)
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg"}, "data": {"b": "2"}}

    applied = k8s.core.patch_namespaced_config_map(
        "cfg",
        "default",
        body,
        field_manager="ops",
        _content_type=APPLY,
    )

    assert applied.data == {"a": "1", "b": "2"} and applied.metadata.labels == {"keep": "me"}


def test_apply_accepts_a_yaml_body(served: Served) -> None:
    """The official client always sends JSON, so raw YAML (as kubectl sends it) goes through httpx."""
    lines = [
        "kind: ConfigMap",
        "apiVersion: v1",
        "metadata: {name: cfg, creationTimestamp: null}",
        "data: {at: 2025-01-01}",
    ]

    response = httpx.patch(
        f"{served.url('yaml')}/api/v1/namespaces/default/configmaps/cfg",
        params={"fieldManager": "kubectl"},
        headers={"Authorization": f"Bearer {eks_token('yaml')}", "Content-Type": APPLY},
        content="\n".join(lines),
    )

    assert response.status_code == 201
    assert response.json()["data"] == {"at": "2025-01-01"}


def test_apply_without_field_manager_is_bad_request(k8s: Cluster) -> None:
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg"}}

    with pytest.raises(ApiException) as raised:
        k8s.core.patch_namespaced_config_map("cfg", "default", body, _content_type=APPLY)

    assert raised.value.status == 400


# ------------------------------------------------------------------------------------------- pod logs


def test_pod_log_is_served_as_text_with_tail_lines(k8s: Cluster) -> None:
    k8s.core.create_namespaced_pod("default", pod("trainer"))
    k8s.emulator.set_pod_log(k8s.name, "default", "trainer", "step 1\nstep 2\nstep 3\n")

    # kubernetes 36.0.3 turns text responses into str(bytes), so the raw response is read instead.
    whole = k8s.core.read_namespaced_pod_log("trainer", "default", _preload_content=False)
    tail = k8s.core.read_namespaced_pod_log("trainer", "default", tail_lines=2, _preload_content=False)

    assert whole.data.decode() == "step 1\nstep 2\nstep 3\n"
    assert whole.headers["content-type"].startswith("text/plain")
    assert tail.data.decode() == "step 2\nstep 3\n"


def test_pod_log_of_missing_pod_is_not_found(k8s: Cluster) -> None:
    with pytest.raises(ApiException) as raised:
        k8s.core.read_namespaced_pod_log("ghost", "default")

    assert raised.value.status == 404


# ------------------------------------------------------------------------------- programmatic access


def test_listeners_are_told_about_every_write(k8s: Cluster) -> None:
    events: list[tuple[str, str]] = []

    def record(cluster: str, event_type: str, obj: dict[str, Any]) -> None:
        if cluster == k8s.name:
            events.append((event_type, obj["metadata"]["name"]))

    k8s.emulator.add_listener(record)

    k8s.core.create_namespaced_config_map("default", config_map("cfg"))
    k8s.core.patch_namespaced_config_map("cfg", "default", {"data": {"a": "1"}})
    k8s.core.patch_namespaced_config_map("cfg", "default", {"data": {"a": "1"}})  # no change, no event
    k8s.core.delete_namespaced_config_map("cfg", "default")

    assert events == [("ADDED", "cfg"), ("MODIFIED", "cfg"), ("DELETED", "cfg")]


def test_store_writes_are_visible_through_the_api(k8s: Cluster) -> None:
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-1", "labels": {"gpu": "true"}}}

    stored, unchanged = k8s.store.put(node), k8s.store.put(node)

    assert unchanged["metadata"]["resourceVersion"] == stored["metadata"]["resourceVersion"]
    assert names_of(k8s.core.list_node(label_selector="gpu=true")) == ["node-1"]
    listed = k8s.store.list("", "v1", "nodes", label_selector="gpu")
    assert [listed_node["metadata"]["name"] for listed_node in listed] == ["node-1"]
    assert k8s.store.delete("", "v1", "nodes", None, "node-1") is not None
    assert k8s.store.get("", "v1", "nodes", None, "node-1") is None


def test_concurrent_writers_get_distinct_resource_versions(k8s: Cluster) -> None:
    def write(worker: int) -> list[str]:
        versions = []
        for n in range(25):
            stored = k8s.store.put({"apiVersion": "v1", "kind": "ConfigMap", **config_map(f"w{worker}-{n}")})
            versions.append(stored["metadata"]["resourceVersion"])
        return versions

    with ThreadPoolExecutor(max_workers=8) as pool:
        versions = [version for batch in pool.map(write, range(8)) for version in batch]

    assert len(set(versions)) == 200
    assert len(k8s.core.list_namespaced_config_map("default").items) == 200


def test_clusters_are_isolated(k8s: Cluster) -> None:
    other = f"{k8s.name}-other"
    k8s.emulator.add_cluster(other)

    k8s.core.create_namespace({"metadata": {"name": "only-here"}})

    assert k8s.emulator.store(other).get("", "v1", "namespaces", None, "only-here") is None
    assert {k8s.name, other} <= set(k8s.emulator.clusters())
    k8s.emulator.remove_cluster(other)
    assert other not in k8s.emulator.clusters()
