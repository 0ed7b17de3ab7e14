"""The console's recipe form on a sandbox cluster with the training operator enabled: the PyTorch recipe chosen on
the Training page, its typed form filled, the API's dry run reviewed, the job submitted, and its log lines streaming
into the job's page without a reload.

The cluster is set up through the API (every stage, then the trainingOperator feature), as in
`test_training_page.py`; the simulated operator writes one log line every `SECONDS_PER_LINE`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from tests.browser.pages import pick, record_state, sign_in
from tests.conftest import RunningSandbox

TAG = "recipeui"
INSTANCE_TYPE = "ml.g6.4xlarge"
CLUSTER = {
    "clusterTag": TAG,
    "region": "us-west-2",
    "hyperpod": {"availabilityZone": "us-west-2c", "instanceType": INSTANCE_TYPE, "instanceCount": 1},
    "storage": {},
}
# 30 lines: the job runs for about 12 s, long enough to see several 2 s log reads while it runs.
SECONDS_PER_LINE = 0.4
COUNT_LINES = "document.querySelector('[aria-label=\"Log lines\"]')?.textContent.match(/step \\d+\\//g)?.length ?? 0"


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


def log_lines(page: Page) -> int:
    return int(page.evaluate(COUNT_LINES))


def test_a_pytorch_recipe_submitted_from_the_training_page_streams_its_log(console: Page, cluster: RunningSandbox):
    sign_in(console, "operator")
    expect(console.get_by_role("heading", name="Clusters")).to_be_visible()
    console.goto(f"/clusters/{TAG}/jobs")
    expect(console.get_by_text("No training job yet.")).to_be_visible()
    console.get_by_role("button", name="Submit from a recipe").click()
    console.get_by_role("button", name=re.compile("^Recipe")).click()
    pick(console, re.compile("PyTorch script"))

    console.get_by_label("Job name", exact=True).fill("recipe-hello")
    console.get_by_role("button", name=re.compile("The instance type")).click()
    pick(console, INSTANCE_TYPE)
    console.get_by_label("Script", exact=True).fill("/s3/code/train.py")
    console.get_by_label("Dataset", exact=True).fill("s3://data-bkt/ds")
    console.get_by_label("Output path", exact=True).fill("s3://data-bkt/out")
    expect(console.get_by_label("Learning rate", exact=True)).to_have_value("0.0001")
    console.get_by_role("checkbox", name="Track with MLflow").check()
    console.get_by_role("button", name=re.compile("Tracking server")).click()
    pick(console, re.compile("sandbox-tracking"))
    console.get_by_label("Experiment", exact=True).fill("recipe-ui")
    console.get_by_role("button", name="Review").click()
    # The review comes into view right above the action, however long the form.
    expect(console.get_by_role("region", name="Review")).to_be_in_viewport()
    expect(console.get_by_role("button", name="Submit job")).to_be_in_viewport()
    expect(console.get_by_text(re.compile(r"hyperpodrun --nnodes=1 .*--data=s3://data-bkt/ds"))).to_be_visible()
    expect(console.get_by_text(re.compile("MLFLOW_EXPERIMENT_NAME=recipe-ui"))).to_be_visible()
    record_state(console, "recipe-review")
    console.get_by_role("button", name="Submit job").click()

    expect(console).to_have_url(re.compile(rf"/clusters/{TAG}/jobs/recipe-hello$"))
    console.evaluate("window.__notReloaded = true")
    expect(console.get_by_label("Log lines")).to_contain_text("step 1/30", timeout=15_000)
    first = log_lines(console)
    # A later read brings new lines into the same page.
    console.wait_for_function(f"() => ({COUNT_LINES}) > {first}", timeout=15_000)
    assert log_lines(console) > first
    assert console.evaluate("window.__notReloaded") is True
    record_state(console, "recipe-job-running")

    console.goto(f"/clusters/{TAG}/jobs?action=recipe&recipe=pytorch-script")
    expect(console.get_by_label("Script", exact=True)).to_have_value("/s3/code/train.py")
    # Where the last job wrote is not offered again: a new job must not overwrite its output.
    expect(console.get_by_label("Output path", exact=True)).to_have_value("")


def test_a_dry_run_refusing_more_gpus_than_the_type_has_holds_the_action_with_its_fix(
    console: Page, cluster: RunningSandbox
):
    sign_in(console, "operator")
    console.goto(f"/clusters/{TAG}/jobs?action=recipe&recipe=pytorch-script")
    console.get_by_label("Job name", exact=True).fill("too-many-gpus")
    console.get_by_role("button", name=re.compile("The instance type")).click()
    pick(console, INSTANCE_TYPE)
    console.get_by_label("Script", exact=True).fill("/s3/code/train.py")
    console.get_by_label("Dataset", exact=True).fill("s3://data-bkt/ds")
    console.get_by_label("Output path", exact=True).fill("s3://data-bkt/out-2")
    console.get_by_label("Gpus per node", exact=True).fill("8")
    console.get_by_role("button", name="Review").click()

    refusal = console.get_by_role("region", name="Review")
    expect(refusal).to_contain_text("The dry run refuses this job: fix first")
    expect(refusal).to_contain_text("GPU")
    expect(refusal).to_be_in_viewport()
    expect(console.get_by_role("button", name="Review")).to_have_attribute("aria-disabled", "true")
    record_state(console, "recipe-refused")
    console.get_by_label("Gpus per node", exact=True).fill("1")
    expect(console.get_by_role("button", name="Review")).not_to_have_attribute("aria-disabled", "true")
