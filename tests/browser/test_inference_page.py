"""The console's Inference page on a sandbox cluster: a model deployed from the page (the seed's vLLM command with
one GPU, cluster-internal) becomes ready, and a prompt sent from the chat box gets the sandbox model's answer.

The cluster is set up through the API, as in `tests/e2e/test_model_serving.py`; the simulated model server loads
its model in `SECONDS_TO_LOAD`, long enough to see it Loading first.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from tests.browser.pages import record_state, sign_in
from tests.conftest import RunningSandbox

TAG = "inference"
INSTANCE_TYPE = "ml.g6.4xlarge"
CLUSTER = {
    "clusterTag": TAG,
    "region": "us-west-2",
    "hyperpod": {"availabilityZone": "us-west-2c", "instanceType": INSTANCE_TYPE, "instanceCount": 1},
    "storage": {},
}
SEED_COMMAND = "vllm serve Qwen/Qwen3-0.6B --max-model-len 1280 --tensor-parallel-size 1"
SECONDS_TO_LOAD = 1.0


@pytest.fixture(scope="module")
def cluster(running_sandbox: RunningSandbox) -> Iterator[RunningSandbox]:
    with running_sandbox.client() as api:
        accepted = api.post("/clusters", json=CLUSTER)
        assert accepted.status_code == 202, accepted.text
        operation = running_sandbox.wait_terminal(accepted.json()["operationId"], limit_seconds=180)
        assert operation["status"] == "SUCCEEDED", operation.get("error")
    serving = running_sandbox.sandbox.serving
    before, serving.seconds_to_load = serving.seconds_to_load, SECONDS_TO_LOAD
    yield running_sandbox
    serving.seconds_to_load = before


def test_a_model_deployed_from_the_page_answers_in_the_chat_box(console: Page, cluster: RunningSandbox):
    sign_in(console, "operator")
    expect(console.get_by_role("heading", name="Clusters")).to_be_visible()
    console.goto(f"/clusters/{TAG}/inference")
    expect(console.get_by_text("No model server yet.")).to_be_visible()
    console.get_by_role("button", name="Deploy model").click()
    console.get_by_label("Name", exact=True).fill("qwen")
    console.get_by_label("Serving command").fill(SEED_COMMAND)
    expect(console.get_by_role("button", name="Deploy", exact=True)).to_be_disabled()
    console.get_by_label("GPUs per replica").fill("1")
    record_state(console, "inference-deploy")
    console.get_by_role("button", name="Deploy", exact=True).click()

    row = console.get_by_role("row").filter(has_text="Qwen/Qwen3-0.6B")
    expect(row).to_contain_text("Ready", timeout=20_000)
    expect(row).to_contain_text("1 / 1")

    console.get_by_role("tab", name="Services").click()
    expect(console.get_by_role("row").filter(has_text="qwen.default.svc.cluster.local")).to_contain_text("Ready")
    console.get_by_role("button", name="Chat with qwen").click()
    console.get_by_label("Prompt").fill("What is HyperPod?")
    console.get_by_role("button", name="Send").click()

    answer = console.get_by_test_id("answer")
    expect(answer).to_contain_text("sandbox")
    expect(answer).to_contain_text("What is HyperPod?")
    record_state(console, "inference-chat")


def test_a_model_server_opens_on_its_own_page_and_is_deleted_after_its_plan_and_name(
    console: Page, cluster: RunningSandbox
):
    with cluster.client("sandbox-operator") as api:
        body = {"name": "gone", "command": SEED_COMMAND, "gpus": 1}
        deployed = api.post(f"/clusters/{TAG}/deployments", json=body)
        assert deployed.status_code == 201, deployed.text
    sign_in(console, "operator")
    console.goto(f"/clusters/{TAG}/inference")
    console.get_by_role("searchbox", name="Find model servers").fill("gone")
    expect(console.get_by_role("link", name="qwen")).to_have_count(0)
    console.get_by_role("link", name="gone").click()
    expect(console).to_have_url(f"{cluster.base_url}/clusters/{TAG}/inference/deployments/gone")
    expect(console.get_by_role("heading", name="gone")).to_be_visible()
    expect(console.get_by_text("Ready").first).to_be_visible(timeout=20_000)
    record_state(console, "inference-model-server")

    console.get_by_role("button", name="Delete").click()
    dialog = console.get_by_role("dialog")
    expect(dialog.get_by_text("default/gone").first).to_be_visible()
    remove = dialog.get_by_role("button", name="Delete model server")
    expect(remove).to_be_disabled()
    dialog.get_by_role("textbox", name="To confirm, type gone").fill("gone")
    record_state(console, "inference-model-server-delete")
    remove.click()
    expect(console).to_have_url(f"{cluster.base_url}/clusters/{TAG}/inference?tab=deployments")
    expect(console.get_by_text("Deleted model server gone and its Services.")).to_be_visible()
    expect(console.get_by_role("link", name="gone")).to_have_count(0)
