"""/recipes and /clusters/{clusterTag}/jobs/from-recipe: recipes (typed forms that render to a training job), each
with the caller's last values, and jobs submitted from them."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Path, Query

from api.authorization import READ, Routes, operator
from api.context import actor, plan_or_run
from api.routers.params import ClusterTagPath, waited_by
from api.routers.responses import response_doc
from controlplane import wiring
from controlplane.models.recipes import (
    RECIPE_NAME_PATTERN,
    RECIPE_NAME_RULE,
    RecipeDetail,
    RecipeJob,
    RecipeList,
    SubmitRecipeJobRequest,
)

router = Routes()

RecipeNamePath = Annotated[str, Path(pattern=RECIPE_NAME_PATTERN, description=f"Recipe name ({RECIPE_NAME_RULE}).")]


@router.get(
    "/recipes",
    allow=READ,
    operation_id="recipe_list_all",
    summary="List the training recipes",
    description="Every recipe (PyTorch script, LLaMA-Factory, MS-Swift, VERL, …): its title, job kind, image and typed "
    "parameters (type, default, bounds, required). recipe_get adds the values you last submitted it with; "
    "job_submit_from_recipe renders one to a job.",
    tags=["recipes"],
)
def list_recipes() -> RecipeList:
    return wiring.recipes().list_recipes()


@router.get(
    "/recipes/<recipeName>",
    allow=READ,
    operation_id="recipe_get",
    summary="Read a recipe: its parameters, templates and your last values",
    description="The recipe's parameters, its command and environment templates, and `lastValues`: the values the "
    "caller last submitted it with (empty if never), to offer again.",
    tags=["recipes"],
)
def get_recipe(recipeName: RecipeNamePath) -> RecipeDetail:
    return wiring.recipes().get(recipeName, actor(router))


@router.post(
    "/clusters/<clusterTag>/jobs/from-recipe",
    allow=operator("submit a training job"),
    operation_id="job_submit_from_recipe",
    summary="Submit a training job from a recipe",
    description="Renders the recipe with `values` (a parameter left out takes its default; a bad value is a 400 "
    "naming the parameter) into a job of the recipe's kind (HyperPodPyTorchJob, or RayJob for VERL) placed by "
    "`instanceType` or `instanceGroup`, and submits it as job_submit does (same refusals). Optional `mlflow` (only "
    "if the person wants experiment tracking: a server from mlflow_list_tracking_servers and an experiment) sets the "
    "job's MLFLOW_TRACKING_URI and MLFLOW_EXPERIMENT_NAME. With dryRun=true, returns the rendered job without "
    "submitting it. "
    "201 with the rendered job and the job's detail; the values are kept as your last ones for recipe_get. "
    "Then job_wait until the job is done (Succeeded or Failed).",
    tags=["jobs"],
    responses={
        200: response_doc(RecipeJob, "Dry run: the rendered job"),
        201: response_doc(RecipeJob, "Job created"),
    },
    openapi_extensions=waited_by("job_wait"),
)
def submit_job_from_recipe(
    clusterTag: ClusterTagPath,
    request: SubmitRecipeJobRequest,
    dryRun: Annotated[bool, Query(description="Return the rendered job without submitting it.")] = False,
) -> Response[str]:
    service = wiring.recipes()
    return plan_or_run(
        router,
        dry_run=dryRun,
        scope=f"recipe-jobs#{clusterTag}",
        body=request.model_dump(mode="json"),
        plan=lambda caller: service.submit(clusterTag, request, caller, dry_run=True),
        run=lambda caller: service.submit(clusterTag, request, caller, dry_run=False),
        status=201,
    )
