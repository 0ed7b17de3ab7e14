"""Recipes: typed forms, kept as data files in `controlplane/config/recipes/`, that render to a training job.

Belongs here: loading the recipe files, checking values against a recipe's parameters, filling its templates into
an argv list (never a shell string), and submitting the rendered `SubmitJobRequest` through the job service (so
a recipe's job meets the same refusals and the same CRD schema check as any job), with the MLflow environment when
the request asks for tracking. The caller's last values per recipe are kept and offered again.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import cache
from pathlib import Path

from pydantic import ValidationError

from controlplane.config import CONFIG_DIR
from controlplane.core.auth import Actor
from controlplane.core.ports.persistence import RecipeValuesStore
from controlplane.core.training.mlflow import MlflowService
from controlplane.core.training.service import TrainingJobService
from controlplane.models.errors import InvalidRequestError, NotFoundError
from controlplane.models.recipes import (
    PLACEHOLDER,
    ParameterType,
    Recipe,
    RecipeDetail,
    RecipeJob,
    RecipeList,
    RecipeParameter,
    RecipeSummary,
    SubmitRecipeJobRequest,
    Value,
)
from controlplane.models.training import SubmitJobRequest

RECIPES_DIR = CONFIG_DIR / "recipes"
S3_URI = re.compile(r"^s3://[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](/[^\x00-\x1f\x7f]*)?$")
CONTROL_CHARACTERS = re.compile(r"[\x00-\x1f\x7f]")


class RecipeNotFoundError(NotFoundError):
    code = "RecipeNotFound"


def load_recipes(directory: Path = RECIPES_DIR) -> dict[str, Recipe]:
    """Every `*.json` recipe file of `directory`, by name (the file's name), each validated as a `Recipe`."""
    return {
        path.stem: Recipe.model_validate({**json.loads(path.read_text()), "name": path.stem})
        for path in sorted(directory.glob("*.json"))
    }


@cache
def shipped_recipes() -> dict[str, Recipe]:
    """The recipes shipped with the code."""
    return load_recipes()


def render(
    recipe: Recipe, request: SubmitRecipeJobRequest, tracking: Mapping[str, str] | None = None
) -> SubmitJobRequest:
    """The job `request`'s values make of `recipe`: values checked, templates filled, one argv element each; the
    `tracking` environment (MLflow's) is added over the recipe's."""
    values = checked_values(recipe, request.values)

    def fill(template: str) -> str:
        return PLACEHOLDER.sub(lambda match: _text(values[match.group(1)]), template)

    try:
        return SubmitJobRequest(
            name=request.name,
            kind=recipe.kind,
            image=request.image or recipe.image,
            command=[fill(element) for element in recipe.command],
            nodes=int(values["nodes"]),
            gpusPerNode=int(values["gpusPerNode"]),
            instanceType=request.instanceType,
            instanceGroup=request.instanceGroup,
            efa=request.efa,
            environment={
                **{name: fill(template) for name, template in recipe.environment.items()},
                **(tracking or {}),
            },
            ray=recipe.ray,
            team=request.team,
            priority=request.priority,
        )
    except ValidationError as error:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'request'}: {e['msg']}" for e in error.errors())
        raise InvalidRequestError(f"Recipe '{recipe.name}' renders to a job that is not valid: {problems}.") from None


def checked_values(recipe: Recipe, given: Mapping[str, Value]) -> dict[str, Value]:
    """Each parameter's value (given, else its default), checked against its type and bounds."""
    by_name = {parameter.name: parameter for parameter in recipe.parameters}
    unknown = sorted(set(given) - set(by_name))
    if unknown:
        raise InvalidRequestError(
            f"Recipe '{recipe.name}' has no parameter {', '.join(map(repr, unknown))}; its parameters are "
            f"{', '.join(by_name)}.",
            {"parameter": unknown[0], "parameters": list(by_name)},
        )
    values: dict[str, Value] = {}
    for parameter in recipe.parameters:
        value = given.get(parameter.name, parameter.default)
        if value is None:
            raise _refused(recipe, parameter, "is required")
        problem = _problem(parameter, value)
        if problem:
            raise _refused(recipe, parameter, problem)
        values[parameter.name] = value
    return values


class RecipeService:
    """The recipes, each with the caller's last values, and jobs submitted from them through the job service."""

    def __init__(
        self,
        recipes: Mapping[str, Recipe],
        jobs: TrainingJobService,
        last_values: RecipeValuesStore,
        mlflow: MlflowService,
    ) -> None:
        self._recipes = recipes
        self._jobs = jobs
        self._last_values = last_values
        self._mlflow = mlflow

    def list_recipes(self) -> RecipeList:
        return RecipeList(recipes=[RecipeSummary.model_validate(r.model_dump()) for r in self._recipes.values()])

    def get(self, name: str, actor: Actor) -> RecipeDetail:
        """The recipe with the caller's last values for it, but where the last job wrote (its perJob parameters)."""
        recipe = self._recipe(name)
        per_job = {parameter.name for parameter in recipe.parameters if parameter.perJob}
        last = self._last_values.get(actor.principal, name) or {}
        offered = {key: value for key, value in last.items() if key not in per_job}
        return RecipeDetail.model_validate({**recipe.model_dump(), "lastValues": offered})

    def submit(self, cluster_tag: str, request: SubmitRecipeJobRequest, actor: Actor, dry_run: bool) -> RecipeJob:
        """Render the recipe (with the MLflow environment when `request.mlflow` chooses a tracking server); unless
        `dry_run`, submit the job and keep the values as the caller's last ones. A dry run runs every check the
        submit runs, so it refuses what the submit would."""
        recipe = self._recipe(request.recipe)
        tracking = self._mlflow.environment(cluster_tag, request.mlflow) if request.mlflow else None
        job = render(recipe, request, tracking)
        if dry_run:
            self._jobs.check(cluster_tag, job)
            return RecipeJob(recipe=recipe.name, dryRun=True, job=job)
        detail = self._jobs.submit(cluster_tag, job)
        self._last_values.put(actor.principal, recipe.name, checked_values(recipe, request.values))
        return RecipeJob(recipe=recipe.name, dryRun=False, job=job, detail=detail)

    def _recipe(self, name: str) -> Recipe:
        recipe = self._recipes.get(name)
        if recipe is None:
            raise RecipeNotFoundError(
                f"No recipe named '{name}'; GET /recipes lists them ({', '.join(self._recipes) or 'none'}).",
                {"recipes": list(self._recipes)},
            )
        return recipe


def _problem(parameter: RecipeParameter, value: Value) -> str | None:
    """What is wrong with `value` for `parameter`, or None."""
    kind = parameter.type
    if kind == ParameterType.BOOLEAN:
        return None if isinstance(value, bool) else "must be true or false"
    if kind in (ParameterType.INTEGER, ParameterType.NUMBER):
        numeric = (int,) if kind == ParameterType.INTEGER else (int, float)
        if isinstance(value, bool) or not isinstance(value, numeric):
            return f"must be {'an integer' if kind == ParameterType.INTEGER else 'a number'}"
        if parameter.minimum is not None and value < parameter.minimum:
            return f"must be at least {_text(parameter.minimum)}"
        if parameter.maximum is not None and value > parameter.maximum:
            return f"must be at most {_text(parameter.maximum)}"
        return None
    if not isinstance(value, str):
        return "must be a string"
    if kind == ParameterType.ENUM:
        return None if value in (parameter.choices or []) else f"must be one of {', '.join(parameter.choices or [])}"
    if not value or len(value) > parameter.maxLength:
        return f"must be 1-{parameter.maxLength} characters"
    if CONTROL_CHARACTERS.search(value):
        return "must not contain control characters"
    if value.startswith("-"):
        return "must not start with '-' (it would read as an option)"
    if kind == ParameterType.S3URI and not S3_URI.match(value):
        return "must be an S3 URI: s3://bucket/key"
    if parameter.pattern is not None and not re.fullmatch(parameter.pattern, value):
        return f"must match {parameter.pattern}"
    return None


def _refused(recipe: Recipe, parameter: RecipeParameter, problem: str) -> InvalidRequestError:
    return InvalidRequestError(
        f"Parameter '{parameter.name}' of recipe '{recipe.name}' {problem}. {parameter.name}: {parameter.description}",
        {"parameter": parameter.name},
    )


def _text(value: Value | float) -> str:
    """A value as it goes into an argv element: booleans as true/false, whole floats without '.0'."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
