"""The sandbox's step faults: for any cluster, or kept for one cluster's workflows."""

from __future__ import annotations

from sandbox.faults import FaultBook


def test_a_fault_for_any_cluster_is_taken_by_the_first_workflow_that_runs_the_step():
    book = FaultBook()
    book.add("Create EKS Cluster", 1)
    assert book.take("create_eks_cluster", "alpha") is True
    assert book.take("create_eks_cluster", "beta") is False


def test_a_fault_kept_for_a_cluster_fails_only_that_clusters_step():
    book = FaultBook()
    book.add("Ensure VPC", 2, cluster_tag="alpha")
    assert book.pending() == {"ensure_vpc for alpha": 2}
    assert book.take("Ensure VPC", "beta") is False
    assert book.take("Ensure VPC") is False
    assert [book.take("Ensure VPC", "alpha") for _ in range(3)] == [True, True, False]
    assert book.pending() == {}


def test_a_clusters_own_fault_is_taken_before_one_for_any_cluster():
    book = FaultBook()
    book.add("Ensure VPC", 1)
    book.add("Ensure VPC", 1, cluster_tag="alpha")
    assert book.take("Ensure VPC", "alpha") is True
    assert book.pending() == {"ensure_vpc": 1}


def test_after_lets_the_step_pass_first():
    book = FaultBook()
    book.add("Check EKS Cluster", 1, after=2, cluster_tag="alpha")
    assert [book.take("Check EKS Cluster", "alpha") for _ in range(4)] == [False, False, True, False]
