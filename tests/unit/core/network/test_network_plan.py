import ipaddress

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controlplane.core.network.plan import choose_vpc_cidr, plan_network
from controlplane.core.ports.account import AvailabilityZone
from controlplane.models.errors import CidrConflictError, InvalidRequestError

ZONES = [
    AvailabilityZone("us-west-2b", "usw2-az2"),
    AvailabilityZone("us-west-2a", "usw2-az1"),
    AvailabilityZone("us-west-2c", "usw2-az3"),
]


def test_automatic_cidr_skips_ranges_used_by_existing_vpcs():
    cidr, source = choose_vpc_cidr({"vpc-1": "10.90.0.0/16", "vpc-2": "10.91.128.0/17"}, None)
    assert (cidr, source) == ("10.92.0.0/16", "automatic")


def test_requested_cidr_that_overlaps_a_vpc_is_refused_naming_the_vpc():
    with pytest.raises(CidrConflictError) as refused:
        choose_vpc_cidr({"vpc-1": "10.50.0.0/16"}, "10.50.128.0/17")
    assert "vpc-1 (10.50.0.0/16)" in refused.value.message
    assert refused.value.details["overlaps"] == ["vpc-1 (10.50.0.0/16)"]


def test_requested_free_cidr_is_used_as_given():
    assert choose_vpc_cidr({"vpc-1": "10.50.0.0/16"}, "10.60.0.0/16") == ("10.60.0.0/16", "caller")


def test_plan_puts_one_public_and_one_private_subnet_in_each_of_two_zones():
    plan = plan_network({}, None, ZONES)
    by_role = {(s.role, s.availabilityZone) for s in plan.subnets}
    assert by_role == {
        ("public", "us-west-2a"),
        ("public", "us-west-2b"),
        ("private", "us-west-2a"),
        ("private", "us-west-2b"),
    }


def test_plan_needs_two_availability_zones():
    with pytest.raises(InvalidRequestError):
        plan_network({}, None, ZONES[:1])


@settings(deadline=None)  # a property, not a timing check: a loaded CI machine must not fail it
@given(
    existing=st.lists(st.integers(min_value=0, max_value=255), max_size=30),
    prefix=st.integers(min_value=16, max_value=18),
)
def test_planned_subnets_are_disjoint_inside_the_vpc_and_never_overlap_existing_vpcs(existing, prefix):
    vpcs = {f"vpc-{i}": f"10.{octet}.0.0/{prefix}" for i, octet in enumerate(existing)}
    plan = plan_network(vpcs, None, ZONES)
    vpc = ipaddress.IPv4Network(plan.vpcCidr)
    assert not any(vpc.overlaps(ipaddress.IPv4Network(cidr)) for cidr in vpcs.values())
    subnets = [ipaddress.IPv4Network(s.cidr) for s in plan.subnets]
    assert all(subnet.subnet_of(vpc) for subnet in subnets)
    assert all(not a.overlaps(b) for i, a in enumerate(subnets) for b in subnets[i + 1 :])
