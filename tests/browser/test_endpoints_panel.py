"""The console's Inference page with managed endpoints on a sandbox cluster: an endpoint created from the Managed
endpoints tab (a Hugging Face model on the cluster's one GPU) becomes DeploymentComplete, and the chat box, pointed
at it, gets the sandbox model's answer through the same chat contract as a model service.

The cluster is set up through the API, the inference operator enabled as in `tests/e2e/test_managed_endpoints.py`;
the simulated operator loads the model in `SECONDS_TO_LOAD`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from tests.browser.pages import pick, record_state, sign_in
from tests.conftest import RunningSandbox

TAG = "managed"
INSTANCE_TYPE = "ml.g6.4xlarge"
CLUSTER = {
    "clusterTag": TAG,
    "region": "us-west-2",
    "hyperpod": {"availabilityZone": "us-west-2c", "instanceType": INSTANCE_TYPE, "instanceCount": 1},
    "storage": {},
}
# The inference operator needs the FSx CSI driver (a feature dependency).
FEATURES = {name: {"enabled": True} for name in ("trainingOperator", "fsxCsiDriver", "inferenceOperator")}
SECONDS_TO_LOAD = 1.0


@pytest.fixture(scope="module")
def cluster(running_sandbox: RunningSandbox) -> Iterator[RunningSandbox]:
    with running_sandbox.client() as api:
        for method, path, body in (("POST", "/clusters", CLUSTER), ("PATCH", f"/clusters/{TAG}/features", FEATURES)):
            accepted = api.request(method, path, json=body)
            assert accepted.status_code == 202, accepted.text
            operation = running_sandbox.wait_terminal(accepted.json()["operationId"], limit_seconds=180)
            assert operation["status"] == "SUCCEEDED", operation.get("error")
    inference = running_sandbox.sandbox.inference
    before, inference.seconds_to_load = inference.seconds_to_load, SECONDS_TO_LOAD
    yield running_sandbox
    inference.seconds_to_load = before


def choose(page: Page, field: str, option: str) -> None:
    """Pick `option` in the Cloudscape select labelled `field`."""
    page.get_by_role("button", name=re.compile(f"^{re.escape(field)}( |$)")).click()
    pick(page, re.compile(re.escape(option)))


def test_an_endpoint_created_from_the_tab_answers_in_the_chat_box(console: Page, cluster: RunningSandbox):
    sign_in(console, "operator")
    expect(console.get_by_role("heading", name="Clusters")).to_be_visible()
    console.goto(f"/clusters/{TAG}/inference?tab=endpoints")
    expect(console.get_by_text("No managed endpoint yet.")).to_be_visible()
    console.get_by_role("button", name="Create endpoint").click()
    console.get_by_label("Name", exact=True).fill("qwen")
    choose(console, "Instance type", INSTANCE_TYPE)
    console.get_by_label("Hugging Face model id").fill("Qwen/Qwen3-0.6B")
    console.get_by_label("Worker image").fill("vllm/vllm-openai:v0.10.0")
    record_state(console, "inference-endpoint-create")
    console.get_by_role("button", name="Create endpoint").click()

    row = console.get_by_role("row").filter(has_text="Qwen/Qwen3-0.6B")
    expect(row).to_contain_text("DeploymentComplete", timeout=30_000)

    console.get_by_role("tab", name="Chat").click()
    choose(console, "Chat target", "qwen")
    console.get_by_label("Prompt").fill("What is HyperPod?")
    console.get_by_role("button", name="Send").click()

    answer = console.get_by_test_id("answer")
    expect(answer).to_contain_text("sandbox")
    expect(answer).to_contain_text("What is HyperPod?")
    record_state(console, "inference-endpoint-chat")
