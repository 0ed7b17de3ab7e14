"""The sandbox's SageMaker Runtime: a registered endpoint answers a chat completion with the echo model, through the
production adapter; any other endpoint is not found, as SageMaker says it."""

from collections.abc import Iterator

import pytest
from moto import mock_aws

from controlplane.adapters.aws.sagemaker_runtime import AwsModelEndpointGateway
from controlplane.core.endpoints.errors import EndpointUnavailableError
from sandbox.aws.sagemaker_runtime import SageMakerRuntimeExtension

REGION = "us-west-2"


@pytest.fixture
def runtime() -> Iterator[SageMakerRuntimeExtension]:
    with mock_aws():
        extension = SageMakerRuntimeExtension()
        extension.install()
        try:
            yield extension
        finally:
            extension.uninstall()


def test_a_registered_endpoint_answers_with_the_sandbox_echo_model(runtime: SageMakerRuntimeExtension) -> None:
    runtime.register("is-demo-qwen")

    answer = AwsModelEndpointGateway(REGION).invoke(
        "is-demo-qwen",
        {"messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi there"}]},
    )

    assert answer["object"] == "chat.completion"
    content = answer["choices"][0]["message"]["content"]
    assert "sandbox model" in content and "You said: Hi there" in content
    assert answer["usage"]["total_tokens"] > 0


def test_an_unknown_or_deregistered_endpoint_is_unavailable(runtime: SageMakerRuntimeExtension) -> None:
    runtime.register("is-demo-qwen")
    runtime.deregister("is-demo-qwen")

    with pytest.raises(EndpointUnavailableError, match="is-demo-qwen is not available"):
        AwsModelEndpointGateway(REGION).invoke("is-demo-qwen", {"messages": [{"role": "user", "content": "Hi"}]})
