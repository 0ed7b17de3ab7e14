"""Field types and the base model every request, view and step payload uses."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, StringConstraints

CLUSTER_TAG_PATTERN = r"^[a-z][a-z0-9-]{2,20}$"
REGION_PATTERN = r"^[a-z]{2}(-[a-z]+)+-\d{1,2}$"
OPERATION_ID_PATTERN = r"^op-[a-z0-9-]{8,64}$"

ClusterTag = Annotated[
    str,
    StringConstraints(pattern=CLUSTER_TAG_PATTERN),
]
Region = Annotated[str, StringConstraints(pattern=REGION_PATTERN)]

CLUSTER_TAG_RULE = "3-21 characters: a lowercase letter first, then lowercase letters, digits or hyphens"


class Contract(BaseModel):
    """Base for request bodies: unknown fields are refused, so a typo never passes silently."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class View(BaseModel):
    """Base for response bodies and persisted records."""

    model_config = ConfigDict(extra="ignore", defer_build=True)
