import { render, screen, within } from "@testing-library/react";
import type { Operation } from "../../hooks/useOperation";
import { fakeApi, renderPage, type Call } from "../../test/fakeApi";
import OperationsPage from "./OperationsPage";

function operation(id: string, target: string, status: Operation["status"]): Operation {
  return {
    operationId: id,
    kind: "create_eks_cluster",
    target,
    incarnation: "inc-1",
    destructive: false,
    status,
    stages: [
      { name: "network", status: "SUCCEEDED" },
      { name: "eks", status: status === "SUCCEEDED" ? "SUCCEEDED" : "RUNNING" },
    ],
    actor: `${target}-owner`,
    createdAt: "2026-12-01T10:00:00Z",
    updatedAt: "2026-12-01T10:03:05Z",
    attempt: 1,
    attempts: [],
    statusTool: "operation_get",
  };
}

const OPERATIONS: Record<string, Operation[]> = {
  alpha: [operation("op-alpha", "alpha", "SUCCEEDED")],
  beta: [operation("op-beta", "beta", "RUNNING")],
};

function page(url: string) {
  const fake = fakeApi({
    "GET /clusters": { clusters: [{ clusterTag: "alpha" }, { clusterTag: "beta" }] },
    "GET /operations": (call: Call) => ({ operations: OPERATIONS[String(call.query.clusterTag)] }),
  });
  render(renderPage({ api: fake.api, role: "viewer", route: "/operations", url, element: <OperationsPage /> }));
  return fake;
}

describe("OperationsPage", () => {
  it("lists the operations of every cluster with status, stages, duration and actor", async () => {
    page("/operations");
    const row = (await screen.findByText("op-alpha")).closest("tr")!;
    expect(within(row).getByText("SUCCEEDED")).toBeInTheDocument();
    expect(within(row).getByText("2 of 2 done")).toBeInTheDocument();
    expect(within(row).getByText("3m 05s")).toBeInTheDocument();
    expect(within(row).getByText("alpha-owner")).toBeInTheDocument();
    expect(screen.getByText("op-beta")).toBeInTheDocument();
  });

  it("reads its filters from the URL: one cluster's operations, of one status", async () => {
    const fake = page("/operations?clusterTag=beta&status=SUCCEEDED");
    expect(await screen.findByText("No operation matches the filters.")).toBeInTheDocument();
    const queried = fake.calls.filter((call) => call.path === "/operations").map((call) => call.query.clusterTag);
    expect(new Set(queried)).toEqual(new Set(["beta"]));
  });
});
