"""One cluster's object store and its write semantics, driven directly (no HTTP, no lock)."""

from typing import Any

import pytest

from sandbox.k8s.buckets import Event
from sandbox.k8s.emulator import KubernetesEmulator
from sandbox.k8s.errors import ApiError
from sandbox.k8s.kinds import BUILTIN_KINDS, Kind
from sandbox.k8s.selectors import FieldRequirement, parse_field_selector, parse_label_selector
from sandbox.k8s.store import INITIAL_NAMESPACES, ObjectStore

CONFIG_MAPS = BUILTIN_KINDS[("", "v1", "configmaps")]
DEPLOYMENTS = BUILTIN_KINDS[("apps", "v1", "deployments")]
NAMESPACES = BUILTIN_KINDS[("", "v1", "namespaces")]
PODS = BUILTIN_KINDS[("", "v1", "pods")]
SERVICES = BUILTIN_KINDS[("", "v1", "services")]
CRDS = BUILTIN_KINDS[("apiextensions.k8s.io", "v1", "customresourcedefinitions")]


def crd(scope: str = "Namespaced", **spec: Any) -> dict[str, Any]:
    version = {"name": "v1", "served": True, "storage": True, "subresources": {"status": {}}}
    return {
        "metadata": {"name": "trainjobs.training.example.com"},
        "spec": {
            "group": "training.example.com",
            "scope": scope,
            "names": {"plural": "trainjobs", "singular": "trainjob", "kind": "TrainJob"},
            "versions": [version],
            **spec,
        },
    }


def refused(call: Any) -> ApiError:
    with pytest.raises(ApiError) as raised:
        call()
    return raised.value


def test_a_new_cluster_holds_only_its_initial_namespaces() -> None:
    store = ObjectStore()

    assert store.count() == len(INITIAL_NAMESPACES)
    assert [ns["metadata"]["name"] for ns in store.select(NAMESPACES, None)] == sorted(INITIAL_NAMESPACES)
    assert store.require(NAMESPACES, None, "default")["status"] == {"phase": "Active"}


def test_create_sets_server_fields_and_records_an_added_event() -> None:
    store, events = ObjectStore(), []

    created = store.create(CONFIG_MAPS, "default", {"metadata": {"name": "cfg", "uid": "mine"}, "data": {}}, events)

    meta = created["metadata"]
    assert meta["uid"] != "mine" and meta["generation"] == 1 and meta["namespace"] == "default"
    assert int(meta["resourceVersion"]) == store.revision
    assert [event for event, _ in events] == ["ADDED"]


def test_create_applies_kind_defaults_and_drops_status_the_server_owns() -> None:
    store = ObjectStore()

    pod = store.create(PODS, "default", {"metadata": {"name": "p"}, "status": {"phase": "Running"}}, [])
    namespace = store.create(NAMESPACES, None, {"metadata": {"name": "team"}}, [])

    assert pod["status"] == {"phase": "Pending"}
    assert namespace["spec"] == {"finalizers": ["kubernetes"]} and namespace["status"] == {"phase": "Active"}


@pytest.mark.parametrize(
    ("kind", "name"),
    [(CONFIG_MAPS, "Not_A_Name"), (CONFIG_MAPS, "a" * 254), (NAMESPACES, "has.dots"), (SERVICES, "1-starts-digit")],
)
def test_names_follow_the_kind_s_name_rule(kind: Kind, name: str) -> None:
    namespace = "default" if kind.namespaced else None

    error = refused(lambda: ObjectStore().create(kind, namespace, {"metadata": {"name": name}}, []))

    assert (error.code, error.reason) == (422, "Invalid")
    assert error.details is not None and error.details["causes"][0]["field"] == "metadata.name"


def test_a_body_naming_another_namespace_than_the_url_is_bad_request() -> None:
    body = {"metadata": {"name": "cfg", "namespace": "other"}}

    assert refused(lambda: ObjectStore().create(CONFIG_MAPS, "default", body, [])).code == 400


def test_deleting_a_namespace_cascades_to_its_objects_only() -> None:
    store, events = ObjectStore(), []
    store.create(NAMESPACES, None, {"metadata": {"name": "team"}}, events)
    store.create(CONFIG_MAPS, "team", {"metadata": {"name": "gone"}}, events)
    store.create(CONFIG_MAPS, "default", {"metadata": {"name": "kept"}}, events)
    store.logs[("team", "trainer")] = "log"
    store.create(PODS, "team", {"metadata": {"name": "trainer"}}, events)

    store.delete(NAMESPACES, None, "team", events)

    assert [cm["metadata"]["name"] for cm in store.select(CONFIG_MAPS, None)] == ["kept"]
    assert store.logs == {}
    assert [(event, obj["metadata"]["name"]) for event, obj in events if event == "DELETED"] == [
        ("DELETED", "gone"),
        ("DELETED", "trainer"),
        ("DELETED", "team"),
    ]


def test_protected_namespaces_cannot_be_deleted() -> None:
    assert refused(lambda: ObjectStore().delete(NAMESPACES, None, "kube-system", [])).code == 403


def test_a_crd_serves_its_kind_until_it_is_deleted_with_its_objects() -> None:
    store, events = ObjectStore(), []
    created = store.create(CRDS, None, crd(), events)
    kind = store.served("training.example.com", "v1", "trainjobs")
    store.create(kind, "default", {"metadata": {"name": "llama"}}, events)

    store.delete(CRDS, None, "trainjobs.training.example.com", events)

    assert {c["type"] for c in created["status"]["conditions"]} == {"NamesAccepted", "Established"}
    assert kind.custom and kind.namespaced and kind.status_subresource
    assert store.kind("training.example.com", "v1", "trainjobs") is None
    assert store.count() == len(INITIAL_NAMESPACES)


@pytest.mark.parametrize(
    ("body", "field"),
    [(crd(scope="Everywhere"), "spec.scope"), (crd(versions=[]), "spec.versions"), (crd(group=""), "spec.group")],
)
def test_an_incomplete_crd_is_invalid(body: dict[str, Any], field: str) -> None:
    error = refused(lambda: ObjectStore().create(CRDS, None, body, []))

    assert error.code == 422
    assert field in [cause["field"] for cause in (error.details or {})["causes"]]


def test_the_status_subresource_owns_status() -> None:
    store = ObjectStore()
    store.create(DEPLOYMENTS, "default", {"metadata": {"name": "web"}, "spec": {"replicas": 1}}, [])

    store.patch(DEPLOYMENTS, "default", "web", "", {"status": {"readyReplicas": 1}}, True, [])
    ignored = store.patch(DEPLOYMENTS, "default", "web", "", {"status": {"readyReplicas": 7}}, False, [])

    assert ignored["status"] == {"readyReplicas": 1}


def test_an_unchanged_patch_is_a_no_op_and_a_spec_change_bumps_generation() -> None:
    store, events = ObjectStore(), []
    store.create(DEPLOYMENTS, "default", {"metadata": {"name": "web"}, "spec": {"replicas": 1}}, events)

    same = store.patch(DEPLOYMENTS, "default", "web", "", {"spec": {"replicas": 1}}, False, events)
    labelled = store.patch(DEPLOYMENTS, "default", "web", "", {"metadata": {"labels": {"a": "b"}}}, False, events)
    scaled = store.patch(DEPLOYMENTS, "default", "web", "", {"spec": {"replicas": 2}}, False, events)

    assert same["metadata"]["resourceVersion"] == "5"  # four namespaces, then the deployment
    assert labelled["metadata"]["generation"] == 1 and scaled["metadata"]["generation"] == 2
    assert [event for event, _ in events] == ["ADDED", "MODIFIED", "MODIFIED"]


def test_apply_creates_then_merges_and_keeps_the_version_when_nothing_changes() -> None:
    store = ObjectStore()
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg"}, "data": {"a": "1"}}

    created, was_created = store.apply(CONFIG_MAPS, "default", "cfg", dict(body), "ops", False, [])
    again, _ = store.apply(CONFIG_MAPS, "default", "cfg", {**body, "metadata": {"name": "cfg"}}, "ops", False, [])
    merged, _ = store.apply(CONFIG_MAPS, "default", "cfg", {**body, "data": {"b": None, "c": "3"}}, "ci", False, [])

    assert was_created and created["metadata"]["managedFields"][0]["manager"] == "ops"
    assert again["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]
    assert merged["data"] == {"a": "1", "c": "3"}
    assert [entry["manager"] for entry in merged["metadata"]["managedFields"]] == ["ops", "ci"]


def test_apply_needs_the_kind_s_api_version_and_kind() -> None:
    body = {"apiVersion": "apps/v1", "kind": "ConfigMap", "metadata": {"name": "cfg"}}

    assert refused(lambda: ObjectStore().apply(CONFIG_MAPS, "default", "cfg", body, "ops", False, [])).code == 400


def test_select_filters_by_namespace_labels_and_fields_in_key_order() -> None:
    store = ObjectStore()
    for namespace, name, labels in (
        ("kube-system", "b", {"app": "web"}),
        ("default", "c", {}),
        ("default", "a", {"app": "web"}),
    ):
        store.put(
            {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": namespace, "labels": labels}},
            [],
        )

    everywhere = store.select(PODS, None, parse_label_selector("app=web"))
    in_default = store.select(PODS, "default", fields=parse_field_selector("metadata.name!=a", PODS))

    assert [(p["metadata"]["namespace"], p["metadata"]["name"]) for p in everywhere] == [
        ("default", "a"),
        ("kube-system", "b"),
    ]
    assert [p["metadata"]["name"] for p in in_default] == ["c"]


def test_put_routes_by_api_version_and_kind_and_refuses_unknown_kinds() -> None:
    store = ObjectStore()

    kind, stored = store.put({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n", "namespace": "x"}}, [])

    assert kind.plural == "nodes" and "namespace" not in stored["metadata"]
    with pytest.raises(LookupError):
        store.put({"apiVersion": "v9", "kind": "Widget", "metadata": {"name": "w"}}, [])


def test_emulator_listeners_run_after_the_write_and_may_write_back() -> None:
    emulator = KubernetesEmulator()
    store = emulator.store("c")
    seen: list[Event] = []

    def mirror(cluster: str, event: str, obj: dict[str, Any]) -> None:
        seen.append((event, obj))
        if obj["metadata"]["name"] == "source":
            store.put({**obj, "metadata": {"name": "copy", "namespace": "default"}})

    emulator.add_listener(mirror)
    store.put({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "source"}})

    assert [(event, obj["metadata"]["name"]) for event, obj in seen] == [("ADDED", "source"), ("ADDED", "copy")]
    assert store.get("", "v1", "configmaps", "default", "copy") is not None


def pod_on(name: str, node: str | None, namespace: str = "default") -> dict[str, Any]:
    spec = {"nodeName": node} if node else {}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": namespace}, "spec": spec}


def test_pods_selected_by_node_name_follow_moves_deletes_and_pages() -> None:
    store = ObjectStore()
    for name, node in (("a", "n1"), ("b", "n2"), ("c", "n1"), ("d", None)):
        store.put(pod_on(name, node), [])
    store.put(pod_on("e", "n1", namespace="kube-system"), [])
    store.put(pod_on("b", "n1"), [])  # moved from n2
    store.remove(PODS.storage, ("default", "c"), [])

    def names(node: str, **paging: Any) -> list[str]:
        fields = parse_field_selector(f"spec.nodeName={node}", PODS)
        return [p["metadata"]["name"] for p in store.select_page(PODS, None, fields=fields, **paging)[0]]

    assert names("n1") == ["a", "b", "e"]
    assert names("n2") == []
    assert names("") == ["d"]
    assert names("n1", after=("default", "a"), limit=1) == ["b"]
    in_default = parse_field_selector("spec.nodeName=n1,metadata.namespace!=kube-system", PODS)
    assert [p["metadata"]["name"] for p in store.select(PODS, None, fields=in_default)] == ["a", "b"]


def test_a_node_name_selection_looks_only_at_that_nodes_pods(monkeypatch: pytest.MonkeyPatch) -> None:
    store = ObjectStore()
    for index in range(1000):
        store.put(pod_on(f"p{index:04d}", f"node-{index % 100}"), [])
    looked_at = []
    matches = FieldRequirement.matches
    monkeypatch.setattr(FieldRequirement, "matches", lambda self, obj: looked_at.append(obj) or matches(self, obj))

    found = store.select(PODS, None, fields=parse_field_selector("spec.nodeName=node-7", PODS))

    assert len(found) == 10
    assert len(looked_at) == 10


def test_any_shows_the_stored_objects_themselves_and_stops_at_the_first_match() -> None:
    """The sandbox's EKS add-ons ask whether a node can run their pods on every call: a cluster of thousands of nodes
    answers at its first schedulable node, copying none (a copy of every node made status 0.9 s at 5,000 nodes)."""
    emulator = KubernetesEmulator()
    store = emulator.store("c")
    for index in range(5):
        store.put({"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"n-{index}"}})
    shown: list[dict[str, Any]] = []

    def second(node: dict[str, Any]) -> bool:
        shown.append(node)
        return node["metadata"]["name"] == "n-1"

    assert store.any("", "v1", "nodes", second)
    assert [node["metadata"]["name"] for node in shown] == ["n-0", "n-1"]
    stored = emulator.transact("c", lambda objects, _: objects.get(BUILTIN_KINDS[("", "v1", "nodes")], None, "n-0"))
    assert shown[0] is stored
    assert not store.any("", "v1", "nodes", lambda node: False)
