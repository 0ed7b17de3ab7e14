/**
 * Fixtures of the cluster tab tests: the cluster they show, a plan that asks for confirmation, an accepted operation,
 * and a render of one tab (with the notification bar) through the shared `renderPage` of `src/test/fakeApi`.
 */
import Flashbar from "@cloudscape-design/components/flashbar";
import { render } from "@testing-library/react";
import type { ComponentType } from "react";
import { vi } from "vitest";
import type { ApiClient, Schemas } from "../../api/client";
import { useApp } from "../../app-context";
import type { Role } from "../../config";
import { LocationSearch, renderPage } from "../../test/fakeApi";
import type { ClusterTabProps } from "./tabs";

export const CLUSTER: Schemas["ClusterDetail"] = {
  clusterTag: "demo",
  region: "us-west-2",
  status: "ACTIVE",
  eksClusterName: "eks-cluster-demo",
  hyperPodClusterName: "hp-cluster-demo",
  kubernetesVersion: "1.31",
  incarnation: "inc-1",
  stagesDone: ["eks", "dependencies", "hyperpod", "storage"],
  storageClaim: "s3-claim",
  storageBucket: "instantstart-demo-bucket",
  fsxClaim: null,
  createdAt: "2026-01-01T00:00:00Z",
  updatedAt: "2026-01-01T00:00:00Z",
  adopted: [],
  eks: {},
  imported: false,
  operations: [],
};

export const PLAN_WITH_TOKEN = {
  dryRun: true,
  actions: [{ action: "delete", resource: "HyperPod node", name: "i-0123456789abcdef0", detail: "terminated" }],
  confirmationToken: "token-1",
  message: "Confirm with the token.",
};

export function accepted(operationId: string) {
  return { operationId, status: "RUNNING", stages: [], operation: { operationId } };
}

/** The operation `operationId` as `GET /operations/{operationId}` answers it, in `status`. */
export function operationIn(operationId: string, status: Schemas["OperationStatus"], error?: Schemas["OperationError"]) {
  return { operationId, status, kind: "update_instance_group", target: "demo", stages: [], destructive: false, error: error ?? null };
}

function Flashes() {
  const { flashes } = useApp();
  return <Flashbar items={flashes} />;
}

/** `Tab` of the cluster `demo` at `/clusters/demo<search>`, for an admin unless `role` says otherwise. */
export function renderTab(
  Tab: ComponentType<ClusterTabProps>,
  options: { api: ApiClient; role?: Role; search?: string; cluster?: Schemas["ClusterDetail"] },
) {
  const reload = vi.fn();
  const element = (
    <>
      <Flashes />
      <Tab cluster={options.cluster ?? CLUSTER} reload={reload} />
      <LocationSearch />
    </>
  );
  const url = `/clusters/demo${options.search ?? ""}`;
  const view = render(renderPage({ api: options.api, role: options.role ?? "admin", route: "/clusters/:clusterTag", url, element }));
  return { ...view, reload };
}
