/**
 * Test helpers for the cluster tabs: a fake API client that answers from a table of routes and records every call,
 * and a render of one tab inside the app context and a router, with the notification bar.
 */
import Flashbar from "@cloudscape-design/components/flashbar";
import { render } from "@testing-library/react";
import type { ComponentType } from "react";
import { MemoryRouter, useLocation } from "react-router-dom";
import { vi } from "vitest";
import type { ApiClient, Schemas } from "../../api/client";
import { AppProvider, identityOf, useApp } from "../../app-context";
import type { Role } from "../../config";
import type { ClusterTabProps } from "./tabs";

export interface Call {
  method: string;
  path: string;
  query: Record<string, unknown>;
  body: unknown;
}

export interface Answer {
  status?: number;
  body: unknown;
}

/** Answers `"METHOD /path/{param}"` routes; a route may answer by call (e.g. dryRun or not). */
export type Routes = Record<string, Answer | ((call: Call) => Answer)>;

export function fakeApi(routes: Routes): { api: ApiClient; calls: Call[] } {
  const calls: Call[] = [];
  const method =
    (name: string) =>
    async (path: string, init?: { params?: { query?: Record<string, unknown> }; body?: unknown }) => {
      const call = { method: name, path, query: init?.params?.query ?? {}, body: init?.body };
      calls.push(call);
      const route = routes[`${name} ${path}`];
      if (!route) throw new Error(`fake API: no route ${name} ${path}`);
      const { status = 200, body } = typeof route === "function" ? route(call) : route;
      const response = { ok: status < 400, status, headers: new Headers() } as Response;
      return status < 400 ? { data: body, response } : { error: body, response };
    };
  const api = { GET: method("GET"), POST: method("POST"), PATCH: method("PATCH"), DELETE: method("DELETE") };
  return { api: api as unknown as ApiClient, calls };
}

export const CLUSTER: Schemas["ClusterDetail"] = {
  clusterTag: "demo",
  region: "us-west-2",
  status: "ACTIVE",
  eksClusterName: "eks-cluster-demo",
  hyperPodClusterName: "hp-cluster-demo",
  kubernetesVersion: "1.31",
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

function Flashes() {
  const { flashes } = useApp();
  return <Flashbar items={flashes} />;
}

function Location() {
  const location = useLocation();
  return <output data-testid="location">{location.search}</output>;
}

export function renderTab(
  Tab: ComponentType<ClusterTabProps>,
  options: { api: ApiClient; role?: Role; search?: string; cluster?: Schemas["ClusterDetail"] },
) {
  const reload = vi.fn();
  const config = { apiBase: "/api", auth: { mode: "sandbox" as const, roles: ["viewer", "operator", "admin"] as Role[] } };
  const view = render(
    <MemoryRouter initialEntries={[`/clusters/demo${options.search ?? ""}`]}>
      <AppProvider config={config} api={options.api} identity={identityOf(options.role ?? "admin")}>
        <Flashes />
        <Tab cluster={options.cluster ?? CLUSTER} reload={reload} />
        <Location />
      </AppProvider>
    </MemoryRouter>,
  );
  return { ...view, reload };
}
