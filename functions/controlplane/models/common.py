"""Field types and the base model every request, view and step payload uses."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, GetCoreSchemaHandler, StringConstraints
from pydantic_core import CoreSchema

CLUSTER_TAG_PATTERN = r"^[a-z][a-z0-9-]{2,20}$"
REGION_PATTERN = r"^[a-z]{2}(-[a-z]+)+-\d{1,2}$"
OPERATION_ID_PATTERN = r"^op-[a-z0-9-]{8,64}$"
# A node: its EC2 instance id, as HyperPod names it, or its Kubernetes name hyperpod-<instance id> (issue 30, #8).
NODE_ID_PATTERN = r"^(?:hyperpod-)?i-[a-f0-9]{8}(?:[a-f0-9]{9})?$"
KUBERNETES_NODE_PREFIX = "hyperpod-"  # HyperPod registers each instance in Kubernetes as hyperpod-<instance id>


def instance_id(node: str) -> str:
    """The EC2 instance id of a node named either way."""
    return node.removeprefix(KUBERNETES_NODE_PREFIX)


ClusterTag = Annotated[
    str,
    StringConstraints(pattern=CLUSTER_TAG_PATTERN),
]
Region = Annotated[str, StringConstraints(pattern=REGION_PATTERN)]

CLUSTER_TAG_RULE = "3-21 characters: a lowercase letter first, then lowercase letters, digits or hyphens"


# The core schema types of JSON's numbers and booleans, which a contract takes only as themselves.
_SCALARS = frozenset({"int", "float", "bool"})


class Contract(BaseModel):
    """Base for request bodies: unknown fields are refused, so a typo never passes silently, and numbers and
    booleans are strict: `"1"` or `true` is no integer and `0` or `"false"` no boolean (a float takes an integer, as
    JSON does). The rest stays as JSON reads it: an enum from its value, a tuple from an array, a time from text."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    @classmethod
    def __get_pydantic_core_schema__(cls, source: type[BaseModel], handler: GetCoreSchemaHandler) -> CoreSchema:
        return _strict_scalars(handler(source))


def _strict_scalars(schema: CoreSchema) -> CoreSchema:
    """`schema` with every number and boolean in it strict (nested models, lists and unions included)."""
    pending: list[Any] = [schema]
    while pending:
        node = pending.pop()
        if isinstance(node, dict):
            if isinstance(node.get("type"), str) and node["type"] in _SCALARS:
                node["strict"] = True
            pending.extend(node.values())
        elif isinstance(node, list):
            pending.extend(node)
    return schema


class View(BaseModel):
    """Base for response bodies and persisted records."""

    model_config = ConfigDict(extra="ignore", defer_build=True)


class WorkloadWait(View):
    """A workload's long poll: whether the workload reached a state that ends the wait, and how long it waited."""

    done: bool = Field(
        description="True once the workload has finished, failed or is ready; false when the wait ran out first: "
        "wait again."
    )
    waitedSeconds: float


# Pages sized for an agent's context: a page of any list stays in the tens of kilobytes.
DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 100
CONTINUE_DESCRIPTION = (
    "Pass as `continue` to get the next page; absent on the last page. A list of a cluster's Kubernetes objects keeps "
    "its place for about five minutes: an older token is refused (400 ContinueTokenExpired); start again without it."
)


class PageView(View):
    """Base for a page of a list: `continue` is the opaque token of the next page, None on the last one."""

    model_config = ConfigDict(extra="ignore", serialize_by_alias=True, defer_build=True)

    continue_: str | None = Field(default=None, serialization_alias="continue", description=CONTINUE_DESCRIPTION)
