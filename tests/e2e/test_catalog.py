"""Inspection before creation: Regions, AZs, instance types per AZ and training plans, through the API."""

from __future__ import annotations


def test_regions_and_availability_zones_with_ids(running_sandbox):
    with running_sandbox.client("sandbox-viewer") as api:
        assert "us-west-2" in api.get("/regions").json()["regions"]
        zones = api.get("/regions/us-west-2/availability-zones").json()["availabilityZones"]
        assert [z["name"] for z in zones] == ["us-west-2a", "us-west-2b", "us-west-2c", "us-west-2d"]
        assert all(z["zoneId"].startswith("usw2-az") for z in zones)
        unknown = api.get("/regions/xx-nowhere-1/availability-zones")
    assert unknown.status_code == 400
    assert unknown.json()["code"] == "UnknownRegion"


def test_instance_types_are_filtered_by_az_and_carry_gpu_facts(running_sandbox):
    with running_sandbox.client("sandbox-viewer") as api:
        listed = api.get("/regions/us-west-2/instance-types", params={"availabilityZone": "us-west-2c"}).json()
        wrong_zone = api.get("/regions/us-west-2/instance-types", params={"availabilityZone": "us-east-1a"})
    by_name = {t["instanceType"]: t for t in listed["instanceTypes"]}
    g6 = by_name["ml.g6.4xlarge"]
    assert (g6["gpus"], g6["deepHealthChecks"], g6["efaOnlyCapable"]) == (1, True, False)
    assert "us-west-2c" in g6["availabilityZones"]
    assert all("us-west-2c" in t["availabilityZones"] for t in listed["instanceTypes"])
    assert wrong_zone.status_code == 400


def test_training_plans_show_their_reserved_capacity(running_sandbox):
    arn = running_sandbox.sandbox.hyperpod.add_training_plan(
        "us-west-2", "catalog-plan", "ml.p5.48xlarge", 4, "us-west-2a"
    )
    with running_sandbox.client("sandbox-viewer") as api:
        plans = api.get("/regions/us-west-2/training-plans").json()["trainingPlans"]
    (plan,) = [p for p in plans if p["trainingPlanArn"] == arn]
    assert (plan["instanceType"], plan["instanceCount"], plan["availabilityZone"]) == (
        "ml.p5.48xlarge",
        4,
        "us-west-2a",
    )
