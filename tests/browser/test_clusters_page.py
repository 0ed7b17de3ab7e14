"""The clusters page: sign-in by sandbox role, the list with status and stage progress, role-aware actions."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.browser.pages import accessibility_violations, record_state, sign_in
from tests.conftest import RunningSandbox


def test_the_clusters_page_lists_each_cluster_with_status_and_stages(console: Page, running_sandbox: RunningSandbox):
    with running_sandbox.client() as api:
        accepted = api.post("/clusters/eks", json={"clusterTag": "listed", "region": "us-west-2"})
        assert accepted.status_code == 202, accepted.text
    assert running_sandbox.wait_terminal(accepted.json()["operationId"])["status"] == "SUCCEEDED"

    sign_in(console, "admin")
    expect(console).to_have_url(f"{running_sandbox.base_url}/clusters")
    row = console.get_by_role("row").filter(has_text="listed")
    expect(row).to_contain_text("ACTIVE")
    expect(row).to_contain_text("eks")
    expect(console.get_by_role("button", name="Create cluster")).to_be_visible()
    expect(console.get_by_role("button", name="Import cluster")).to_be_visible()
    record_state(console, "clusters")


def test_a_viewer_sees_no_write_actions(console: Page):
    sign_in(console, "viewer")
    expect(console.get_by_role("heading", name="Clusters")).to_be_visible()
    expect(console.get_by_role("button", name="Create cluster")).to_have_count(0)
    expect(console.get_by_role("button", name="Import cluster")).to_have_count(0)


def test_an_unknown_address_says_so_and_a_permalink_survives_a_reload(console: Page, running_sandbox: RunningSandbox):
    sign_in(console, "operator")
    console.goto("/no/such/page")
    expect(console.get_by_text("No such page")).to_be_visible()
    console.goto("/clusters")
    console.reload()
    expect(console.get_by_role("heading", name="Clusters")).to_be_visible()
    # Creating and importing clusters are admin routes (x-required-role in the OpenAPI document).
    expect(console.get_by_role("button", name="Create cluster")).to_have_count(0)
    expect(console.get_by_role("button", name="Import cluster")).to_have_count(0)


def test_the_shell_and_the_list_pages_pass_axe_core(console: Page, running_sandbox: RunningSandbox):
    with running_sandbox.client() as api:
        accepted = api.post("/clusters/eks", json={"clusterTag": "named", "region": "us-west-2"})
        assert accepted.status_code == 202, accepted.text
    sign_in(console, "admin")
    for path, heading in (("/clusters", "Clusters"), ("/operations", "Operations"), ("/audit", "Audit trail")):
        console.goto(path)
        expect(console.get_by_role("heading", name=heading).first).to_be_visible()
        expect(
            console.get_by_role("row").filter(has_text="/clusters/eks" if path == "/audit" else "named").first
        ).to_be_visible()
        assert accessibility_violations(console) == [], path
