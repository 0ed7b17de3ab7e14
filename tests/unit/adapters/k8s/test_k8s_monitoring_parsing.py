"""The overview's pod counting over pod list pages (`pod_list`, then `pod_counts_of`): what it counts per phase and per
node, what a pending pod keeps, and what it ignores."""

from __future__ import annotations

import json
from typing import Any

import pytest

from controlplane.adapters.k8s import pod_pages
from controlplane.core.ports.kubernetes import PodCounts
from controlplane.models.status import GPU_RESOURCE


def pod_counts_of(pods: list[dict[str, Any]]) -> PodCounts:
    """The counts of a page of these pods, as the API server would send it."""
    page = pod_pages.pod_list(json.dumps({"kind": "PodList", "metadata": {}, "items": pods}).encode())
    return pod_pages.pod_counts_of(page.items or [])


def raw_pod(name: str, phase: str | None, node: str | None = None, *containers: dict[str, Any], **status: Any):
    return {
        "metadata": {"namespace": "team", "name": name, "creationTimestamp": "2026-01-01T00:00:00Z"},
        "spec": {**({"nodeName": node} if node else {}), "containers": list(containers)},
        "status": {**({"phase": phase} if phase else {}), **status},
    }


def asks(requests: str | None = None, limits: str | None = None) -> dict[str, Any]:
    resources: dict[str, Any] = {}
    if requests is not None:
        resources["requests"] = {GPU_RESOURCE: requests, "cpu": "1"}
    if limits is not None:
        resources["limits"] = {GPU_RESOURCE: limits}
    return {"name": "main", "resources": resources}


def test_counts_phases_and_gpus_per_node_and_phase_summing_containers():
    counts = pod_counts_of(
        [
            raw_pod("a", "Running", "n-1", asks("4"), asks(limits="2")),
            raw_pod("b", "Running", "n-1", asks("1")),
            raw_pod("done", "Succeeded", "n-1", asks("8")),
            raw_pod("c", "Running", "n-2", {"name": "no-resources"}),
        ]
    )
    assert counts.by_phase == {"Running": 3, "Succeeded": 1}
    assert counts.gpus == {("n-1", "Running"): 7, ("n-1", "Succeeded"): 8}
    assert counts.pending == []


def test_a_pending_pod_is_kept_whole_with_why_it_waits_and_no_phase_means_pending():
    scheduled = {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": "0/4 nodes"}
    counts = pod_counts_of(
        [raw_pod("waits", "Pending", None, asks("8"), conditions=[scheduled]), raw_pod("new", None)],
    )
    assert counts.by_phase == {"Pending": 2}
    assert counts.gpus == {}, "a pod on no node uses no node's GPUs"
    waits, new = counts.pending
    assert (waits.name, waits.gpus, waits.waiting_reason, waits.waiting_message) == (
        "waits",
        8,
        "Unschedulable",
        "0/4 nodes",
    )
    assert (new.name, new.phase, new.waiting_reason) == ("new", "Pending", None)


def test_a_gpu_count_that_is_not_a_number_counts_as_none():
    assert pod_counts_of([raw_pod("odd", "Running", "n-1", asks("lots"))]).gpus == {}


def test_a_gpu_limit_counts_beside_requests_that_name_no_gpu():
    cpu_only_request = {"name": "main", "resources": {"requests": {"cpu": "1"}, "limits": {GPU_RESOURCE: "2"}}}
    assert pod_counts_of([raw_pod("limited", "Running", "n-1", cpu_only_request)]).gpus == {("n-1", "Running"): 2}


def test_a_waiting_container_says_why_and_restarts_sum_the_containers():
    statuses = [
        {"name": "a", "restartCount": 2, "state": {"running": {}}},
        {"name": "b", "restartCount": 3, "state": {"waiting": {"reason": "ImagePullBackOff", "message": "no image"}}},
    ]
    (pod,) = pod_counts_of([raw_pod("pulls", "Pending", "n-1", asks("1"), containerStatuses=statuses)]).pending
    assert (pod.waiting_reason, pod.waiting_message, pod.node) == ("ImagePullBackOff", "no image", "n-1")
    assert pod.restarts == 5


def test_fields_the_overview_does_not_read_are_skipped_and_nulls_are_absences():
    busy = raw_pod("busy", "Running", "n-1", {**asks("2"), "env": [{"name": "RANK", "value": "0"}], "image": "x"})
    busy["metadata"]["managedFields"] = [{"manager": "kubelet", "fieldsV1": {"f:status": {}}}]
    busy["status"]["containerStatuses"] = None
    bare = {"metadata": {"name": "bare"}, "spec": None, "status": None}
    counts = pod_counts_of([busy, bare])
    assert counts.by_phase == {"Running": 1, "Pending": 1} and counts.gpus == {("n-1", "Running"): 2}
    assert [(pod.namespace, pod.name, pod.restarts) for pod in counts.pending] == [("", "bare", 0)]


def test_a_page_that_is_not_a_pod_list_is_a_value_error():
    with pytest.raises(ValueError):
        pod_pages.pod_list(b'{"items": [{"metadata": {"name": 7}}]}')
    with pytest.raises(ValueError):
        pod_pages.pod_list(b"<html>")
