"""The cluster page's Drift and Cost tabs on a sandbox cluster: no check yet, Check now finds a group resized out
of band by its field path; the cost of the on-demand group is priced from the sandbox's Price List."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.browser.pages import record_state, sign_in
from tests.conftest import RunningSandbox

TAG = "drifted"


@pytest.fixture(scope="module")
def cluster(running_sandbox: RunningSandbox) -> Iterator[RunningSandbox]:
    running_sandbox.build_cluster(TAG)
    with running_sandbox.client() as api:
        group = api.get(f"/clusters/{TAG}/instance-groups").json()["instanceGroups"][0]["instanceGroupName"]
    resize = {"action": "resize-group", "clusterName": f"hp-cluster-{TAG}", "instanceGroup": group, "instanceCount": 3}
    assert httpx.post(f"{running_sandbox.base_url}/sandbox/out-of-band", json=resize).status_code == 204
    yield running_sandbox


def open_tab(page: Page, tab: str, role: str) -> None:
    sign_in(page, role)
    expect(page.get_by_role("heading", name="Clusters")).to_be_visible()
    page.goto(f"/clusters/{TAG}?tab={tab}")


def test_check_now_shows_a_group_resized_out_of_band(console: Page, cluster: RunningSandbox) -> None:
    open_tab(console, "drift", "operator")
    expect(console.get_by_text("No drift check has run yet.")).to_be_visible()
    console.get_by_role("button", name="Check now").click()
    expect(console.get_by_text("drift found", exact=False)).to_be_visible()
    expect(console.get_by_role("row").filter(has_text="].instanceCount").first).to_contain_text("3")
    record_state(console, "cluster-drift")


def test_the_cost_tab_prices_the_on_demand_group(console: Page, cluster: RunningSandbox) -> None:
    open_tab(console, "cost", "viewer")
    row = console.get_by_role("row").filter(has_text="ml.g6.4xlarge").first
    expect(row).to_contain_text("On-demand")
    expect(row).to_contain_text("$1.65")
    record_state(console, "cluster-cost")
