"""The cluster detail page's tabs: instance groups, nodes, storage, software, features, events and remediation, on a
ready sandbox cluster.

Each test opens its tab at its permalink, `/clusters/{tag}?tab=<id>`. The tabs are registered in
`frontend/src/pages/cluster/tabs.tsx`; the page that renders them (`ClusterDetailPage`) is built on a parallel
branch, so these tests pass once both are merged.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, Request, expect

from tests.browser.pages import pick, record_state, sign_in
from tests.conftest import RunningSandbox

TAG = "detail"
CLUSTER = {
    "clusterTag": TAG,
    "region": "us-west-2",
    "hyperpod": {"availabilityZone": "us-west-2c", "instanceType": "ml.g6.4xlarge", "instanceCount": 1},
    "storage": {},
}


@pytest.fixture(scope="module")
def cluster(running_sandbox: RunningSandbox) -> Iterator[RunningSandbox]:
    """One ready cluster (every stage) for the module's tests."""
    with running_sandbox.client() as api:
        accepted = api.post("/clusters", json=CLUSTER)
        assert accepted.status_code == 202, accepted.text
    operation = running_sandbox.wait_terminal(accepted.json()["operationId"], limit_seconds=180)
    assert operation["status"] == "SUCCEEDED", operation.get("error")
    yield running_sandbox


def open_tab(page: Page, tab: str, role: str = "admin") -> None:
    sign_in(page, role)
    expect(page.get_by_role("heading", name="Clusters")).to_be_visible()
    page.goto(f"/clusters/{TAG}?tab={tab}")


def operation_started(page: Page, sandbox: RunningSandbox) -> dict:
    """The operation the success flash links to, once it has finished."""
    link = page.locator('[class*="awsui_flashbar"] a[href^="/operations/"]').first
    expect(link).to_be_visible()
    href = link.get_attribute("href") or ""
    return sandbox.wait_terminal(href.removeprefix("/operations/"))


def test_add_a_spot_instance_group(console: Page, cluster: RunningSandbox):
    open_tab(console, "instance-groups")
    expect(console.get_by_role("row").filter(has_text="ml.g6.4xlarge").first).to_be_visible()
    console.get_by_role("button", name="Add instance group").click()
    console.get_by_placeholder("spot-g6").fill("spot-g6")
    console.get_by_role("radio", name="Spot").check()
    console.get_by_role("button", name="Choose an Availability Zone").click()
    pick(console, "us-west-2c")
    console.get_by_role("button", name="Choose an instance type").click()
    pick(console, "ml.g6.4xlarge")
    record_state(console, "cluster-instance-groups-add")
    console.get_by_role("button", name="Review plan").click()
    dialog = console.get_by_role("dialog")
    expect(dialog.get_by_role("table", name="Pre-flight checks")).to_be_visible()
    dialog.get_by_role("button", name="Add instance group").click()
    assert operation_started(console, cluster)["status"] == "SUCCEEDED"
    console.get_by_role("button", name="Refresh instance groups").click()
    expect(console.get_by_role("row").filter(has_text="spot-g6")).to_contain_text("spot")
    record_state(console, "cluster-instance-groups")


def test_toggling_one_feature_sends_exactly_that_feature(console: Page, cluster: RunningSandbox):
    open_tab(console, "features")
    toggle = console.get_by_role("checkbox", name="KubeRay operator enabled")
    expect(toggle).not_to_be_checked()
    toggle.check()
    console.get_by_role("button", name="Review changes").click()
    dialog = console.get_by_role("dialog")
    expect(dialog.get_by_role("table", name="Planned actions")).to_be_visible()

    def applied(request: Request) -> bool:
        return request.method == "PATCH" and request.url.endswith(f"/clusters/{TAG}/features")

    with console.expect_request(applied) as patch:
        dialog.get_by_role("button", name="Apply").click()
    assert json.loads(patch.value.post_data or "") == {"kuberayOperator": {"enabled": True}}
    assert operation_started(console, cluster)["status"] == "SUCCEEDED"
    expect(console.get_by_role("row").filter(has_text="KubeRay operator")).to_contain_text("enabled")
    record_state(console, "cluster-features")


def test_reboot_a_node_and_see_its_operation(console: Page, cluster: RunningSandbox):
    open_tab(console, "nodes", role="operator")
    checkbox = console.get_by_role("checkbox", name=re.compile(r"^Select i-"))
    checkbox.first.check()
    expect(console.get_by_role("button", name="Replace")).to_have_count(0)
    console.get_by_role("button", name="Reboot").click()
    dialog = console.get_by_role("dialog")
    expect(dialog.get_by_role("table", name="Planned actions")).to_be_visible()
    dialog.get_by_role("button", name="Reboot").click()
    assert operation_started(console, cluster)["status"] == "SUCCEEDED"
    record_state(console, "cluster-nodes")


def test_storage_and_software_tabs_show_what_is_configured(console: Page, cluster: RunningSandbox):
    open_tab(console, "storage")
    expect(console.get_by_text("s3-claim")).to_be_visible()
    console.get_by_role("button", name="Configure storage").click()
    expect(console).to_have_url(f"{cluster.base_url}/clusters/{TAG}?tab=storage&action=configure")
    record_state(console, "cluster-storage")
    console.goto(f"/clusters/{TAG}?tab=software")
    expect(console.get_by_role("button", name="Review update")).to_be_visible()
    record_state(console, "cluster-software")


def test_a_viewer_sees_no_write_action_on_any_tab(console: Page, cluster: RunningSandbox):
    sign_in(console, "viewer")
    expect(console.get_by_role("heading", name="Clusters")).to_be_visible()
    for tab, heading, action in [
        ("instance-groups", "Instance groups", "Add instance group"),
        ("nodes", "Nodes", "Reboot"),
        ("storage", "Storage", "Configure storage"),
        ("software", "Software per instance group", "Review update"),
        ("features", "Advanced features", "Review changes"),
        ("events", "Events", "Save policy"),
        ("remediation", "Remediation policy", "Save policy"),
    ]:
        console.goto(f"/clusters/{TAG}?tab={tab}")
        expect(console.get_by_role("heading", name=re.compile(f"^{heading}"))).to_be_visible()
        expect(console.get_by_role("button", name=action)).to_have_count(0)
        if tab in ("events", "remediation"):  # the other tabs' states are recorded by the tests that act on them
            record_state(console, f"cluster-{tab}")


def test_a_failed_scale_shows_its_failure_on_the_tab_where_it_started_and_resumes_from_there(
    console: Page, cluster: RunningSandbox
):
    with cluster.client() as api:
        groups = api.get(f"/clusters/{TAG}/instance-groups").json()["instanceGroups"]
    group = next(group["instanceGroupName"] for group in groups if group["capacityType"] == "on-demand")
    cluster.sandbox.add_fault("Update Instance Group", 1, cluster_tag=TAG)
    open_tab(console, f"instance-groups&scale={group}")
    count = console.get_by_role("spinbutton", name="Target count")
    count.fill("2")
    console.get_by_role("button", name="Review scaling").click()
    console.get_by_role("dialog").get_by_role("button", name="Scale").click()
    header = f"Scale instance group {group} to 2"
    failure = console.get_by_role("alert").filter(has_text=f"{header}: failed")
    expect(failure).to_be_visible()
    expect(console).to_have_url(re.compile(r"tab=instance-groups"))
    record_state(console, "cluster-instance-groups-scale-failed")
    failure.get_by_role("button", name="Resume").click()
    expect(console.get_by_role("status").filter(has_text=f"{header}: done")).to_be_visible()
    expect(console.get_by_role("row").filter(has_text=group)).to_contain_text("2 / 2")
