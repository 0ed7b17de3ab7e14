"""The overview's pod counting over raw JSON pages (`pod_counts_of`): what it counts per phase and per node, what a
pending pod keeps, and what it ignores."""

from __future__ import annotations

from typing import Any

from controlplane.adapters.k8s.monitoring import pod_counts_of
from controlplane.models.status import GPU_RESOURCE


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
