"""Recipes: a recipe file (a typed form and the job it renders to), the request that submits a job from one, and
the views of recipes and rendered jobs.

A recipe file is data (`controlplane/config/recipes/<name>.json`); its checks at load are here. Rendering the
values into a `SubmitJobRequest` is `controlplane.core.training.recipes`.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Annotated, Any

from pydantic import Field, StringConstraints, model_validator

from controlplane.models.common import Contract, View
from controlplane.models.governance import TeamWork
from controlplane.models.mlflow import MlflowTracking
from controlplane.models.training import (
    ENV_NAME_PATTERN,
    RAY_KINDS,
    JobDetail,
    JobKind,
    JobName,
    RayOptions,
    SubmitJobRequest,
)

RECIPE_NAME_PATTERN = r"^[a-z][a-z0-9-]{0,62}$"
RECIPE_NAME_RULE = "1-63 characters: a lowercase letter first, then lowercase letters, digits or hyphens"
PARAMETER_NAME_PATTERN = r"^[a-z][A-Za-z0-9]{0,62}$"
# `{name}` in a command or environment template is replaced by the value of the parameter `name`.
PLACEHOLDER = re.compile(r"\{([A-Za-z0-9_]*)\}")
# Every recipe sizes its job with these two integer parameters.
SIZE_PARAMETERS = ("nodes", "gpusPerNode")

RecipeName = Annotated[str, StringConstraints(pattern=RECIPE_NAME_PATTERN)]
ParameterName = Annotated[str, StringConstraints(pattern=PARAMETER_NAME_PATTERN)]
Value = bool | int | float | str


class ParameterType(StrEnum):
    STRING = "string"
    INTEGER = "integer"
    NUMBER = "number"
    BOOLEAN = "boolean"
    ENUM = "enum"
    S3URI = "s3uri"


NUMERIC = frozenset({ParameterType.INTEGER, ParameterType.NUMBER})
TEXTUAL = frozenset({ParameterType.STRING, ParameterType.S3URI})


class RecipeParameter(Contract):
    """One field of a recipe's form: its type, default and bounds."""

    name: ParameterName
    type: ParameterType
    description: str = Field(min_length=1, max_length=500)
    required: bool = Field(default=False, description="A value must be given (there is no default).")
    default: Value | None = None
    minimum: float | None = Field(default=None, description="integer and number: the smallest value.")
    maximum: float | None = Field(default=None, description="integer and number: the largest value.")
    choices: list[str] | None = Field(default=None, description="enum: the values allowed.")
    pattern: str | None = Field(default=None, description="string and s3uri: a regex the whole value matches.")
    maxLength: int = Field(default=1024, ge=1, le=4096, description="string and s3uri: the longest value.")
    perJob: bool = Field(
        default=False,
        description="Each job gives its own value (where it writes): never offered again from the caller's last "
        "values, so a new job cannot overwrite the last one's output.",
    )

    @model_validator(mode="after")
    def _consistent(self) -> RecipeParameter:
        if self.required == (self.default is not None):
            raise ValueError(f"parameter {self.name}: give a default or mark it required, not both or neither")
        if (self.minimum is not None or self.maximum is not None) and self.type not in NUMERIC:
            raise ValueError(f"parameter {self.name}: minimum and maximum are for integer and number parameters")
        if (self.choices is not None) != (self.type == ParameterType.ENUM):
            raise ValueError(f"parameter {self.name}: an enum parameter lists its choices, and only an enum does")
        if self.pattern is not None:
            if self.type not in TEXTUAL:
                raise ValueError(f"parameter {self.name}: a pattern is for string and s3uri parameters")
            re.compile(self.pattern)
        return self


class Recipe(Contract):
    """A recipe file: what it trains with, the job kind and image, and the templates its parameters fill.

    `command` is an argv list (no shell reads it); each `{parameter}` in an element or an `environment` value is
    replaced by that parameter's value. The `nodes` and `gpusPerNode` parameters size the job. A recipe of a Ray
    kind (RayJob) submits `command` as the Ray job's entrypoint and may set the job's `ray` options. `example` holds
    the values the tests submit it with.
    """

    name: RecipeName = Field(description="The file's name without .json.")
    title: str = Field(min_length=1, max_length=100)
    description: str = Field(min_length=1, max_length=2000)
    kind: JobKind
    image: str = Field(min_length=1, max_length=512)
    command: list[Annotated[str, StringConstraints(min_length=1, max_length=4096)]] = Field(min_length=1)
    environment: dict[Annotated[str, StringConstraints(pattern=ENV_NAME_PATTERN)], str] = Field(default_factory=dict)
    parameters: list[RecipeParameter] = Field(min_length=1)
    ray: RayOptions | None = Field(default=None, description="Ray kinds only.")
    example: dict[ParameterName, Value] = Field(
        description="Values a job from this recipe runs with: every required parameter, and any other worth showing. "
        "The tests submit each recipe with its example, so a new recipe is its file (and its docs) alone."
    )

    @model_validator(mode="after")
    def _templates_name_parameters(self) -> Recipe:
        if self.ray is not None and self.kind not in RAY_KINDS:
            raise ValueError(f"`ray` options are for Ray kinds (RayJob), not {self.kind.value}")
        types = {parameter.name: parameter.type for parameter in self.parameters}
        if len(types) != len(self.parameters):
            raise ValueError("each parameter name appears once")
        for size in SIZE_PARAMETERS:
            if types.get(size) != ParameterType.INTEGER:
                raise ValueError(f"a recipe has an integer parameter '{size}' (it sizes the job)")
        for template in [*self.command, *self.environment.values()]:
            for name in PLACEHOLDER.findall(template):
                if name not in types:
                    raise ValueError(f"template {template!r} names no parameter '{name}'")
        if unknown := sorted(set(self.example) - types.keys()):
            raise ValueError(f"the example names no parameter {', '.join(unknown)}")
        if missing := [p.name for p in self.parameters if p.required and p.name not in self.example]:
            raise ValueError(f"the example gives no value for the required {', '.join(missing)}")
        return self


class SubmitRecipeJobRequest(TeamWork):
    """A job from a recipe: the recipe, the job's name and placement, and the values of the recipe's parameters
    (a parameter left out takes its default)."""

    recipe: RecipeName = Field(description="recipe_list_all lists them.")
    name: JobName = Field(description="Unique in the cluster.")
    image: str | None = Field(default=None, min_length=1, max_length=512, description="Unset keeps the recipe's.")
    instanceType: str | None = None
    instanceGroup: str | None = None
    efa: bool = Field(default=False, description="Request every EFA interface.")
    values: dict[ParameterName, Value] = Field(
        default_factory=dict, max_length=100, description="Parameter values by name; recipe_get lists them."
    )
    mlflow: MlflowTracking | None = Field(
        default=None, description="Log the runs to a SageMaker managed MLflow tracking server."
    )


class RecipeSummary(View):
    name: str
    title: str
    description: str
    kind: JobKind
    image: str
    parameters: list[RecipeParameter]


class RecipeList(View):
    recipes: list[RecipeSummary]


class RecipeDetail(RecipeSummary):
    command: list[str]
    environment: dict[str, str]
    lastValues: dict[str, Any] = Field(
        default_factory=dict,
        description="The values the caller last submitted this recipe with (but those of perJob parameters); empty "
        "if never.",
    )


class RecipeJob(View):
    """The job a recipe rendered to and, unless it was a dry run, the submitted job's detail."""

    recipe: str
    dryRun: bool
    job: SubmitJobRequest
    detail: JobDetail | None = None
