import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter, Route, Routes } from "react-router-dom";
import { AppProvider, identityOf } from "../app-context";
import type { Operation } from "../hooks/useOperation";
import { fakeApi } from "../test/fakeApi";
import ClusterDetailPage from "./ClusterDetailPage";
import { accepted, CLUSTER, PLAN_WITH_TOKEN } from "./cluster/testing";

function operation(operationId: string, kind: Operation["kind"]): Operation {
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
    attempts: [],
    destructive: kind === "delete_eks_cluster",
    incarnation: "inc-demo",
    statusTool: "operation_wait",
  };
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
    await userEvent.type(within(dialog).getByRole("textbox", { name: "To confirm, type demo" }), "demo");
    await userEvent.click(within(dialog).getByRole("button", { name: "Delete cluster" }));

    expect(await screen.findByText("The clusters list")).toBeInTheDocument();
  });

  it("deletes only once the person types the cluster's name, after showing the running workloads it stops, in words for people", async () => {
    const plan = {
      dryRun: true,
      confirmationToken: "token-1",
      message: "Deleting 'demo' destroys what the actions to delete list. Ask the person to confirm, then repeat the request with confirmationToken.",
      actions: [
        { action: "delete", resource: "AWS::EKS::Cluster", name: "eks-cluster-demo", detail: "with its add-ons" },
        { action: "delete", resource: "HyperPodPyTorchJob", name: "default/llama-ft", detail: "training job still running: its pods stop with the cluster" },
        { action: "delete", resource: "Deployment", name: "default/qwen", detail: "model server (vllm, 1 replica(s), external): its pods stop with the cluster" },
        { action: "keep", resource: "AWS::ElasticLoadBalancingV2::LoadBalancer", name: "load balancer of Service default/qwen", detail: "delete the model server first (DELETE /clusters/demo/deployments/qwen)" },
      ],
    };
    const { api, calls } = fakeApi({
      "GET /clusters/{clusterTag}": { ...CLUSTER, lastOperationId: "op-create" },
      "GET /operations/{operationId}": operation("op-create", "create_cluster"),
      "DELETE /clusters/{clusterTag}": (call) => (call.query.dryRun ? plan : { status: 202, body: accepted("op-delete") }),
    });
    render(
      <AppProvider config={{ apiBase: "/api", auth: { mode: "sandbox", roles: ["admin"] } }} api={api} identity={identityOf("admin")}>
        <MemoryRouter initialEntries={["/clusters/demo"]}>
          <Routes>
            <Route path="/clusters/:clusterTag" element={<ClusterDetailPage />} />
          </Routes>
        </MemoryRouter>
      </AppProvider>,
    );

    await userEvent.click(await screen.findByRole("button", { name: "Delete" }));
    const dialog = await screen.findByRole("dialog");
    const workloads = await within(dialog).findByRole("table", { name: "Running workloads" });
    expect(within(workloads).getByText("default/llama-ft")).toBeInTheDocument();
    expect(within(workloads).getByText("default/qwen")).toBeInTheDocument();
    expect(within(workloads).queryByText("eks-cluster-demo")).toBeNull();
    expect(within(dialog).getByText("This stops 2 running workloads")).toBeInTheDocument();
    expect(within(dialog).getByText("Deleting 'demo' destroys what the actions to delete list.")).toBeInTheDocument();
    expect(within(dialog).queryByText(/confirmationToken/)).toBeNull();
    expect(within(dialog).getByText("delete the model server first (the Inference page)")).toBeInTheDocument();

    const remove = within(dialog).getByRole("button", { name: "Delete cluster" });
    const name = within(dialog).getByRole("textbox", { name: "To confirm, type demo" });
    expect(remove).toBeDisabled();
    await userEvent.type(name, "dem");
    expect(remove).toBeDisabled();
    await userEvent.type(name, "o");
    expect(remove).toBeEnabled();
    await userEvent.click(remove);
    await waitFor(() => expect(calls.filter((call) => call.method === "DELETE").map((call) => call.query)).toEqual([{ dryRun: true }, { confirmationToken: "token-1" }]));
  });

  it("restores an ACTIVE cluster's Kubernetes access after showing the plan, and follows the operation it starts", async () => {
    const plan = {
      dryRun: true,
      actions: [{ action: "update", resource: "EKS access entries", name: "the control plane's access, view and jobs roles" }],
    };
    const { api, calls } = fakeApi({
      "GET /clusters/{clusterTag}": { ...CLUSTER, lastOperationId: "op-create" },
      "GET /operations/{operationId}": (call) =>
        operation(call.pathParams.operationId as string, call.pathParams.operationId === "op-access" ? "restore_cluster_access" : "create_cluster"),
      "POST /clusters/{clusterTag}/access": (call) => (call.query.dryRun ? plan : { status: 202, body: accepted("op-access") }),
    });
    render(
      <AppProvider config={{ apiBase: "/api", auth: { mode: "sandbox", roles: ["admin"] } }} api={api} identity={identityOf("admin")}>
        <MemoryRouter initialEntries={["/clusters/demo"]}>
          <Routes>
            <Route path="/clusters/:clusterTag" element={<ClusterDetailPage />} />
          </Routes>
        </MemoryRouter>
      </AppProvider>,
    );

    await userEvent.click(await screen.findByRole("button", { name: "Restore Kubernetes access" }));
    const dialog = await screen.findByRole("dialog");
    expect(await within(dialog).findByText("EKS access entries")).toBeInTheDocument();
    await userEvent.click(within(dialog).getByRole("button", { name: "Restore access" }));

    await waitFor(() =>
      expect(calls.filter((call) => call.method === "POST").map((call) => call.query)).toEqual([{ dryRun: true }, {}]),
    );
  });
});
