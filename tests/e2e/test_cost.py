"""The cost view in the sandbox: running instance-hours per group with the sandbox's Price List; the on-demand
group priced, the spot group labelled and unpriced; the same through the MCP tool's route for a viewer."""

from __future__ import annotations

import pytest

from sandbox.aws.pricing import HOURLY_PRICES

TAG = "costly"
INSTANCE_TYPE = "ml.g6.4xlarge"
GROUP = {"availabilityZone": "us-west-2c", "instanceType": INSTANCE_TYPE, "instanceCount": 1}
SPOT = {**GROUP, "instanceGroupName": "spotty", "capacityType": "spot"}


@pytest.fixture(scope="module")
def cluster(running_sandbox) -> str:
    running_sandbox.build_cluster(TAG, then=[("POST", f"/clusters/{TAG}/instance-groups", SPOT)])
    return TAG


def test_on_demand_groups_are_priced_and_spot_is_labelled(running_sandbox, cluster) -> None:
    with running_sandbox.client("sandbox-viewer") as viewer:
        response = viewer.get(f"/clusters/{TAG}/cost")

    assert response.status_code == 200, response.text
    view = response.json()
    groups = {group["instanceGroupName"]: group for group in view["groups"]}
    spot = groups.pop("spotty")
    (on_demand,) = groups.values()
    assert (on_demand["capacity"], on_demand["runningInstances"]) == ("on-demand", 1)
    assert on_demand["onDemandHourlyPrice"] == HOURLY_PRICES[INSTANCE_TYPE]
    assert on_demand["onDemandCost"] == pytest.approx(on_demand["instanceHours"] * HOURLY_PRICES[INSTANCE_TYPE], 0.01)
    assert spot["capacity"] == "spot"
    assert spot.get("onDemandHourlyPrice") is None and spot.get("onDemandCost") is None
    assert "Spot" in spot["note"]
    assert view["onDemandCost"] == on_demand["onDemandCost"]


def test_cost_of_an_unknown_cluster_is_404(running_sandbox) -> None:
    with running_sandbox.client("sandbox-viewer") as viewer:
        assert viewer.get("/clusters/nothere/cost").status_code == 404
