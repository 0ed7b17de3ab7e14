import { screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import DriftTab from "./DriftTab";
import { fakeApi } from "../../test/fakeApi";
import { operationIn, renderTab } from "./testing";

const REPORT = {
  clusterTag: "demo",
  checkedAt: "2026-12-02T12:00:00Z",
  inSync: false,
  findings: [
    {
      path: "instanceGroups[workers].instanceCount",
      recorded: 4,
      live: 2,
      message: "instanceGroups[workers].instanceCount: recorded 4, live 2. PATCH the instance group.",
    },
    { path: "features.observability.role", recorded: "instantstart-demo-observability", live: null, message: "Enable it again." },
  ],
  stuckOperations: [
    {
      operationId: "op-stuck-0001",
      kind: "reboot_nodes",
      runningSince: "2026-12-02T08:00:00Z",
      deadline: "2026-12-02T09:00:00Z",
      resume: "POST /operations/op-stuck-0001/resume",
      resumeTool: "operation_resume",
    },
  ],
};

describe("DriftTab", () => {
  it("shows the last findings by field path and offers a viewer no check and no resume", async () => {
    renderTab(DriftTab, { api: fakeApi({ "GET /clusters/{clusterTag}/drift": REPORT }).api, role: "viewer" });
    expect(await screen.findByText("instanceGroups[workers].instanceCount")).toBeInTheDocument();
    expect(screen.getByText("features.observability.role")).toBeInTheDocument();
    expect(screen.getByText("missing")).toBeInTheDocument();
    expect(screen.getByText("POST /operations/op-stuck-0001/resume")).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Check now" })).toBeNull();
  });

  it("says no check has run before the first one, and Check now shows the new findings", async () => {
    const { api, calls } = fakeApi({
      "GET /clusters/{clusterTag}/drift": { status: 404, body: { code: "NotFound", message: "No drift check has run." } },
      "POST /clusters/{clusterTag}/drift": REPORT,
    });
    renderTab(DriftTab, { api, role: "operator" });
    expect(await screen.findByText("No drift check has run yet.")).toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "Check now" }));
    expect(await screen.findByText("instanceGroups[workers].instanceCount")).toBeInTheDocument();
    expect(calls.map((call) => `${call.method} ${call.path}`)).toEqual(["GET /clusters/{clusterTag}/drift", "POST /clusters/{clusterTag}/drift"]);
  });

  it("resumes a stuck operation for an admin", async () => {
    const { api, calls } = fakeApi({
      "GET /clusters/{clusterTag}/drift": REPORT,
      "POST /operations/{operationId}/resume": { status: 202, body: { operationId: "op-stuck-0001" } },
      "GET /operations/{operationId}": operationIn("op-stuck-0001", "SUCCEEDED"),
    });
    renderTab(DriftTab, { api });
    await userEvent.click(await screen.findByRole("button", { name: "Resume op-stuck-0001" }));
    expect(await screen.findByText("Resume operation: done")).toBeInTheDocument();
    const resumes = calls.filter((call) => call.method === "POST");
    expect(resumes.map((call) => call.pathParams)).toEqual([{ operationId: "op-stuck-0001" }]);
  });
});
