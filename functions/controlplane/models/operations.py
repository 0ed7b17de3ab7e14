"""The long-running-operation model every surface reports progress with."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from pydantic import Field

from controlplane.models.common import PageView, View

if TYPE_CHECKING:
    from pydantic import GetJsonSchemaHandler
    from pydantic.json_schema import JsonSchemaValue
    from pydantic_core import CoreSchema

# The longest a wait for an operation holds the request (the API's long poll stays well inside 29 s).
MAX_WAIT_SECONDS = 25
# The OpenAPI extension of OperationStatus that lists TERMINAL_STATUSES.
TERMINAL_EXTENSION = "x-terminal"
# The OpenAPI extension of a long-poll route: which field of its answer ends the wait at which values (the MCP server
# repeats the long poll until then).
LONG_POLL_EXTENSION = "x-long-poll"
# The OpenAPI extension of a route that creates a workload: the tool that waits for it.
WAITED_BY_EXTENSION = "x-waited-by"
INCARNATION_DESCRIPTION = (
    "Minted when the cluster was registered: a cluster deleted and created again under the same tag is another "
    "incarnation, and an operation acts only on the incarnation it was created for."
)
# The attempts an operation keeps: the first (where the trouble usually began) and the latest, so a record resumed
# many times stays small.
MAX_ATTEMPTS_KEPT = 10
DESTRUCTIVE_DESCRIPTION = (
    "Started with a plan's confirmation token (it deletes, terminates or restarts): resuming it needs a fresh plan "
    "and token too."
)


class OperationStatus(StrEnum):
    PENDING = "PENDING"
    RUNNING = "RUNNING"
    SUCCEEDED = "SUCCEEDED"
    FAILED = "FAILED"
    CANCELLED = "CANCELLED"

    @property
    def terminal(self) -> bool:
        return self in TERMINAL_STATUSES

    @classmethod
    def __get_pydantic_json_schema__(cls, schema: CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        """The enum, and which of its statuses end an operation (`x-terminal`: the MCP server's wait and the
        console read them from the OpenAPI document)."""
        json_schema = handler.resolve_ref_schema(handler(schema))
        json_schema[TERMINAL_EXTENSION] = [status.value for status in TERMINAL_STATUSES]
        return json_schema


# The statuses an operation ends in; every surface that waits for an operation reads them from here.
TERMINAL_STATUSES = (OperationStatus.SUCCEEDED, OperationStatus.FAILED, OperationStatus.CANCELLED)


class StageStatus(StrEnum):
    PENDING = "PENDING"
    RUNNING = "RUNNING"
    SUCCEEDED = "SUCCEEDED"
    FAILED = "FAILED"
    CANCELLED = "CANCELLED"


class OperationKind(StrEnum):
    """Each kind is one Step Functions workflow, `statemachines/<value>.asl.json`."""

    CREATE_CLUSTER = "create_cluster"
    CREATE_EKS_CLUSTER = "create_eks_cluster"
    CONFIGURE_CLUSTER_DEPENDENCIES = "configure_cluster_dependencies"
    CREATE_HYPERPOD_CLUSTER = "create_hyperpod_cluster"
    CONFIGURE_STORAGE = "configure_storage"
    DELETE_EKS_CLUSTER = "delete_eks_cluster"
    ADD_INSTANCE_GROUP = "add_instance_group"
    UPDATE_INSTANCE_GROUP = "update_instance_group"
    DELETE_INSTANCE_GROUP = "delete_instance_group"
    UPDATE_CLUSTER_SOFTWARE = "update_cluster_software"
    UPDATE_CLUSTER_FEATURES = "update_cluster_features"
    IMPORT_CLUSTER = "import_cluster"
    REBOOT_NODES = "reboot_nodes"
    REPLACE_NODES = "replace_nodes"
    DELETE_NODES = "delete_nodes"
    CHECK_NODE_HEALTH = "check_node_health"
    DOWNLOAD_TO_STORAGE = "download_to_storage"
    PREPARE_TEAM_NAMESPACE = "prepare_team_namespace"
    REMOVE_TEAM_NAMESPACE = "remove_team_namespace"
    RESTORE_CLUSTER_ACCESS = "restore_cluster_access"


class Stage(View):
    name: str
    status: StageStatus = StageStatus.PENDING
    startedAt: datetime | None = None
    endedAt: datetime | None = None
    message: str | None = None


class OperationError(View):
    code: str
    message: str
    step: str | None = None


class Attempt(View):
    """One run of an operation's workflow: its start, or a resume."""

    number: int = Field(description="1 for the start, then one more for each resume.")
    actor: str
    status: OperationStatus = OperationStatus.PENDING
    startedAt: datetime
    endedAt: datetime | None = None
    lastStep: str | None = Field(default=None, description="The last step it ran (when it failed, the failed one).")
    error: OperationError | None = None
    stages: list[Stage] = Field(
        default_factory=list,
        description="The stages this attempt ran, with their times in it; stages an earlier attempt finished pass "
        "through and are not listed.",
    )


class Operation(View):
    """One run of a workflow against one cluster; advanced only by the workflow's steps."""

    operationId: str
    kind: OperationKind
    target: str
    incarnation: str = Field(description=f"The target cluster's incarnation. {INCARNATION_DESCRIPTION}")
    destructive: bool = Field(default=False, description=DESTRUCTIVE_DESCRIPTION)
    status: OperationStatus = OperationStatus.PENDING
    stages: list[Stage]
    currentStep: str | None = None
    error: OperationError | None = None
    actor: str
    createdAt: datetime
    updatedAt: datetime
    executionArn: str | None = None
    attempt: int = 1
    attempts: list[Attempt] = Field(default_factory=list)
    statusTool: str = "operation_wait"
    version: int = 1
    input: dict[str, Any] = Field(default_factory=dict)

    def stage(self, name: str) -> Stage:
        for stage in self.stages:
            if stage.name == name:
                return stage
        raise KeyError(name)


class OperationView(View):
    """What callers see: the operation without its internal workflow input."""

    operationId: str
    kind: OperationKind
    target: str
    incarnation: str = Field(description=f"The target cluster's incarnation. {INCARNATION_DESCRIPTION}")
    destructive: bool = Field(default=False, description=DESTRUCTIVE_DESCRIPTION)
    status: OperationStatus
    stages: list[Stage]
    currentStep: str | None = Field(default=None, description="The step running now; none once the operation ends.")
    error: OperationError | None = None
    actor: str
    createdAt: datetime
    updatedAt: datetime
    attempt: int
    attempts: list[Attempt] = Field(
        description=f"Its runs, oldest first: the start and each resume, each with its own error and stages (the "
        f"first and the latest, at most {MAX_ATTEMPTS_KEPT})."
    )
    statusTool: str

    @classmethod
    def of(cls, operation: Operation) -> OperationView:
        return cls.model_validate(operation.model_dump())


class OperationList(PageView):
    operations: list[OperationView]
