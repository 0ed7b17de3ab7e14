"""`/sandbox/*`: the sandbox's controls — step faults, node, job and download faults, out-of-band changes and the
account's quotas. Each answers 400 with the body it expects when a request does not fit, and each is `guarded`:
closed to other sites' pages, its body JSON only (`origin`)."""

from __future__ import annotations

import json

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from sandbox import out_of_band
from sandbox.runtime import ACCOUNT_ID, Sandbox
from sandbox.server.origin import guarded


def control_routes(sandbox: Sandbox) -> list[Route]:
    """The routes under `/sandbox`, acting on `sandbox`."""

    async def add_fault(request: Request) -> Response:
        try:
            payload = json.loads(await request.body() or b"{}")
            step = str(payload["step"])
            times = int(payload.get("times", 1))
            after = int(payload.get("after", 0))
            cluster_tag = payload.get("clusterTag")
            if times < 1 or after < 0:
                raise ValueError("times must be at least 1 and after at least 0")
            if cluster_tag is not None and not isinstance(cluster_tag, str):
                raise ValueError("clusterTag must be a cluster's tag")
            key = sandbox.add_fault(step, times, after, cluster_tag)
        except (KeyError, ValueError, TypeError) as error:
            return JSONResponse(
                {
                    "code": "InvalidRequest",
                    "message": f'{error}. Body: {{"step": ..., "times": 1, "after": 0, "clusterTag": null}}',
                },
                status_code=400,
            )
        return JSONResponse({"step": key, "pending": sandbox.faults.pending()}, status_code=201)

    async def list_faults(request: Request) -> Response:
        return JSONResponse({"pending": sandbox.faults.pending()})

    async def clear_faults(request: Request) -> Response:
        sandbox.faults.clear()
        return Response(status_code=204)

    async def fail_node(request: Request) -> Response:
        """Mark a HyperPod node unhealthy and emit its Node Health Event; HyperPod replaces it shortly after when it
        repairs (`hyperPodRepairs`, by default the cluster's NodeRecovery Automatic), else the remediation policy
        decides."""
        try:
            payload = json.loads(await request.body() or b"{}")
            repairs = payload.get("hyperPodRepairs")
            if repairs is not None and not isinstance(repairs, bool):
                raise ValueError("hyperPodRepairs must be true or false")
            await run_in_threadpool(
                sandbox.hyperpod.mark_node_unhealthy, str(payload["clusterName"]), str(payload["nodeId"]), repairs
            )
        except (KeyError, ValueError, TypeError) as error:
            return JSONResponse(
                {
                    "code": "InvalidRequest",
                    "message": f'{error}. Body: {{"clusterName": "hp-cluster-<tag>", "nodeId": "i-...", '
                    '"hyperPodRepairs": false}',
                },
                status_code=400,
            )
        return Response(status_code=204)

    async def fail_health_check(request: Request) -> Response:
        """Make a HyperPod node fail its next deep health check; HyperPod then reboots or replaces it (`recovery`)."""
        try:
            payload = json.loads(await request.body() or b"{}")
            await run_in_threadpool(
                sandbox.hyperpod.fail_health_check,
                str(payload["clusterName"]),
                str(payload["nodeId"]),
                str(payload.get("recovery", "replace")),
            )
        except (KeyError, ValueError, TypeError) as error:
            return JSONResponse(
                {
                    "code": "InvalidRequest",
                    "message": f'{error}. Body: {{"clusterName": "hp-cluster-<tag>", "nodeId": "i-...", '
                    '"recovery": "replace"}',
                },
                status_code=400,
            )
        return Response(status_code=204)

    async def kill_job_process(request: Request) -> Response:
        """Kill a training job's process (now, or once it has written `afterLines` log lines)."""
        try:
            payload = json.loads(await request.body() or b"{}")
            after = int(payload.get("afterLines", 0))
            if after < 0:
                raise ValueError("afterLines must be at least 0")
            cluster = f"eks-cluster-{payload['clusterTag']}"
            sandbox.training.kill(cluster, str(payload.get("namespace", "default")), str(payload["jobName"]), after)
        except (KeyError, ValueError, TypeError) as error:
            return JSONResponse(
                {
                    "code": "InvalidRequest",
                    "message": f'{error!r}. Body: {{"clusterTag": "demo", "jobName": "llama", "namespace": "default", '
                    '"afterLines": 0}',
                },
                status_code=400,
            )
        return Response(status_code=204)

    async def fail_download(request: Request) -> Response:
        """Fail the next download of a repository (its Job ends Failed with `message`)."""
        try:
            payload = json.loads(await request.body() or b"{}")
            message = payload.get("message")
            repo_id = str(payload["repoId"])
            if message is None:
                sandbox.downloads.fail(repo_id)
            else:
                sandbox.downloads.fail(repo_id, str(message))
        except (KeyError, ValueError, TypeError) as error:
            return JSONResponse(
                {
                    "code": "InvalidRequest",
                    "message": f'{error!r}. Body: {{"repoId": "Qwen/Qwen2.5-0.5B", "message": "…"}}',
                },
                status_code=400,
            )
        return Response(status_code=204)

    async def change_out_of_band(request: Request) -> Response:
        """Delete a role or resize a group behind the control plane's back (a drift check then reports it)."""
        try:
            payload = json.loads(await request.body() or b"{}")
            out_of_band.apply(sandbox.hyperpod, payload)
        except (KeyError, ValueError, TypeError) as error:
            return JSONResponse(
                {"code": "InvalidRequest", "message": f"{error!r}. Body: {out_of_band.USAGE}"}, status_code=400
            )
        return Response(status_code=204)

    async def list_quotas(request: Request) -> Response:
        region = request.query_params.get("region", "us-west-2")
        service = request.query_params.get("serviceCode", "sagemaker")
        quotas = sandbox.quotas.quotas(region, service)
        return JSONResponse({"region": region, "quotas": [q.wire(region, ACCOUNT_ID) for q in quotas]})

    async def set_quota(request: Request) -> Response:
        """Set one quota's applied value, by instance type (its cluster-usage quota) or by service and name."""
        try:
            payload = json.loads(await request.body() or b"{}")
            region = str(payload["region"])
            if "instanceType" in payload:
                service, name = "sagemaker", f"{payload['instanceType']} for cluster usage"
            else:
                service, name = str(payload["serviceCode"]), str(payload["quotaName"])
            value = int(payload["value"])
            if value < 0:
                raise ValueError("value must be at least 0")
            quota = sandbox.quotas.set(region, service, name, value)
        except (KeyError, ValueError, TypeError) as error:
            return JSONResponse(
                {
                    "code": "InvalidRequest",
                    "message": f'{error!r}. Body: {{"region": "us-west-2", "instanceType": "ml.g6.4xlarge", '
                    '"value": 4} or {"region": ..., "serviceCode": "vpc", "quotaName": "VPCs per Region", "value": 10}',
                },
                status_code=400,
            )
        return JSONResponse(quota.wire(region, ACCOUNT_ID))

    routes = (
        ("/sandbox/faults", add_fault, "POST"),
        ("/sandbox/faults", list_faults, "GET"),
        ("/sandbox/faults", clear_faults, "DELETE"),
        ("/sandbox/node-faults", fail_node, "POST"),
        ("/sandbox/health-check-faults", fail_health_check, "POST"),
        ("/sandbox/job-faults", kill_job_process, "POST"),
        ("/sandbox/download-faults", fail_download, "POST"),
        ("/sandbox/out-of-band", change_out_of_band, "POST"),
        ("/sandbox/quotas", list_quotas, "GET"),
        ("/sandbox/quotas", set_quota, "PUT"),
    )
    return [Route(path, guarded(endpoint), methods=[method]) for path, endpoint, method in routes]
