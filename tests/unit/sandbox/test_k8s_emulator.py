"""The Kubernetes API emulator, driven by the official ``kubernetes`` client over real HTTP."""

import base64
import json
import socket
import threading
import uuid
from collections.abc import Iterator
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

from sandbox.k8s_emulator import KubernetesEmulator

APPLY = "application/apply-patch+yaml"
MERGE = "application/merge-patch+json"
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


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[KubernetesEmulator, int]]:
    emulator = KubernetesEmulator()
    app = Starlette(routes=[Mount("/k8s", app=emulator.asgi_app())])
    # uvicorn binds port 0 itself: a pre-bound socket.socket() has proto 0, so asyncio would not set
    # TCP_NODELAY and every response would wait ~40 ms for a delayed ACK.
    server = _ThreadedServer(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    assert server.ready.wait(timeout=10), "uvicorn did not start"
    yield emulator, server.servers[0].sockets[0].getsockname()[1]
    server.should_exit = True
    thread.join(timeout=10)


def eks_token(cluster: str) -> str:
    """A bearer token minted the way production mints one for EKS (fake credentials, no network)."""
    emitter = HierarchicalEmitter()  # the signer only keeps a weak reference to it
    signer = RequestSigner(
        ServiceId("sts"), "us-west-2", "sts", "v4", Credentials("AKIDEXAMPLE", "secret"), emitter
    )
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


def api_client(port: int, cluster: str, authorization: str | None) -> client.ApiClient:
    """A client sending ``authorization`` verbatim as the Authorization header.

    kubernetes 36.0.3 ignores ``api_key_prefix["authorization"]`` (kubernetes-client/python#2592), so the
    scheme goes into the value itself, which every client version sends unchanged.
    """
    configuration = client.Configuration(host=f"http://127.0.0.1:{port}/k8s/{cluster}")
    if authorization is not None:
        configuration.api_key = {"authorization": authorization}
    return client.ApiClient(configuration)


@pytest.fixture
def cluster() -> str:
    return f"cluster-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def emulator(served: tuple[KubernetesEmulator, int]) -> KubernetesEmulator:
    return served[0]


@pytest.fixture
def api(served: tuple[KubernetesEmulator, int], cluster: str) -> Iterator[client.ApiClient]:
    with api_client(served[1], cluster, f"Bearer {eks_token(cluster)}") as authenticated:
        yield authenticated


@pytest.fixture
def core(api: client.ApiClient) -> client.CoreV1Api:
    return client.CoreV1Api(api)


@pytest.fixture
def custom(api: client.ApiClient) -> client.CustomObjectsApi:
    return client.CustomObjectsApi(api)


def status_of(error: ApiException) -> dict[str, Any]:
    return json.loads(error.body)


def pod(name: str, labels: dict[str, str] | None = None, node: str | None = None) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": labels or {}},
        "spec": {"nodeName": node, "containers": [{"name": "main", "image": "busybox"}]},
    }


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


def create_train_job_crd(api: client.ApiClient) -> None:
    schema = {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}
    version = {
        "name": "v1",
        "served": True,
        "storage": True,
        "schema": schema,
        "subresources": {"status": {}},
    }
    client.ApiextensionsV1Api(api).create_custom_resource_definition(
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


# ------------------------------------------------------------------------------------ authentication


def test_request_without_token_is_unauthorized_with_a_status_body(
    served: tuple[KubernetesEmulator, int],
) -> None:
    with api_client(served[1], "anonymous", None) as anonymous, pytest.raises(ApiException) as raised:
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


@pytest.mark.parametrize(
    "authorization",
    [
        "Bearer not-an-eks-token",
        "Bearer k8s-aws-v1."
        + base64.urlsafe_b64encode(b"https://evil.example.com/?Action=GetCallerIdentity").decode(),
        "Bearer k8s-aws-v1."
        + base64.urlsafe_b64encode(b"https://sts.amazonaws.com/?Action=GetCallerIdentity").decode(),
        eks_token("c"),  # a valid token without the Bearer scheme
    ],
)
def test_authorization_that_is_not_a_bearer_presigned_sts_url_is_unauthorized(
    served: tuple[KubernetesEmulator, int], authorization: str
) -> None:
    with api_client(served[1], "c", authorization) as unsigned, pytest.raises(ApiException) as raised:
        client.CoreV1Api(unsigned).list_namespace()

    assert raised.value.status == 401


def test_authorizer_refusal_is_forbidden(
    emulator: KubernetesEmulator, core: client.CoreV1Api, cluster: str
) -> None:
    seen: list[tuple[str, str]] = []

    def deny(name: str, token: str) -> bool:
        seen.append((name, token))
        return False

    emulator.set_authorizer(deny)
    try:
        with pytest.raises(ApiException) as raised:
            core.list_namespace()
    finally:
        emulator.set_authorizer(None)

    assert raised.value.status == 403
    assert status_of(raised.value)["reason"] == "Forbidden"
    assert seen[0][0] == cluster and seen[0][1].startswith("k8s-aws-v1.")


# ------------------------------------------------------------------------------------------ discovery


def test_version_reports_eks_1_34(api: client.ApiClient) -> None:
    version = client.VersionApi(api).get_code()

    assert (version.major, version.minor, version.git_version) == ("1", "34", "v1.34.0-eks")


def test_dynamic_client_discovers_builtin_and_custom_kinds(api: client.ApiClient, tmp_path: Path) -> None:
    create_train_job_crd(api)
    dynamic = DynamicClient(api, cache_file=str(tmp_path / "discovery.json"))

    deployments = dynamic.resources.get(api_version="apps/v1", kind="Deployment")
    train_jobs = dynamic.resources.get(api_version=f"{GROUP}/v1", kind="TrainJob")
    train_jobs.create(body=train_job("discovered", 1), namespace="default")

    assert deployments.namespaced and deployments.name == "deployments"
    assert "status" in train_jobs.subresources
    assert [item.metadata.name for item in train_jobs.get(namespace="default").items] == ["discovered"]


def test_unknown_resource_is_not_found(api: client.ApiClient) -> None:
    with pytest.raises(ApiException) as raised:
        api.call_api(
            "/apis/apps/v1/namespaces/default/widgets",
            "GET",
            auth_settings=["BearerToken"],
            response_types_map={},
        )

    assert raised.value.status == 404


# ------------------------------------------------------------------------------------------ namespaces


def test_initial_namespaces_exist_and_default_cannot_be_deleted(core: client.CoreV1Api) -> None:
    names = {namespace.metadata.name for namespace in core.list_namespace().items}

    with pytest.raises(ApiException) as raised:
        core.delete_namespace("default")

    assert names == {"default", "kube-system", "kube-public", "kube-node-lease"}
    assert raised.value.status == 403


def test_deleting_a_namespace_deletes_everything_in_it(
    emulator: KubernetesEmulator, core: client.CoreV1Api, cluster: str
) -> None:
    created = core.create_namespace({"metadata": {"name": "team-a"}})
    core.create_namespaced_config_map("team-a", {"metadata": {"name": "settings"}, "data": {"k": "v"}})
    core.create_namespaced_pod("team-a", pod("worker"))
    core.create_namespaced_config_map("default", {"metadata": {"name": "kept"}})

    core.delete_namespace("team-a")

    assert created.status.phase == "Active"
    assert "team-a" not in {namespace.metadata.name for namespace in core.list_namespace().items}
    assert core.list_config_map_for_all_namespaces().items[0].metadata.name == "kept"
    assert core.list_pod_for_all_namespaces().items == []
    assert emulator.store(cluster).count() == 5  # four initial namespaces and the kept config map


def test_creating_in_a_missing_namespace_is_not_found(core: client.CoreV1Api) -> None:
    with pytest.raises(ApiException) as raised:
        core.create_namespaced_config_map("nowhere", {"metadata": {"name": "settings"}})

    assert raised.value.status == 404
    assert status_of(raised.value)["details"] == {"name": "nowhere", "kind": "namespaces"}


# --------------------------------------------------------------------------------------- create / get


def test_create_sets_server_fields_and_get_returns_the_object(core: client.CoreV1Api) -> None:
    first = core.create_namespaced_config_map("default", {"metadata": {"name": "one"}, "data": {"a": "1"}})
    second = core.create_namespaced_config_map("default", {"metadata": {"name": "two"}})

    fetched = core.read_namespaced_config_map("one", "default")

    assert first.metadata.uid and first.metadata.generation == 1 and first.metadata.namespace == "default"
    assert first.metadata.creation_timestamp is not None
    assert int(second.metadata.resource_version) > int(first.metadata.resource_version)
    assert fetched.data == {"a": "1"} and fetched.metadata.uid == first.metadata.uid


def test_generate_name_gets_a_unique_suffix(core: client.CoreV1Api) -> None:
    names = {
        core.create_namespaced_config_map("default", {"metadata": {"generateName": "job-"}}).metadata.name
        for _ in range(3)
    }

    assert len(names) == 3 and all(name.startswith("job-") and len(name) == 9 for name in names)


def test_duplicate_create_is_already_exists_conflict(core: client.CoreV1Api) -> None:
    core.create_namespaced_config_map("default", {"metadata": {"name": "twice"}})

    with pytest.raises(ApiException) as raised:
        core.create_namespaced_config_map("default", {"metadata": {"name": "twice"}})

    assert raised.value.status == 409
    assert status_of(raised.value)["reason"] == "AlreadyExists"


@pytest.mark.parametrize("metadata", [{}, {"name": "Not_A_Name"}, {"name": "a" * 254}])
def test_missing_or_malformed_name_is_invalid(core: client.CoreV1Api, metadata: dict[str, str]) -> None:
    with pytest.raises(ApiException) as raised:
        core.create_namespaced_config_map("default", {"metadata": metadata})

    assert raised.value.status == 422
    assert status_of(raised.value)["details"]["causes"][0]["field"] == "metadata.name"


def test_namespace_names_must_be_dns_labels(core: client.CoreV1Api) -> None:
    with pytest.raises(ApiException) as raised:
        core.create_namespace({"metadata": {"name": "has.dots"}})

    assert raised.value.status == 422


def test_get_of_missing_object_is_not_found_with_details(
    api: client.ApiClient, core: client.CoreV1Api
) -> None:
    with pytest.raises(ApiException) as core_raised:
        core.read_namespaced_pod("ghost", "default")
    with pytest.raises(ApiException) as apps_raised:
        client.AppsV1Api(api).read_namespaced_deployment("ghost", "default")

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


def test_watch_is_refused(core: client.CoreV1Api) -> None:
    with pytest.raises(ApiException) as raised:
        core.list_namespaced_pod("default", watch=True, _preload_content=False)

    assert raised.value.status == 400


# -------------------------------------------------------------------------------------------- listing


def test_pods_are_filtered_by_label_selector(core: client.CoreV1Api) -> None:
    core.create_namespaced_pod("default", pod("a", {"app": "web", "tier": "front"}))
    core.create_namespaced_pod("default", pod("b", {"app": "web", "tier": "back"}))
    core.create_namespaced_pod("default", pod("c", {"app": "db"}))

    def names(selector: str) -> list[str]:
        return [
            item.metadata.name for item in core.list_namespaced_pod("default", label_selector=selector).items
        ]

    assert names("app=web") == ["a", "b"]
    assert names("app==web,tier!=front") == ["b"]
    assert names("tier") == ["a", "b"]
    assert names("!tier") == ["c"]
    assert names("app in (db, cache)") == ["c"]
    assert names("tier notin (back),app") == ["a", "c"]


def test_pods_are_filtered_by_field_selector(
    emulator: KubernetesEmulator, core: client.CoreV1Api, cluster: str
) -> None:
    core.create_namespaced_pod("default", pod("on-node", node="node-1"))
    core.create_namespaced_pod("default", pod("unscheduled"))
    running = emulator.store(cluster).get("", "v1", "pods", "default", "on-node")
    assert running is not None
    emulator.store(cluster).put({**running, "status": {"phase": "Running"}})

    def names(selector: str) -> list[str]:
        return [
            item.metadata.name for item in core.list_pod_for_all_namespaces(field_selector=selector).items
        ]

    assert names("spec.nodeName=node-1") == ["on-node"]
    assert names("status.phase==Pending") == ["unscheduled"]
    assert names("status.phase!=Running,metadata.namespace=default") == ["unscheduled"]
    assert names("metadata.name=on-node") == ["on-node"]


def test_unsupported_field_selector_is_bad_request(core: client.CoreV1Api) -> None:
    with pytest.raises(ApiException) as raised:
        core.list_namespaced_config_map("default", field_selector="data.key=value")

    assert raised.value.status == 400


def test_listing_pages_with_limit_and_continue(core: client.CoreV1Api) -> None:
    core.create_namespace({"metadata": {"name": "other"}})
    for namespace, name in [
        ("default", "p1"),
        ("default", "p2"),
        ("other", "p3"),
        ("other", "p4"),
        ("other", "p5"),
    ]:
        core.create_namespaced_pod(namespace, pod(name))

    pages, token = [], None
    while True:
        page = core.list_pod_for_all_namespaces(limit=2, _continue=token)
        pages.append([item.metadata.name for item in page.items])
        token = page.metadata._continue
        if not token:
            break

    assert pages == [["p1", "p2"], ["p3", "p4"], ["p5"]]


def test_delete_collection_removes_only_matching_objects(core: client.CoreV1Api) -> None:
    core.create_namespaced_pod("default", pod("batch-1", {"batch": "x"}))
    core.create_namespaced_pod("default", pod("batch-2", {"batch": "x"}))
    core.create_namespaced_pod("default", pod("other"))

    core.delete_collection_namespaced_pod("default", label_selector="batch=x")

    assert [item.metadata.name for item in core.list_namespaced_pod("default").items] == ["other"]


# ----------------------------------------------------------------------------------- update and patch


def test_replace_with_stale_resource_version_is_conflict(core: client.CoreV1Api) -> None:
    created = core.create_namespaced_config_map("default", {"metadata": {"name": "cfg"}, "data": {"v": "1"}})
    created.data = {"v": "2"}
    core.replace_namespaced_config_map("cfg", "default", created)
    created.data = {"v": "3"}

    with pytest.raises(ApiException) as raised:
        core.replace_namespaced_config_map("cfg", "default", created)

    assert raised.value.status == 409
    assert status_of(raised.value)["reason"] == "Conflict"
    assert core.read_namespaced_config_map("cfg", "default").data == {"v": "2"}


def test_replace_bumps_generation_only_when_spec_changes(api: client.ApiClient) -> None:
    apps = client.AppsV1Api(api)
    created = apps.create_namespaced_deployment("default", deployment("web"))
    created.metadata.labels = {"team": "a"}
    relabelled = apps.replace_namespaced_deployment("web", "default", created)
    relabelled.spec.replicas = 3
    scaled = apps.replace_namespaced_deployment("web", "default", relabelled)

    assert relabelled.metadata.generation == 1
    assert scaled.metadata.generation == 2


def test_strategic_patch_merges_containers_by_name_and_merge_patch_replaces_the_list(
    api: client.ApiClient,
) -> None:
    apps = client.AppsV1Api(api)
    apps.create_namespaced_deployment("default", deployment("web"))
    image_update = {"spec": {"template": {"spec": {"containers": [{"name": "app", "image": "app:2"}]}}}}

    strategic = apps.patch_namespaced_deployment("web", "default", image_update)
    merged = apps.patch_namespaced_deployment("web", "default", image_update, _content_type=MERGE)

    assert [(c.name, c.image) for c in strategic.spec.template.spec.containers] == [
        ("app", "app:2"),
        ("sidecar", "proxy:1"),
    ]
    assert strategic.metadata.generation == 2
    assert [(c.name, c.image) for c in merged.spec.template.spec.containers] == [("app", "app:2")]


def test_merge_patch_with_null_removes_a_field(core: client.CoreV1Api) -> None:
    core.create_namespaced_config_map("default", {"metadata": {"name": "cfg"}, "data": {"a": "1", "b": "2"}})

    patched = core.patch_namespaced_config_map(
        "cfg", "default", {"data": {"a": None, "c": "3"}}, _content_type=MERGE
    )

    assert patched.data == {"b": "2", "c": "3"}


def test_json_patch_applies_operations_and_a_failed_test_is_invalid(core: client.CoreV1Api) -> None:
    core.create_namespaced_config_map("default", {"metadata": {"name": "cfg"}, "data": {"a": "1"}})

    patched = core.patch_namespaced_config_map(
        "cfg",
        "default",
        [
            {"op": "test", "path": "/data/a", "value": "1"},
            {"op": "add", "path": "/data/b", "value": "2"},
            {"op": "replace", "path": "/data/a", "value": "9"},
            {"op": "add", "path": "/metadata/labels", "value": {"x/y": "z"}},
        ],
    )
    with pytest.raises(ApiException) as raised:
        core.patch_namespaced_config_map("cfg", "default", [{"op": "test", "path": "/data/a", "value": "1"}])

    assert patched.data == {"a": "9", "b": "2"} and patched.metadata.labels == {"x/y": "z"}
    assert raised.value.status == 422


def test_status_subresource_owns_status(api: client.ApiClient) -> None:
    apps = client.AppsV1Api(api)
    apps.create_namespaced_deployment("default", deployment("web"))

    apps.patch_namespaced_deployment_status("web", "default", {"status": {"readyReplicas": 1}})
    ignored = apps.patch_namespaced_deployment("web", "default", {"status": {"readyReplicas": 7}})

    assert ignored.status.ready_replicas == 1
    assert apps.read_namespaced_deployment_status("web", "default").status.ready_replicas == 1


# ---------------------------------------------------------------------------------- custom resources


def test_custom_resource_definition_enables_crud_and_status(
    api: client.ApiClient, custom: client.CustomObjectsApi
) -> None:
    create_train_job_crd(api)
    crd = client.ApiextensionsV1Api(api).read_custom_resource_definition(CRD_NAME)
    body = {**train_job("llama", 2), "status": {"phase": "ignored on create"}}

    created = custom.create_namespaced_custom_object(GROUP, "v1", "default", "trainjobs", body)
    patched = custom.patch_namespaced_custom_object(
        GROUP, "v1", "default", "trainjobs", "llama", {"spec": {"replicas": 4}}
    )
    custom.patch_namespaced_custom_object_status(
        GROUP, "v1", "default", "trainjobs", "llama", {"status": {"phase": "Running"}}
    )
    listed = custom.list_cluster_custom_object(GROUP, "v1", "trainjobs")
    fetched = custom.get_namespaced_custom_object(GROUP, "v1", "default", "trainjobs", "llama")
    custom.delete_namespaced_custom_object(GROUP, "v1", "default", "trainjobs", "llama")

    assert {condition.type for condition in crd.status.conditions} == {"NamesAccepted", "Established"}
    assert "status" not in created and created["metadata"]["generation"] == 1
    assert patched["spec"] == {"replicas": 4} and patched["metadata"]["generation"] == 2
    assert [item["metadata"]["name"] for item in listed["items"]] == ["llama"]
    assert fetched["status"] == {"phase": "Running"} and fetched["kind"] == "TrainJob"
    assert custom.list_namespaced_custom_object(GROUP, "v1", "default", "trainjobs")["items"] == []


def test_custom_resources_refuse_strategic_merge_patch(
    api: client.ApiClient, custom: client.CustomObjectsApi
) -> None:
    create_train_job_crd(api)
    custom.create_namespaced_custom_object(GROUP, "v1", "default", "trainjobs", train_job("llama", 1))

    with pytest.raises(ApiException) as raised:
        custom.patch_namespaced_custom_object(
            GROUP,
            "v1",
            "default",
            "trainjobs",
            "llama",
            {"spec": {}},
            _content_type="application/strategic-merge-patch+json",
        )

    assert raised.value.status == 415


def test_deleting_the_definition_removes_its_custom_resources(
    api: client.ApiClient, custom: client.CustomObjectsApi
) -> None:
    create_train_job_crd(api)
    custom.create_namespaced_custom_object(GROUP, "v1", "default", "trainjobs", train_job("llama", 1))

    client.ApiextensionsV1Api(api).delete_custom_resource_definition(CRD_NAME)

    with pytest.raises(ApiException) as raised:
        custom.list_namespaced_custom_object(GROUP, "v1", "default", "trainjobs")
    assert raised.value.status == 404


def test_programmatically_registered_kind_is_served(
    emulator: KubernetesEmulator, api: client.ApiClient
) -> None:
    emulator.register_kind("policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget", namespaced=True)
    body = {
        "metadata": {"name": "web"},
        "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}},
    }

    client.PolicyV1Api(api).create_namespaced_pod_disruption_budget("default", body)

    assert (
        client.PolicyV1Api(api).read_namespaced_pod_disruption_budget("web", "default").spec.min_available
        == 1
    )


# -------------------------------------------------------------------------------- server-side apply


def apply_train_job(custom: client.CustomObjectsApi, replicas: int) -> dict[str, Any] | None:
    """Server-side apply; the client maps the 201 of a creating apply to None."""
    return custom.patch_namespaced_custom_object(
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


def test_apply_creates_the_object_and_records_the_manager(
    api: client.ApiClient, custom: client.CustomObjectsApi
) -> None:
    create_train_job_crd(api)

    created = apply_train_job(custom, 2)

    applied = custom.get_namespaced_custom_object(GROUP, "v1", "default", "trainjobs", "llama")
    assert created is None
    assert applied["spec"] == {"replicas": 2}
    assert [(e["manager"], e["operation"]) for e in applied["metadata"]["managedFields"]] == [
        ("instantstart", "Apply")
    ]


def test_apply_twice_with_same_content_keeps_resource_version(
    api: client.ApiClient, custom: client.CustomObjectsApi
) -> None:
    create_train_job_crd(api)
    apply_train_job(custom, 2)
    first = custom.get_namespaced_custom_object(GROUP, "v1", "default", "trainjobs", "llama")

    second, changed = apply_train_job(custom, 2), apply_train_job(custom, 3)

    assert second is not None and changed is not None
    assert second["metadata"]["resourceVersion"] == first["metadata"]["resourceVersion"]
    assert changed["metadata"]["resourceVersion"] != first["metadata"]["resourceVersion"]
    assert changed["spec"] == {"replicas": 3} and changed["metadata"]["generation"] == 2


def test_apply_merges_over_fields_it_does_not_mention(core: client.CoreV1Api) -> None:
    core.create_namespaced_config_map(
        "default", {"metadata": {"name": "cfg", "labels": {"keep": "me"}}, "data": {"a": "1"}}
    )
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg"}, "data": {"b": "2"}}

    applied = core.patch_namespaced_config_map(
        "cfg", "default", body, field_manager="ops", _content_type=APPLY
    )

    assert applied.data == {"a": "1", "b": "2"} and applied.metadata.labels == {"keep": "me"}


def test_apply_accepts_a_yaml_body(served: tuple[KubernetesEmulator, int], cluster: str) -> None:
    """The official client always sends JSON, so raw YAML (as kubectl sends it) goes through httpx."""
    body = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n  creationTimestamp: null\ndata:\n  when: 2025-01-01\n"

    response = httpx.patch(
        f"http://127.0.0.1:{served[1]}/k8s/{cluster}/api/v1/namespaces/default/configmaps/cfg",
        params={"fieldManager": "kubectl"},
        headers={"Authorization": f"Bearer {eks_token(cluster)}", "Content-Type": APPLY},
        content=body,
    )

    assert response.status_code == 201
    assert response.json()["data"] == {"when": "2025-01-01"}


def test_apply_without_field_manager_is_bad_request(core: client.CoreV1Api) -> None:
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg"}}

    with pytest.raises(ApiException) as raised:
        core.patch_namespaced_config_map("cfg", "default", body, _content_type=APPLY)

    assert raised.value.status == 400


# --------------------------------------------------------------------------------------------- pod logs


def test_pod_log_is_served_with_tail_lines(
    emulator: KubernetesEmulator, core: client.CoreV1Api, cluster: str
) -> None:
    core.create_namespaced_pod("default", pod("trainer"))
    emulator.set_pod_log(cluster, "default", "trainer", "step 1\nstep 2\nstep 3\n")

    # kubernetes 36.0.3 returns str(bytes) for text responses, so the raw response is read instead.
    whole = core.read_namespaced_pod_log("trainer", "default", _preload_content=False)
    tail = core.read_namespaced_pod_log("trainer", "default", tail_lines=2, _preload_content=False)

    assert whole.data.decode() == "step 1\nstep 2\nstep 3\n"
    assert whole.headers["content-type"].startswith("text/plain")
    assert tail.data.decode() == "step 2\nstep 3\n"


def test_pod_log_of_missing_pod_is_not_found(core: client.CoreV1Api) -> None:
    with pytest.raises(ApiException) as raised:
        core.read_namespaced_pod_log("ghost", "default")

    assert raised.value.status == 404


# ------------------------------------------------------------------------------ programmatic access


def test_listeners_are_told_about_every_write(
    emulator: KubernetesEmulator, core: client.CoreV1Api, cluster: str
) -> None:
    events: list[tuple[str, str]] = []
    emulator.add_listener(
        lambda name, kind, obj: events.append((kind, obj["metadata"]["name"])) if name == cluster else None
    )

    core.create_namespaced_config_map("default", {"metadata": {"name": "cfg"}})
    core.patch_namespaced_config_map("cfg", "default", {"data": {"a": "1"}})
    core.patch_namespaced_config_map("cfg", "default", {"data": {"a": "1"}})  # no change, no event
    core.delete_namespaced_config_map("cfg", "default")

    assert events == [("ADDED", "cfg"), ("MODIFIED", "cfg"), ("DELETED", "cfg")]


def test_store_writes_are_visible_through_the_api(
    emulator: KubernetesEmulator, core: client.CoreV1Api, cluster: str
) -> None:
    store = emulator.store(cluster)

    stored = store.put(
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-1", "labels": {"gpu": "true"}}}
    )
    unchanged = store.put(
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-1", "labels": {"gpu": "true"}}}
    )

    assert unchanged["metadata"]["resourceVersion"] == stored["metadata"]["resourceVersion"]
    assert [node.metadata.name for node in core.list_node(label_selector="gpu=true").items] == ["node-1"]
    assert [n["metadata"]["name"] for n in store.list("", "v1", "nodes", label_selector="gpu")] == ["node-1"]
    assert store.delete("", "v1", "nodes", None, "node-1") is not None
    assert store.get("", "v1", "nodes", None, "node-1") is None


def test_clusters_are_isolated(
    emulator: KubernetesEmulator, served: tuple[KubernetesEmulator, int], cluster: str
) -> None:
    other = f"{cluster}-other"
    emulator.add_cluster(other)

    with api_client(served[1], cluster, f"Bearer {eks_token(cluster)}") as first:
        client.CoreV1Api(first).create_namespace({"metadata": {"name": "only-here"}})

    assert emulator.store(other).get("", "v1", "namespaces", None, "only-here") is None
    assert {cluster, other} <= set(emulator.clusters())
    emulator.remove_cluster(other)
    assert other not in emulator.clusters()
