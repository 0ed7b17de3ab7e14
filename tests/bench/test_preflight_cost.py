"""What pre-flight adds to a plan (POST /clusters?dryRun=true): stage 1's quotas and usage and one group's, against
the sandbox's Service Quotas and EC2. The issue's goal is well under 200 ms; the median of 10 is printed.

Run with `make bench`. A measurement, not a timed assertion.
"""

from __future__ import annotations

import statistics
import time

from controlplane import wiring
from controlplane.core.preflight.service import Growth
from controlplane.models.clusters import NetworkPlan, SubnetPlan

REGION = "us-west-2"
GOAL_SECONDS = 0.2


def test_what_pre_flight_adds_to_a_plan(running_sandbox):
    preflight = wiring.preflight()
    network = NetworkPlan(
        vpcCidr="10.1.0.0/16",
        cidrSource="automatic",
        subnets=[SubnetPlan(role="public", index=0, cidr="10.1.10.0/24", availabilityZone="us-west-2a")],
    )
    group = Growth(instance_type="ml.g6.4xlarge", instances=1, subnet_id=None)
    samples = []
    for _ in range(10):
        started = time.perf_counter()
        checks = [*preflight.network_checks(REGION, network), *preflight.group_checks(REGION, group)]
        samples.append(time.perf_counter() - started)
    median = statistics.median(samples)
    print(f"\npre-flight adds {median * 1000:.1f} ms (median of {len(samples)}, goal < {GOAL_SECONDS * 1000:.0f} ms)")
    assert checks
