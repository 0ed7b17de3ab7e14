"""SageMaker Runtime InvokeEndpoint: a JSON body to the endpoint the HyperPod inference operator registered."""

from __future__ import annotations

import json
from typing import Any

from botocore.exceptions import ClientError

from controlplane.adapters.aws.session import client, error_code
from controlplane.core.endpoints.errors import EndpointUnavailableError
from controlplane.models.errors import DependencyFailedError

JSON = "application/json"


class AwsModelEndpointGateway:
    def __init__(self, region: str) -> None:
        self._region = region

    def invoke(self, endpoint_name: str, body: dict[str, Any]) -> dict[str, Any]:
        runtime = client("sagemaker-runtime", self._region)
        try:
            response = runtime.invoke_endpoint(
                EndpointName=endpoint_name, ContentType=JSON, Accept=JSON, Body=json.dumps(body).encode()
            )
        except ClientError as error:
            message = error.response.get("Error", {}).get("Message", "")
            if error_code(error) == "ModelError":
                raise DependencyFailedError(
                    f"The model behind {endpoint_name} answered with an error: {message}"
                ) from None
            if error_code(error) == "ValidationError":
                raise EndpointUnavailableError(
                    f"SageMaker endpoint {endpoint_name} is not available ({message}); wait until the endpoint's state "
                    "is DeploymentComplete and call it again.",
                ) from None
            raise
        answer: dict[str, Any] = json.loads(response["Body"].read())
        return answer
