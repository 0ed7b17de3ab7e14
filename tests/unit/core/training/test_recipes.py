"""Recipes against in-memory fakes: every shipped file loads, values are checked against the parameters, templates
fill an argv list (no shell), the job goes through the job service (its refusals, its CRD schema check), and the
caller's last values are kept."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from controlplane.core.auth import Actor, Role
from controlplane.core.confirmations import Confirmations
from controlplane.core.features.catalog.training_operator import TRAINING_OPERATOR_ADDON
from controlplane.core.ports.kubernetes import KubernetesNode
from controlplane.core.registry import ClusterService
from controlplane.core.team_targets import TeamTargets
from controlplane.core.training.kinds import JOB_KINDS
from controlplane.core.training.manifest import JobPlacement
from controlplane.core.training.mlflow import MlflowService
from controlplane.core.training.recipes import (
    RECIPES_DIR,
    RecipeNotFoundError,
    RecipeService,
    load_recipes,
    render,
    shipped_recipes,
)
from controlplane.core.training.schema import schema_problems
from controlplane.core.training.service import JobNameInUseError, TrainingJobService
from controlplane.models.clusters import ClusterRecord
from controlplane.models.errors import FeatureNotEnabledError, InvalidRequestError
from controlplane.models.recipes import Recipe, SubmitRecipeJobRequest
from controlplane.models.training import SubmitJobRequest
from tests.fakes.eks import InMemoryEksGateway
from tests.fakes.governance import every_namespace_ready
from tests.fakes.kubernetes import InMemoryKubernetesGateway
from tests.fakes.mlflow import InMemoryMlflowGateway
from tests.fakes.persistence import (
    FakeClock,
    InMemoryClusterRegistry,
    InMemoryConfirmationStore,
    InMemoryRecipeValuesStore,
)
from tests.fakes.queues import InMemoryKueueGateway
from tests.fakes.workloads import InMemoryWorkloadGateway

EKS_NAME = "eks-cluster-demo"
ALICE = Actor("alice", Role.OPERATOR)


def job_request(recipe: str = "pytorch-script", **values: Any) -> SubmitRecipeJobRequest:
    """A job from the recipe's own example, with `values` over it."""
    return SubmitRecipeJobRequest(
        recipe=recipe,
        name="recipe-job",
        instanceType="ml.g5.12xlarge",
        values={**shipped_recipes()[recipe].example, **values},
    )


class World:
    def __init__(self, record: ClusterRecord, clock: FakeClock) -> None:
        eks = InMemoryEksGateway()
        self.eks = eks
        self.cluster = eks.add_cluster(EKS_NAME)
        eks.add_addon(EKS_NAME, TRAINING_OPERATOR_ADDON)
        self.kubernetes = InMemoryKubernetesGateway()
        labels = {
            "node.kubernetes.io/instance-type": "ml.g5.12xlarge",
            "sagemaker.amazonaws.com/instance-group-name": "workers",
        }
        gpus = {"nvidia.com/gpu": "4"}
        self.kubernetes.api(EKS_NAME).nodes = [KubernetesNode("hyperpod-i-1", True, True, labels, gpus, gpus)]
        pvc = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "s3-claim", "namespace": "ml"}}
        self.kubernetes.apply(self.cluster, "us-west-2", [pvc])
        registry = InMemoryClusterRegistry()
        registry.create(record)
        workloads = InMemoryWorkloadGateway(self.kubernetes)
        clusters = ClusterService(registry, lambda _: eks, lambda _: None, self.kubernetes, clock)
        jobs = TrainingJobService(
            clusters,
            lambda _: eks,
            self.kubernetes,
            workloads,
            workloads,
            Confirmations(InMemoryConfirmationStore(), clock),
            TeamTargets(lambda _: eks, lambda _: None, lambda _: None, every_namespace_ready),  # type: ignore[arg-type,return-value]
            InMemoryKueueGateway(),
        )
        self.last_values = InMemoryRecipeValuesStore()
        self.mlflow = InMemoryMlflowGateway()
        self.tracking = MlflowService(clusters, lambda _: self.mlflow)
        self.service = RecipeService(shipped_recipes(), jobs, self.last_values, self.tracking)

    def job(self, name: str) -> dict[str, Any] | None:
        return self.kubernetes.get(
            self.cluster, "us-west-2", "sagemaker.amazonaws.com/v1", "HyperPodPyTorchJob", name, "ml"
        )


@pytest.fixture
def world(make_record: Callable[..., ClusterRecord], clock: FakeClock) -> World:
    return World(make_record("eks", "hyperpod", "storage", storageClaim="ml/s3-claim"), clock)


# --- the recipe files ---------------------------------------------------------------------------


def test_every_shipped_recipe_file_loads_as_a_recipe() -> None:
    files = sorted(path.stem for path in RECIPES_DIR.glob("*.json"))

    assert sorted(shipped_recipes()) == files


@pytest.mark.parametrize("name", sorted(shipped_recipes()))
def test_every_shipped_recipe_renders_to_a_job_that_validates_against_the_crd_schema(name: str) -> None:
    job = render(shipped_recipes()[name], job_request(name))

    placement = JobPlacement(namespace="ml", claim="s3-claim", fsx_claim=None, efa_interfaces=0)
    manifest = JOB_KINDS[job.kind].render(job, placement)
    assert manifest["kind"] == shipped_recipes()[name].kind
    assert schema_problems(manifest) == []


def test_a_new_recipe_file_needs_no_code(tmp_path: Path) -> None:
    recipe = {
        "title": "Echo",
        "description": "Prints its greeting.",
        "kind": "HyperPodPyTorchJob",
        "image": "busybox",
        "command": ["echo", "{greeting}"],
        "parameters": [
            {"name": "greeting", "type": "string", "default": "hello", "description": "What to print."},
            {"name": "nodes", "type": "integer", "default": 1, "description": "Nodes."},
            {"name": "gpusPerNode", "type": "integer", "default": 0, "description": "GPUs per node."},
        ],
        "example": {"greeting": "hi"},
    }
    (tmp_path / "echo.json").write_text(json.dumps(recipe))

    loaded = load_recipes(tmp_path)

    assert list(loaded) == ["echo"]
    assert loaded["echo"].command == ["echo", "{greeting}"]


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"command": ["echo", "{missing}"]}, "names no parameter 'missing'"),
        ({"parameters": [{"name": "nodes", "type": "integer", "default": 1, "description": "n"}]}, "gpusPerNode"),
        (
            {"parameters": [{"name": "x", "type": "enum", "default": "a", "description": "no choices"}]},
            "lists its choices",
        ),
        (
            {"parameters": [{"name": "x", "type": "string", "description": "neither default nor required"}]},
            "default or mark it required",
        ),
        ({"unexpected": 1}, "Extra inputs are not permitted"),
        ({"example": {"script": "/s3/a.py", "dataset": "s3://b/d", "outputPath": "s3://b/o", "epoch": 2}}, "epoch"),
        ({"example": {"dataset": "s3://b/d", "outputPath": "s3://b/o"}}, "no value for the required script"),
    ],
)
def test_a_recipe_file_that_does_not_hold_together_is_refused_at_load(change: dict[str, Any], problem: str) -> None:
    recipe = shipped_recipes()["pytorch-script"].model_dump()

    with pytest.raises(ValidationError, match=problem):
        Recipe.model_validate({**recipe, **change})


# --- rendering ----------------------------------------------------------------------------------


def test_rendering_fills_each_argv_element_with_one_value_and_sizes_the_job() -> None:
    job = render(shipped_recipes()["pytorch-script"], job_request(nodes=2, gpusPerNode=4, learningRate=0.5))

    assert job.command[:4] == ["hyperpodrun", "--nnodes=2", "--nproc-per-node=4", "--rdzv-backend=hyperpod"]
    assert "--learning-rate=0.5" in job.command
    assert (job.nodes, job.gpusPerNode, job.instanceType) == (2, 4, "ml.g5.12xlarge")


def test_rendering_fills_the_environment_and_writes_booleans_as_true_and_false() -> None:
    job = render(shipped_recipes()["llama-factory"], job_request("llama-factory", bf16=False, gpusPerNode=2))

    assert "--bf16=false" in job.command
    assert job.environment == {"FORCE_TORCHRUN": "1", "NNODES": "1", "NPROC_PER_NODE": "2"}


def test_a_value_with_shell_syntax_stays_one_argument_and_runs_no_shell() -> None:
    hostile = "/s3/x.py;rm${IFS}-rf${IFS}/;$(reboot)`id`&&true.py"
    job = render(shipped_recipes()["pytorch-script"], job_request(script=hostile))

    assert job.command[0] == "hyperpodrun"
    assert hostile in job.command
    assert not any(element in ("sh", "bash", "-c") for element in job.command)


@pytest.mark.parametrize(
    ("values", "parameter", "problem"),
    [
        ({"nodes": 0}, "nodes", "at least 1"),
        ({"nodes": 2.5}, "nodes", "an integer"),
        ({"nodes": True}, "nodes", "an integer"),
        ({"learningRate": 2}, "learningRate", "at most 1"),
        ({"learningRate": "fast"}, "learningRate", "a number"),
        ({"dataset": "/s3/data"}, "dataset", "S3 URI"),
        ({"script": "/tmp/train.py"}, "script", "must match"),
        ({"script": "--help"}, "script", "start with '-'"),
        ({"script": "/s3/a\nb.py"}, "script", "control characters"),
    ],
)
def test_a_bad_value_is_refused_naming_the_parameter(values: dict[str, Any], parameter: str, problem: str) -> None:
    with pytest.raises(InvalidRequestError, match=problem) as refused:
        render(shipped_recipes()["pytorch-script"], job_request(**values))

    assert f"Parameter '{parameter}'" in refused.value.message
    assert refused.value.details == {"parameter": parameter}


def test_an_enum_value_outside_its_choices_is_refused_with_the_choices() -> None:
    with pytest.raises(InvalidRequestError, match="one of lora, freeze, full"):
        render(shipped_recipes()["llama-factory"], job_request("llama-factory", finetuningType="qlora"))


def test_an_unknown_parameter_is_refused_with_the_recipes_parameters() -> None:
    with pytest.raises(InvalidRequestError, match=r"no parameter 'learningrate'.*learningRate"):
        render(shipped_recipes()["pytorch-script"], job_request(learningrate=0.1))


def test_a_required_parameter_left_out_is_refused() -> None:
    request = SubmitRecipeJobRequest(recipe="pytorch-script", name="a", instanceType="ml.g5.12xlarge", values={})

    with pytest.raises(InvalidRequestError, match=r"Parameter 'script' .* is required"):
        render(shipped_recipes()["pytorch-script"], request)


def test_a_recipe_job_needs_a_placement_like_any_job() -> None:
    request = job_request().model_copy(update={"instanceType": None})

    with pytest.raises(InvalidRequestError, match="instanceType or instanceGroup"):
        render(shipped_recipes()["pytorch-script"], request)


# --- the service --------------------------------------------------------------------------------


def test_list_and_get_show_each_recipe_with_its_parameters(world: World) -> None:
    listed = world.service.list_recipes()

    assert [recipe.name for recipe in listed.recipes] == sorted(shipped_recipes())
    detail = world.service.get("pytorch-script", ALICE)
    assert "learningRate" in [parameter.name for parameter in detail.parameters]
    assert detail.lastValues == {}


def test_an_unknown_recipe_is_not_found_and_the_recipes_are_listed(world: World) -> None:
    with pytest.raises(RecipeNotFoundError, match=", ".join(sorted(shipped_recipes()))):
        world.service.get("torchtitan", ALICE)


def test_submit_creates_the_job_and_keeps_the_callers_values_for_next_time(world: World) -> None:
    submitted = world.service.submit("demo", job_request(epochs=3), ALICE, dry_run=False)

    assert submitted.detail is not None and submitted.detail.name == "recipe-job"
    job = world.job("recipe-job")
    assert job is not None
    assert "--epochs=3" in job["spec"]["replicaSpecs"][0]["template"]["spec"]["containers"][0]["command"]
    assert world.service.get("pytorch-script", ALICE).lastValues["epochs"] == 3
    assert world.service.get("pytorch-script", Actor("bob", Role.OPERATOR)).lastValues == {}


def test_a_dry_run_renders_the_job_and_neither_submits_it_nor_keeps_the_values(world: World) -> None:
    rendered = world.service.submit("demo", job_request(), ALICE, dry_run=True)

    assert rendered.dryRun and rendered.detail is None
    assert rendered.job.command[0] == "hyperpodrun"
    assert world.job("recipe-job") is None
    assert world.last_values.items == {}


def test_a_recipe_job_meets_the_job_services_refusals(world: World) -> None:
    with pytest.raises(InvalidRequestError, match="at most 4"):
        world.service.submit("demo", job_request(gpusPerNode=8), ALICE, dry_run=False)
    world.service.submit("demo", job_request(), ALICE, dry_run=False)
    with pytest.raises(JobNameInUseError):
        world.service.submit("demo", job_request(), ALICE, dry_run=False)
    world.eks.addons.clear()
    with pytest.raises(FeatureNotEnabledError, match="trainingOperator"):
        world.service.submit("demo", job_request().model_copy(update={"name": "other"}), ALICE, dry_run=False)


def test_a_dry_run_refuses_what_the_submit_would_refuse(world: World) -> None:
    """Issue 30, finding 2: a dry run for an instance type the cluster lacks answered with a plan to carry out."""
    elsewhere = job_request().model_copy(update={"instanceType": "ml.p5.48xlarge"})
    with pytest.raises(InvalidRequestError, match=r"has no nodes of instance type 'ml\.p5\.48xlarge'"):
        world.service.submit("demo", elsewhere, ALICE, dry_run=True)
    with pytest.raises(InvalidRequestError, match="at most 4"):
        world.service.submit("demo", job_request(gpusPerNode=8), ALICE, dry_run=True)
    world.eks.addons.clear()
    with pytest.raises(FeatureNotEnabledError, match="trainingOperator"):
        world.service.submit("demo", job_request(), ALICE, dry_run=True)
    assert world.job("recipe-job") is None


def test_a_refused_submission_keeps_no_values(world: World) -> None:
    with pytest.raises(InvalidRequestError):
        world.service.submit("demo", job_request(gpusPerNode=8), ALICE, dry_run=False)

    assert world.last_values.items == {}


def test_no_job_may_take_the_name_of_the_recipe_route():
    """`/clusters/{tag}/jobs/from-recipe` is the recipe route: a job of that name could never be read back."""
    with pytest.raises(ValidationError, match="reserved"):
        SubmitJobRequest(name="from-recipe", image="example.com/train:1")


@pytest.mark.parametrize("recipe", sorted(shipped_recipes()))
def test_where_each_recipe_writes_is_chosen_per_job(recipe: str) -> None:
    outputs = [p for p in shipped_recipes()[recipe].parameters if p.name.startswith("output")]
    assert outputs and all(parameter.perJob for parameter in outputs)


def test_the_last_values_never_offer_the_last_jobs_output_location_again(world: World) -> None:
    """A form filled from the last job's values would write the next job over the last one's checkpoints."""
    world.service.submit("demo", job_request(epochs=3), ALICE, dry_run=False)

    offered = world.service.get("pytorch-script", ALICE).lastValues

    assert offered["epochs"] == 3 and "outputPath" not in offered
