"""The console's Monitoring page on a sandbox cluster: the charts of GPUs per group, node health and pods by phase
render from the overview, the pending pod and the Warning event are listed, and the pods table pages.

The cluster is set up through the API (EKS, dependencies, HyperPod with two nodes), and a pod that cannot be
scheduled and its Warning event are put into the Kubernetes emulator, as in `tests/e2e/test_monitoring.py`.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.pages import record_state, sign_in
from tests.conftest import RunningSandbox
from tests.e2e.test_monitoring import pod, warning

TAG = "watched"
PODS = 60  # more than a page of the pods table (50)


@pytest.fixture(scope="module")
def cluster(running_sandbox: RunningSandbox) -> RunningSandbox:
    running_sandbox.build_cluster(TAG, instances=2)
    store = running_sandbox.sandbox.emulator.store(f"eks-cluster-{TAG}")
    nodes = sorted(node["metadata"]["name"] for node in store.list("", "v1", "nodes"))
    for index in range(PODS):
        store.put(
            pod(f"work-{index:03d}", "team", nodes[index % len(nodes)], "Running", gpus=1 if index < len(nodes) else 0)
        )
    unschedulable = {
        "type": "PodScheduled",
        "status": "False",
        "reason": "Unschedulable",
        "message": "Insufficient nvidia.com/gpu",
    }
    store.put(pod("stuck", "team", None, "Pending", gpus=8, conditions=[unschedulable]))
    store.put(warning("stuck.0", "2026-01-01T00:00:00Z"))
    return running_sandbox


def test_the_monitoring_page_renders_its_charts_and_pages_the_pods(console: Page, cluster: RunningSandbox):
    sign_in(console, "viewer")
    expect(console.get_by_role("heading", name="Clusters")).to_be_visible()
    console.goto(f"/clusters/{TAG}/monitoring")

    expect(console.get_by_role("heading", name="Monitoring", exact=True)).to_be_visible()
    for chart in ("GPUs used and available per instance group", "Nodes by health", "Pods by phase"):
        expect(console.get_by_label(chart).first).to_be_visible()
    # Each chart drew its marks: the bars of the GPU chart, the segments of the two donuts.
    expect(console.locator("svg rect[class*='bar']").first).to_be_attached()
    assert console.locator("svg path[class*='segment']").count() >= 2
    expect(console.get_by_text("Insufficient nvidia.com/gpu")).to_be_visible()
    expect(console.get_by_text("0/2 nodes are available (stuck.0)")).to_be_visible()

    expect(console.get_by_role("cell", name="work-000")).to_be_visible()
    console.get_by_role("button", name="Next page of pods").click()
    expect(console.get_by_role("cell", name="work-000")).to_have_count(0)
    expect(console.get_by_role("cell", name="work-059")).to_be_visible()
    navigation = console.get_by_role("group", name=f"Cluster {TAG}").get_by_role("link", name="Monitoring")
    expect(navigation).to_have_attribute("aria-current", "page")
    record_state(console, "monitoring-page")
