"""What the API's view role may read in an emulated cluster, as EKS decides it: AmazonEKSViewPolicy's fixed rules,
then the view reader ClusterRole bound to the viewers' group. Every kind the API reads through the view role must be
readable one way or the other, or a real cluster answers 403 where the sandbox answered 200."""

from __future__ import annotations

from typing import Any

import pytest

from controlplane.adapters.k8s.manifests import render
from controlplane.core.features.catalog.karpenter import karpenter_objects
from controlplane.core.features.catalog.kuberay_operator import KUBERAY_BUNDLE
from controlplane.core.naming import JOB_WRITERS_GROUP, VIEWERS_GROUP
from controlplane.core.workload_access import job_writer_rbac, view_reader_rbac
from sandbox.aws.eks.access_policies import view_policy_allows
from sandbox.aws.hyperpod.kubernetes import KARPENTER_KINDS
from sandbox.k8s.emulator import ClusterStore, KubernetesEmulator
from sandbox.k8s.kinds import BUILTIN_KINDS
from sandbox.k8s.rbac import ApiAccess, rbac_allows

# (group, kind) → plural, as the emulator serves them
PLURALS = {
    **{(kind.group, kind.kind): kind.plural for kind in BUILTIN_KINDS.values()},
    **{(group, kind): plural for group, plural, kind in KARPENTER_KINDS},
    ("apiextensions.k8s.io", "CustomResourceDefinition"): "customresourcedefinitions",
}


@pytest.fixture
def store() -> ClusterStore:
    store = KubernetesEmulator().store("eks-cluster-view")
    for obj in view_reader_rbac():
        store.put(obj)
    return store


def view_role_reads(store: ClusterStore, access: ApiAccess) -> bool:
    return view_policy_allows(access) or rbac_allows(store, [VIEWERS_GROUP], access)


def where(obj: dict[str, Any]) -> tuple[str, str]:
    group = obj["apiVersion"].rpartition("/")[0]
    return group, PLURALS[(group, obj["kind"])]


def test_the_view_policy_alone_refuses_the_custom_resources_the_api_reads(store) -> None:
    assert not view_policy_allows(ApiAccess("list", "kueue.x-k8s.io", "workloads", "hyperpod-ns-a"))
    assert not view_policy_allows(ApiAccess("get", "sagemaker.amazonaws.com", "hyperpodpytorchjobs", "default"))
    assert not view_policy_allows(ApiAccess("list", "", "nodes"))
    assert view_policy_allows(ApiAccess("list", "", "pods", "default"))


def test_the_viewers_group_reads_every_kind_the_jobs_role_writes(store) -> None:
    [writer, _] = job_writer_rbac()
    written = [
        (group, resource)
        for rule in writer["rules"]
        for group in rule["apiGroups"]
        for resource in rule["resources"]
        if resource != "secrets"
    ]
    unread = [
        (group, resource, verb)
        for group, resource in written
        for verb in ("get", "list")
        if not view_role_reads(store, ApiAccess(verb, group, resource, "default"))
    ]
    assert written and unread == []


def test_every_object_a_feature_probe_gets_by_name_is_readable_by_the_view_role(store) -> None:
    bundle = render(KUBERAY_BUNDLE.name, KUBERAY_BUNDLE.pin.file, {"image": "kuberay:1"})
    probed = [where(obj) for obj in [*bundle, *karpenter_objects(["workers"])]]
    unread = [
        (group, plural) for group, plural in probed if not view_role_reads(store, ApiAccess("get", group, plural))
    ]
    assert probed and unread == []


def test_kueues_queues_and_workloads_and_the_nodes_are_read_through_the_viewers_group(store) -> None:
    for access in (
        ApiAccess("list", "kueue.x-k8s.io", "clusterqueues"),
        ApiAccess("list", "kueue.x-k8s.io", "workloads", "hyperpod-ns-a"),
        ApiAccess("list", "", "nodes"),
    ):
        assert rbac_allows(store, [VIEWERS_GROUP], access), access


def test_the_viewers_group_writes_nothing_and_reads_no_secret(store) -> None:
    for obj in job_writer_rbac():
        store.put(obj)
    assert not rbac_allows(store, [VIEWERS_GROUP], ApiAccess("get", "", "secrets", "default"))
    assert not rbac_allows(
        store, [VIEWERS_GROUP], ApiAccess("create", "sagemaker.amazonaws.com", "hyperpodpytorchjobs")
    )
    assert not rbac_allows(store, [JOB_WRITERS_GROUP], ApiAccess("list", "kueue.x-k8s.io", "workloads"))


def test_the_view_reader_grants_reads_but_no_watch_as_nothing_watches(store) -> None:
    [reader, _] = view_reader_rbac()
    verbs = {verb for rule in reader["rules"] for verb in rule["verbs"]}

    assert verbs == {"get", "list"}
    assert not rbac_allows(store, [VIEWERS_GROUP], ApiAccess("watch", "", "nodes"))
