"""Every route × caller: no token → 401, a weaker role → 403, the required role gets past authorization.

The role each operation needs is the one its route declares (`allow`, which the document names as
`x-required-role`): a route cannot be declared without one, and this checks that the API enforces it.
"""

from __future__ import annotations

import pytest

from api.app import openapi_document

ROLES = ["viewer", "operator", "admin"]
# Valid bodies, so the roles that get past authorization get past validation too (which runs after the role check).
GROUP = {"availabilityZone": "us-west-2c", "instanceType": "ml.g6.4xlarge", "instanceCount": 1}
BODIES = {
    "hyperpod_update_advanced_features": {"certManager": {"enabled": True}},
    "cluster_create": {"clusterTag": "authz", "region": "us-west-2", "hyperpod": GROUP},
    "cluster_create_eks": {"clusterTag": "authz", "region": "us-west-2"},
    "cluster_import": {"clusterTag": "authz", "region": "us-west-2", "eksClusterName": "team"},
    "hyperpod_create": GROUP,
    "hyperpod_add_instance_group": {**GROUP, "instanceGroupName": "authz-group"},
    "hyperpod_update_instance_group": {"instanceCount": 1},
    "hyperpod_node_batch_action": {"action": "reboot", "nodeIds": ["i-0123456789abcdef0"]},
    "remediation_policy_put": {"action": "notify"},
    "job_submit": {"name": "authz-job", "image": "train:1", "instanceType": "ml.g6.4xlarge"},
    "job_submit_from_recipe": {"recipe": "pytorch-script", "name": "authz-job", "instanceType": "ml.g6.4xlarge"},
    "model_download_enhanced": {"repoId": "Qwen/Qwen2.5-0.5B"},
    "inference_deploy_container": {"name": "authz-model", "command": "vllm serve Qwen/Qwen3-0.6B", "gpus": 1},
    "inference_update_deployment": {"replicas": 1},
    "inference_call_model": {"prompt": "hello"},
    "inference_pool_action": {"action": "unbind", "worker": "authz-pod"},
    "inference_endpoint_create": {
        "name": "authz-group",
        "instanceType": GROUP["instanceType"],
        "jumpStart": {"modelId": "m"},
    },
    "inference_endpoint_call": {"messages": [{"role": "user", "content": "hi"}]},
    "hyperpod_create_team": {"team": "authz-team", "allocations": [{"instanceType": "ml.g6.4xlarge", "count": 1}]},
    "hyperpod_update_team": {"active": False},
    "hyperpod_put_scheduler_policy": {"priorityClasses": [{"name": "training", "weight": 50}]},
}
PARAMETERS = {
    "clusterTag": "authz",
    "operationId": "op-00000000000000000000",
    "region": "us-west-2",
    "name": "authz-group",
    "nodeId": "i-0123456789abcdef0",
    "jobName": "authz-job",
    "recipeName": "pytorch-script",
    "team": "authz-team",
}


def operations() -> list[tuple[str, str, str]]:
    found = []
    for path, methods in openapi_document()["paths"].items():
        for method, operation in methods.items():
            found.append((operation["operationId"], method.upper(), path.format(**PARAMETERS)))
    return found


REQUIRED_ROLE = {
    operation["operationId"]: operation.get("x-required-role")
    for methods in openapi_document()["paths"].values()
    for operation in methods.values()
}


def test_every_operation_names_a_required_role():
    assert set(REQUIRED_ROLE.values()) <= set(ROLES)
    assert set(BODIES) <= set(REQUIRED_ROLE)


@pytest.mark.parametrize(("operation_id", "method", "path"), operations())
def test_each_caller_gets_the_status_its_role_allows(running_sandbox, operation_id, method, path):
    # GETs get the query parameters they may need; mutations run as plans (dryRun) so nothing is created.
    params = {"clusterTag": "authz", "timeoutSeconds": 0} if method == "GET" else {"dryRun": "true"}
    body = BODIES.get(operation_id, {})
    with running_sandbox.client(token=None) as api:
        assert api.request(method, path, params=params, json=body).status_code == 401
    needed = ROLES.index(REQUIRED_ROLE[operation_id])
    for index, role in enumerate(ROLES):
        with running_sandbox.client(f"sandbox-{role}") as api:
            response = api.request(method, path, params=params, json=body)
        if index < needed:
            assert response.status_code == 403, (role, response.text)
            assert response.json()["code"] == "Forbidden"
        else:
            # Past authorization: the request itself decides (200, 202, 400, 404, 409), never 401/403/5xx.
            assert response.status_code not in (401, 403), (role, response.text)
            assert response.status_code < 500, (role, response.text)
