"""The InstantStart control plane's root stack, composed of its parts; each part's module says what it holds.

- `infra.tables`, `infra.boundaries`, `infra.identities`: the DynamoDB tables, the permissions boundaries of the
  roles the steps create, the roles the API, the MCP server and the Kubernetes access entries act as;
- `infra.step_lambdas`, `infra.state_machines`: the workflow steps' functions and the workflows, in nested stacks so
  that each template keeps headroom under CloudFormation's limits;
- `infra.api_function`, `infra.users`, `infra.rest_api` (with `infra.api_account`), `infra.mcp`: the REST API, its
  function and its users, the remote MCP server;
- `infra.drift`, `infra.events`, `infra.websocket`, `infra.console`, `infra.monitoring`: the scheduled drift
  reconcile, HyperPod's events, live logs, the web console, alarms and dashboard.

Parts are transparent to logical IDs (`infra.parts`): regrouping them replaces no resource. Everything the stack
wires comes from the runtime's own catalogs: tables from `controlplane.adapters.aws.tables.TABLES`, workflows from
`statemachines/*.asl.json` through `controlplane.workflows`, the functions' roles from `infra.access`.

Context keys (all optional; each module documents its own):
  deploymentName           3-12 lowercase letters and digits (default instantstart): starts the names of the state
                           machines, their log groups, the roles the stack and the steps create, and marks what
                           this deployment owns, so that two deployments fit one account and Region (`infra.names`)
  iamRoleBindings, mcpMaxRole                          `infra.api_function`
  webAclArn, apiGatewayAccountRole                     `infra.rest_api`
  mcpCallbackUrls                                      `infra.mcp`
  cognitoDomainPrefix, consoleDir, consoleLocalDev, consoleDomainName, consoleCertificateArn, consoleWebAclArn
                                                       `infra.console`
  alarmTopicArn                                        `infra.monitoring`
  skipLayerBundling, runtimePython                     `infra.layer`
"""

from __future__ import annotations

from typing import Any

from constructs import Construct

from infra.api_function import ApiFunction
from infra.boundaries import Boundaries
from infra.console.site import Console
from infra.drift import DriftReconcile
from infra.events import HyperPodEvents, event_forwarding_role
from infra.identities import Identities
from infra.layer import dependencies_layer
from infra.mcp import McpServer
from infra.monitoring import Monitoring
from infra.nag import Acknowledgements
from infra.parts import PartsStack
from infra.rest_api import RestApi
from infra.state_machines import workflows
from infra.step_lambdas import StepLambdasStack
from infra.tables import Tables
from infra.users import Users
from infra.websocket import LiveLogsWebSocket


class InstantStartStack(PartsStack):
    def __init__(self, scope: Construct, construct_id: str, **kwargs: Any) -> None:
        super().__init__(scope, construct_id, **kwargs)
        acks = Acknowledgements()
        tables = Tables(self, "Tables").by_setting
        layer = dependencies_layer(self, "DependenciesLayer")
        boundaries = Boundaries(self, "Boundaries", acks=acks)
        event_forwarding_role(self, acks)
        step_lambdas = StepLambdasStack(
            self, "StepLambdas", tables=tables, layer=layer, boundaries=boundaries, acks=acks
        )
        state_machines = workflows(self, step_lambdas.function_for, acks)
        identities = Identities(self, "Identities", step_roles=step_lambdas.kubernetes_roles(), acks=acks)
        api_function = ApiFunction(
            self,
            "ApiFunction",
            tables=tables,
            layer=layer,
            state_machines=state_machines,
            identities=identities,
            boundaries=boundaries,
            acks=acks,
        ).function
        DriftReconcile(
            self,
            "DriftReconcile",
            tables=tables,
            layer=layer,
            kubernetes_view_role=identities.kubernetes_view_role,
            acks=acks,
        )
        HyperPodEvents(
            self,
            "HyperPodEvents",
            tables=tables,
            layer=layer,
            state_machines=state_machines,
            kubernetes_view_role_arn=identities.kubernetes_view_role.role_arn,
            acks=acks,
        )
        user_pool = Users(self, "Users").pool
        api = RestApi(self, "RestApi", function=api_function, user_pool=user_pool, acks=acks).api
        live_logs = LiveLogsWebSocket(
            self,
            "LiveLogs",
            tables=tables,
            layer=layer,
            user_pool=user_pool,
            kubernetes_view_role=identities.kubernetes_view_role,
            acks=acks,
        )
        self.console = Console(self, "Console", user_pool=user_pool, api=api, ws_url=live_logs.url, acks=acks)
        live_logs.accept_tokens_of(self.console.client)
        McpServer(self, "McpServer", api=api, user_pool=user_pool, role=identities.mcp_role, acks=acks)
        Monitoring(self, "Monitoring", api_function=api_function)
        acks.apply()
