import pytest

from controlplane.core.auth import Actor, Role, strongest_role
from controlplane.models.errors import ForbiddenError


def test_the_strongest_group_decides_the_role():
    assert strongest_role(["viewer", "admin", "other"]) == Role.ADMIN
    assert strongest_role(["nobody"]) is None


def test_a_weaker_role_is_refused_with_the_role_it_needs():
    with pytest.raises(ForbiddenError) as refused:
        Actor("bob", Role.OPERATOR).require(Role.ADMIN, "delete a cluster")
    assert "needs the admin role" in refused.value.message
    Actor("alice", Role.ADMIN).require(Role.OPERATOR, "submit a job")
