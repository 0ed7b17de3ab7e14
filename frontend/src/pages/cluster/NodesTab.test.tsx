import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import NodesTab from "./NodesTab";
import { fakeApi, type Call } from "../../test/fakeApi";
import { accepted, PLAN_WITH_TOKEN, renderTab } from "./testing";

const A = "i-0aaaaaaaaaaaaaaa1";
const B = "i-0bbbbbbbbbbbbbbb2";

function node(nodeId: string, extra: object = {}) {
  return {
    nodeId,
    instanceGroup: "workers",
    instanceType: "ml.g6.4xlarge",
    status: "Running",
    capacityType: "spot",
    availabilityZone: "us-west-2c",
    health: "Schedulable",
    ready: true,
    ...extra,
  };
}

const LIST = {
  // Two pages: the tab follows `continue`.
  "GET /clusters/{clusterTag}/nodes": (call: Call) =>
    call.query.continue
      ? { clusterTag: "demo", nodes: [node(B, { health: "UnschedulablePendingReboot", capacityType: "on-demand" })] }
      : { clusterTag: "demo", nodes: [node(A)], continue: "page-2" },
};

describe("NodesTab", () => {
  it("lists every page of nodes with health, capacity type and AZ", async () => {
    const { api } = fakeApi(LIST);
    renderTab(NodesTab, { api });
    const row = (await screen.findByText(B)).closest("tr")!;
    expect(within(row).getByText("UnschedulablePendingReboot")).toBeInTheDocument();
    expect(within(row).getByText("on-demand")).toBeInTheDocument();
    expect(within(row).getByText("us-west-2c")).toBeInTheDocument();
    expect(screen.getByText(A).closest("tr")).toHaveTextContent("spot");
  });

  it("offers no action to a viewer and only reboot to an operator", async () => {
    const viewer = renderTab(NodesTab, { api: fakeApi(LIST).api, role: "viewer" });
    await screen.findByText(B);
    expect(screen.queryByRole("button", { name: "Reboot" })).toBeNull();
    viewer.unmount();
    renderTab(NodesTab, { api: fakeApi(LIST).api, role: "operator" });
    await screen.findByText(B);
    expect(screen.getByRole("button", { name: "Reboot" })).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Replace" })).toBeNull();
    expect(screen.queryByRole("button", { name: "Delete" })).toBeNull();
  });

  it("reboots one node with the token of its plan and links the operation it started", async () => {
    const plan = {
      dryRun: true,
      actions: [{ action: "update", resource: "HyperPod node", name: A, detail: "reboot" }],
      confirmationToken: "token-r",
    };
    const { api, calls } = fakeApi({
      ...LIST,
      "POST /clusters/{clusterTag}/nodes/{nodeId}/reboot": (call) =>
        call.query.dryRun ? plan : { status: 202, body: accepted("op-reboot") },
    });
    renderTab(NodesTab, { api, role: "operator" });
    await userEvent.click(await screen.findByRole("checkbox", { name: `Select ${A}` }));
    await userEvent.click(screen.getByRole("button", { name: "Reboot" }));
    const dialog = await screen.findByRole("dialog");
    expect(await within(dialog).findByText("reboot")).toBeInTheDocument();
    await userEvent.click(within(dialog).getByRole("button", { name: "Reboot" }));
    const link = await screen.findByRole("link", { name: "op-reboot" });
    expect(link).toHaveAttribute("href", "/operations/op-reboot");
    const reboots = calls.filter((call) => call.path.endsWith("/reboot"));
    expect(reboots.map((call) => call.query)).toEqual([{ dryRun: true }, { confirmationToken: "token-r" }]);
  });

  it("replaces a selection in one batch, confirmed with the token of its plan", async () => {
    const { api, calls } = fakeApi({
      ...LIST,
      "POST /clusters/{clusterTag}/nodes/batch": (call) =>
        call.query.dryRun ? PLAN_WITH_TOKEN : { status: 202, body: accepted("op-batch") },
    });
    renderTab(NodesTab, { api });
    await userEvent.click(await screen.findByRole("checkbox", { name: `Select ${A}` }));
    await userEvent.click(screen.getByRole("checkbox", { name: `Select ${B}` }));
    await userEvent.click(screen.getByRole("button", { name: "Replace" }));
    const dialog = await screen.findByRole("dialog");
    expect(await within(dialog).findByText("Confirm with the token.")).toBeInTheDocument();
    await userEvent.click(within(dialog).getByRole("button", { name: "Replace" }));
    await screen.findByRole("link", { name: "op-batch" });
    const batch = calls.filter((call) => call.path.endsWith("/batch"));
    expect(batch.map((call) => [call.query, call.body])).toEqual([
      [{ dryRun: true }, { action: "replace", nodeIds: [A, B] }],
      [{}, { action: "replace", nodeIds: [A, B], confirmationToken: "token-1" }],
    ]);
  });

  it("shows a refusal with its message and request id in the plan, and starts nothing", async () => {
    const { api, calls } = fakeApi({
      ...LIST,
      "DELETE /clusters/{clusterTag}/nodes/{nodeId}": {
        status: 409,
        body: { code: "ClusterBusy", message: "Another operation runs on demo.", requestId: "req-9" },
      },
    });
    renderTab(NodesTab, { api });
    await userEvent.click(await screen.findByRole("checkbox", { name: `Select ${A}` }));
    await userEvent.click(screen.getByRole("button", { name: "Delete" }));
    const dialog = await screen.findByRole("dialog");
    expect(await within(dialog).findByText(/Another operation runs on demo\. \(request id req-9\)/)).toBeInTheDocument();
    expect(within(dialog).getByRole("button", { name: "Delete" })).toBeDisabled();
    await waitFor(() => expect(calls.filter((call) => call.method === "DELETE")).toHaveLength(1));
  });

  it("runs deep health checks on a selection with the token of their plan, and offers them to admins only", async () => {
    const { api, calls } = fakeApi({
      ...LIST,
      "POST /clusters/{clusterTag}/health-checks": (call) =>
        (call.body as { confirmationToken?: string }).confirmationToken
          ? { status: 202, body: accepted("op-check") }
          : PLAN_WITH_TOKEN,
    });
    const operator = renderTab(NodesTab, { api: fakeApi(LIST).api, role: "operator" });
    await screen.findByText(B);
    expect(screen.queryByRole("button", { name: "Deep health check" })).toBeNull();
    operator.unmount();
    renderTab(NodesTab, { api });
    await userEvent.click(await screen.findByRole("checkbox", { name: `Select ${A}` }));
    await userEvent.click(screen.getByRole("button", { name: "Deep health check" }));
    const dialog = await screen.findByRole("dialog");
    expect(await within(dialog).findByText("Confirm with the token.")).toBeInTheDocument();
    await userEvent.click(within(dialog).getByRole("button", { name: "Run checks" }));
    await screen.findByRole("link", { name: "op-check" });
    const checks = calls.filter((call) => call.path.endsWith("/health-checks"));
    expect(checks.map((call) => call.body)).toEqual([{ nodeIds: [A] }, { nodeIds: [A], confirmationToken: "token-1" }]);
  });
});
