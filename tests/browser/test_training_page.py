"""The console's Training page on a sandbox cluster with the training operator enabled: a job submitted from the
page runs, its log lines stream into the job's page without a reload, and it ends Succeeded.

The cluster is set up through the API (every stage, then the trainingOperator feature), as in
`tests/e2e/test_training_jobs.py`; the simulated operator writes one log line every `SECONDS_PER_LINE`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from tests.browser.pages import pick, record_state, sign_in
from tests.conftest import RunningSandbox

TAG = "training"
INSTANCE_TYPE = "ml.g6.4xlarge"
CLUSTER = {
    "clusterTag": TAG,
    "region": "us-west-2",
    "hyperpod": {"availabilityZone": "us-west-2c", "instanceType": INSTANCE_TYPE, "instanceCount": 1},
    "storage": {},
}
# 30 lines: the job runs for about 6 s, long enough to see a few 2 s log reads while it runs.
SECONDS_PER_LINE = 0.2


@pytest.fixture(scope="module")
def cluster(running_sandbox: RunningSandbox) -> Iterator[RunningSandbox]:
    """One ready cluster whose training operator is enabled."""
    with running_sandbox.client() as api:
        for method, path, body in (
            ("POST", "/clusters", CLUSTER),
            ("PATCH", f"/clusters/{TAG}/features", {"trainingOperator": {"enabled": True}}),
        ):
            accepted = api.request(method, path, json=body)
            assert accepted.status_code == 202, accepted.text
            operation = running_sandbox.wait_terminal(accepted.json()["operationId"], limit_seconds=180)
            assert operation["status"] == "SUCCEEDED", operation.get("error")
    training = running_sandbox.sandbox.training
    before, training.seconds_per_line = training.seconds_per_line, SECONDS_PER_LINE
    yield running_sandbox
    training.seconds_per_line = before


COUNT_LINES = "document.querySelector('[aria-label=\"Log lines\"]')?.textContent.match(/step \\d+\\//g)?.length ?? 0"


def log_lines(page: Page) -> int:
    return int(page.evaluate(COUNT_LINES))


def test_a_job_submitted_from_the_page_streams_its_log_and_succeeds(console: Page, cluster: RunningSandbox):
    sign_in(console, "operator")
    expect(console.get_by_role("heading", name="Clusters")).to_be_visible()
    console.goto(f"/clusters/{TAG}/jobs")
    expect(console.get_by_text("No training job yet.")).to_be_visible()
    console.get_by_role("button", name="Submit job").click()
    console.get_by_label("Name", exact=True).fill("hello")
    console.get_by_label("Image", exact=True).fill("train:1")
    console.get_by_role("button", name=re.compile("The instance type")).click()
    pick(console, INSTANCE_TYPE)
    expect(console.get_by_label("In-place restarts before a full job restart")).to_have_value("3")
    # Finished pods stay, so the page reads the log's last lines after the job ends.
    console.get_by_role("button", name=re.compile("Pods deleted when the job ends")).click()
    pick(console, "None")
    record_state(console, "training-submit")
    console.get_by_role("button", name="Submit job").click()

    expect(console).to_have_url(re.compile(rf"/clusters/{TAG}/jobs/hello$"))
    console.evaluate("window.__notReloaded = true")
    expect(console.get_by_text("Running", exact=True).first).to_be_visible(timeout=10_000)
    expect(console.get_by_label("Log lines")).to_contain_text("step 1/30", timeout=10_000)
    first = log_lines(console)
    # A later 2 s read brings new lines into the same page.
    console.wait_for_function(f"() => ({COUNT_LINES}) > {first}", timeout=10_000)
    assert log_lines(console) > first
    record_state(console, "training-job-running")

    expect(console.get_by_text("Succeeded", exact=True).first).to_be_visible(timeout=30_000)
    expect(console.get_by_label("Log lines")).to_contain_text("step 30/30", timeout=10_000)
    assert console.evaluate("window.__notReloaded") is True
    record_state(console, "training-job-succeeded")

    console.goto(f"/clusters/{TAG}/jobs")
    expect(console.get_by_role("row").filter(has_text="hello")).to_contain_text("Succeeded")
    record_state(console, "training-jobs")
