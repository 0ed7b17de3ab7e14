"""Buying reserved capacity through the agent's tools, as in the seed's conversations: search the offerings, show the
price, reserve one only with the person's confirmation, and see it among the Region's plans for a new group."""

from __future__ import annotations

from typing import Any

from tests.mcp_conversation import Tool, converse

REGION = "us-west-2"
SEARCH = {"instanceType": "ml.p5.48xlarge", "instanceCount": 2, "durationHours": 48}


def test_an_agent_reserves_an_offering_only_after_the_person_confirms_its_price(running_sandbox):
    async def story(tool: Tool) -> dict[str, Any]:
        _, found = await tool("training_plan_search_offerings", {"region": REGION, **SEARCH})
        offering = found["offerings"][0]
        request = {
            "region": REGION,
            "trainingPlanName": "p5-reserved",
            "trainingPlanOfferingId": offering["trainingPlanOfferingId"],
            "search": SEARCH,
        }
        _, plan = await tool("training_plan_create", request)
        assert plan["dryRun"] is True
        assert f"{offering['upfrontFee']} {offering['currencyCode']}" in plan["message"]
        _, listed = await tool("training_plan_list", {"region": REGION})
        assert "p5-reserved" not in {p["name"] for p in listed["trainingPlans"]}
        _, bought = await tool("training_plan_create", {**request, "confirmationToken": plan["confirmationToken"]})
        _, listed = await tool("training_plan_list", {"region": REGION})
        return {"offering": offering, "bought": bought, "plans": listed["trainingPlans"]}

    result, calls, _ = converse(running_sandbox, story, token="sandbox-admin")
    offering, bought = result["offering"], result["bought"]
    # 2 instances x 48 h at the sandbox's 32.00 USD per instance-hour.
    assert (offering["upfrontFee"], offering["currencyCode"]) == ("3072.00", "USD")
    assert bought["trainingPlanArn"].endswith(":training-plan/p5-reserved")
    (plan,) = [p for p in result["plans"] if p["name"] == "p5-reserved"]
    capacity = offering["reservedCapacity"][0]
    assert (plan["instanceType"], plan["instanceCount"], plan["availabilityZone"]) == (
        "ml.p5.48xlarge",
        2,
        capacity["availabilityZone"],
    )
    assert calls.count("training_plan_create") == 2


def test_an_unknown_offering_is_refused_with_search_again(running_sandbox):
    body = {"trainingPlanName": "never", "trainingPlanOfferingId": "tpo-unknown", "search": SEARCH}
    with running_sandbox.client("sandbox-admin") as api:
        refused = api.post(f"/regions/{REGION}/training-plans", json=body)
        plans = api.get(f"/regions/{REGION}/training-plans").json()["trainingPlans"]
    assert refused.status_code == 400, refused.text
    assert refused.json()["code"] == "TrainingPlanOfferingUnavailable"
    assert "search again" in refused.json()["message"]
    assert "never" not in {p["name"] for p in plans}


def test_searching_a_type_training_plans_do_not_offer_is_refused(running_sandbox):
    with running_sandbox.client("sandbox-viewer") as api:
        refused = api.get(
            f"/regions/{REGION}/training-plan-offerings", params={**SEARCH, "instanceType": "ml.g6.4xlarge"}
        )
    assert refused.status_code == 400, refused.text
    assert "ml.p5.48xlarge" in refused.json()["message"]


def test_only_an_admin_buys_a_training_plan(running_sandbox):
    body = {"trainingPlanName": "op-plan", "trainingPlanOfferingId": "tpo-x", "search": SEARCH}
    with running_sandbox.client("sandbox-operator") as api:
        refused = api.post(f"/regions/{REGION}/training-plans", json=body)
    assert refused.status_code == 403, refused.text


def test_a_new_instance_group_uses_the_plan_bought_through_the_api(running_sandbox):
    running_sandbox.build_cluster("tpgroup")
    running_sandbox.sandbox.quotas.set(REGION, "sagemaker", "ml.p5.48xlarge for cluster usage", 4)
    with running_sandbox.client("sandbox-admin") as api:
        found = api.get(f"/regions/{REGION}/training-plan-offerings", params=SEARCH).json()
        body = {
            "trainingPlanName": "p5-for-group",
            "trainingPlanOfferingId": found["offerings"][0]["trainingPlanOfferingId"],
            "search": SEARCH,
        }
        token = api.post(f"/regions/{REGION}/training-plans", json=body).json()["confirmationToken"]
        bought = api.post(f"/regions/{REGION}/training-plans", params={"confirmationToken": token}, json=body)
        assert bought.status_code == 201, bought.text
        group = {
            "instanceGroupName": "reserved",
            "instanceType": "ml.p5.48xlarge",
            "instanceCount": 2,
            "capacityType": "training-plan",
            "trainingPlanArn": bought.json()["trainingPlanArn"],
        }
        plan = api.post("/clusters/tpgroup/instance-groups", params={"dryRun": "true"}, json=group)
    assert plan.status_code == 200, plan.text
    checks = {check["check"]: check for check in plan.json()["checks"]}
    assert checks["capacity: training plan p5-for-group"]["status"] == "pass", checks
    # The offering starts at the next whole hour: its instances wait until then, and the plan says so.
    assert checks["capacity window: training plan p5-for-group"]["status"] == "warn", checks
