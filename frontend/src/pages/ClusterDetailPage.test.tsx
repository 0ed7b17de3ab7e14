import { render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter, Route, Routes } from "react-router-dom";
import { AppProvider, identityOf } from "../app-context";
import type { Operation } from "../hooks/useOperation";
import { fakeApi } from "../test/fakeApi";
import ClusterDetailPage from "./ClusterDetailPage";
import { accepted, CLUSTER, PLAN_WITH_TOKEN } from "./cluster/testing";

function operation(operationId: string, kind: string): Operation {
  return {
    operationId,
    kind,
    target: "demo",
    status: "SUCCEEDED",
    stages: [{ name: "eks", status: "SUCCEEDED" }],
    actor: "sandbox-admin",
    createdAt: "2026-01-01T10:00:00Z",
    updatedAt: "2026-01-01T10:05:00Z",
    attempt: 1,
    statusTool: "operation_wait",
  } as Operation;
}

describe("the cluster page", () => {
  it("goes back to the clusters list when the delete it started has ended before the cluster is read again", async () => {
    let deleted = false;
    const { api } = fakeApi({
      "GET /clusters/{clusterTag}": () =>
        deleted
          ? { status: 404, body: { code: "ClusterNotFound", message: "Cluster demo was not found." } }
          : { ...CLUSTER, lastOperationId: "op-create" },
      "GET /operations/{operationId}": (call) =>
        call.pathParams.operationId === "op-delete" ? operation("op-delete", "delete_eks_cluster") : operation("op-create", "create_cluster"),
      "DELETE /clusters/{clusterTag}": (call) => {
        if (call.query.dryRun) return PLAN_WITH_TOKEN;
        deleted = true; // the sandbox's delete can end before the page reads the cluster again
        return { status: 202, body: accepted("op-delete") };
      },
    });
    render(
      <AppProvider config={{ apiBase: "/api", auth: { mode: "sandbox", roles: ["admin"] } }} api={api} identity={identityOf("admin")}>
        <MemoryRouter initialEntries={["/clusters/demo"]}>
          <Routes>
            <Route path="/clusters/:clusterTag" element={<ClusterDetailPage />} />
            <Route path="/clusters" element={<p>The clusters list</p>} />
          </Routes>
        </MemoryRouter>
      </AppProvider>,
    );

    await userEvent.click(await screen.findByRole("button", { name: "Delete" }));
    const dialog = await screen.findByRole("dialog");
    await within(dialog).findByText("Confirm with the token.");
    await userEvent.click(within(dialog).getByRole("button", { name: "Delete cluster" }));

    expect(await screen.findByText("The clusters list")).toBeInTheDocument();
  });
});
