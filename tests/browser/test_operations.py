"""The operations pages and the audit trail in the browser: a failed operation's error and its resume followed live,
role gating (a viewer sees no write action, an operator no admin action), API errors with their request id, and the
JavaScript budget of the first page load."""

from __future__ import annotations

import gzip

from playwright.sync_api import Page, Response, expect

from tests.browser.pages import broken_words, record_state, sign_in
from tests.conftest import RunningSandbox

# Issue 13: the first page load stays within 1 MB of JavaScript, gzip.
JAVASCRIPT_BUDGET_BYTES = 1_000_000


def failed_operation(running_sandbox: RunningSandbox, cluster_tag: str) -> str:
    """An EKS cluster creation that failed in its role step, once (a resume then succeeds)."""
    running_sandbox.sandbox.add_fault("Ensure Cluster Role", 1)
    with running_sandbox.client() as api:
        accepted = api.post("/clusters/eks", json={"clusterTag": cluster_tag, "region": "us-west-2"})
        assert accepted.status_code == 202, accepted.text
    operation_id: str = accepted.json()["operationId"]
    assert running_sandbox.wait_terminal(operation_id)["status"] == "FAILED"
    return operation_id


def test_an_admin_sees_a_failed_operation_with_its_step_and_resumes_it_to_the_end(
    console: Page, running_sandbox: RunningSandbox
):
    operation_id = failed_operation(running_sandbox, "resumed")
    sign_in(console, "admin")
    console.goto("/operations?status=FAILED")
    row = console.get_by_role("row").filter(has_text=operation_id)
    expect(row).to_contain_text("FAILED")
    expect(row).to_contain_text("create_eks_cluster")
    expect(row).to_contain_text("sandbox-admin")
    record_state(console, "operations")

    row.get_by_role("link", name=operation_id).click()
    expect(console).to_have_url(f"{running_sandbox.base_url}/operations/{operation_id}")
    expect(console.get_by_text('in step "Ensure Cluster Role"')).to_be_visible()
    record_state(console, "operation-failed")
    # The page's resume request is answered before the wait starts: the operation is still FAILED until then.
    resume_path = f"/api/operations/{operation_id}/resume"
    with console.expect_response(lambda response: response.url.endswith(resume_path)) as resumed:
        console.get_by_role("button", name="Resume").click()
    assert resumed.value.status == 202
    assert running_sandbox.wait_terminal(operation_id)["status"] == "SUCCEEDED"
    # Long polls carry the page to the end without a reload; the attempts keep the first one's failure.
    stages = console.get_by_role("table", name="Stages", exact=True)
    for status in ("FAILED", "RUNNING", "PENDING"):
        expect(stages.get_by_text(status, exact=True)).to_have_count(0, timeout=30_000)
    expect(stages.get_by_text("SUCCEEDED", exact=True).first).to_be_visible()
    expect(console.get_by_role("button", name="Resume")).to_have_count(0)
    expect(console.get_by_text("Last step")).to_be_visible()
    expect(console.get_by_text("Current step")).to_have_count(0)
    attempts = console.get_by_role("region", name="Attempts (2)")
    expect(attempts.get_by_role("region", name="Attempt 2: SUCCEEDED")).to_be_visible()
    first = attempts.get_by_role("region", name="Attempt 1: FAILED")
    expect(first.get_by_text('SandboxFaultInjected in step "Ensure Cluster Role"')).to_be_visible()
    expect(first.get_by_role("table", name="Stages of attempt 1")).to_contain_text("FAILED")
    record_state(console, "operation-succeeded")


def test_a_viewer_sees_no_write_action_and_an_operator_no_admin_action(console: Page, running_sandbox: RunningSandbox):
    operation_id = failed_operation(running_sandbox, "gated")
    for role in ("viewer", "operator"):
        sign_in(console, role)
        expect(console.get_by_role("button", name=f"Role: {role}")).to_be_visible()
        console.goto(f"/operations/{operation_id}")
        expect(console.get_by_text('in step "Ensure Cluster Role"')).to_be_visible()
        expect(console.get_by_role("button", name="Resume")).to_have_count(0)
        expect(console.get_by_role("button", name="Cancel")).to_have_count(0)
        console.goto("/operations")
        expect(console.get_by_role("row").filter(has_text=operation_id)).to_be_visible()
        console.evaluate("sessionStorage.clear()")


def test_an_api_error_shows_its_message_and_request_id(console: Page):
    sign_in(console, "viewer")
    console.goto("/operations/op-00000000000000000000")
    alert = console.get_by_role("group").filter(has_text="The operation could not be read")
    expect(alert).to_contain_text("op-00000000000000000000")
    expect(alert).to_contain_text("request id ")
    record_state(console, "operation-not-found")
    console.goto("/audit")
    expect(console.get_by_text("needs the operator role")).to_be_visible()


def test_the_audit_trail_shows_who_did_what_filtered_by_the_url(console: Page, running_sandbox: RunningSandbox):
    operation_id = failed_operation(running_sandbox, "audited")
    sign_in(console, "operator")
    console.goto(f"/audit?operationId={operation_id}")
    row = console.get_by_role("row").filter(has_text="POST /clusters/eks")
    expect(row).to_contain_text("sandbox-admin")
    expect(row).to_contain_text("202")
    expect(console.get_by_role("textbox", name="Operation id")).to_have_value(operation_id)
    record_state(console, "audit")


def test_the_first_page_load_stays_within_the_javascript_budget(console: Page):
    scripts: dict[str, bytes] = {}

    def keep(response: Response) -> None:
        if response.request.resource_type == "script":
            scripts[response.url] = response.body()

    console.on("response", keep)
    sign_in(console, "admin")
    expect(console.get_by_role("heading", name="Clusters")).to_be_visible()
    console.wait_for_load_state("networkidle")
    size = sum(len(gzip.compress(body)) for body in scripts.values())
    print(f"first page load: {len(scripts)} scripts, {size} bytes of JavaScript (gzip)")
    assert scripts, "no script was loaded"
    assert size <= JAVASCRIPT_BUDGET_BYTES, (
        f"{size} bytes of JavaScript (gzip) over the {JAVASCRIPT_BUDGET_BYTES} budget"
    )


def test_on_a_narrow_window_statuses_and_filter_labels_keep_whole_words_and_stage_bars_their_width(
    console: Page, running_sandbox: RunningSandbox
):
    operation_id = failed_operation(running_sandbox, "narrow")
    console.set_viewport_size({"width": 1024, "height": 800})
    sign_in(console, "admin")
    for path, name in (("/operations?clusterTag=narrow", operation_id), ("/clusters", "narrow")):
        console.goto(path)
        row = console.get_by_role("row").filter(has_text=name)
        expect(row).to_contain_text("FAILED")
        assert broken_words(console.locator("main")) == [], path
        bar = row.get_by_role("progressbar").bounding_box()
        assert bar is not None and bar["width"] >= 100, f"the stages bar of {name} is {bar} on {path}"
        record_state(console, f"narrow-{path.strip('/').split('?')[0]}")
