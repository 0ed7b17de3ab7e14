import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import RemediationTab from "./RemediationTab";
import { fakeApi, type Call } from "../../test/fakeApi";
import { renderTab } from "./testing";

const DEFAULT = { clusterTag: "demo", action: "notify", maxActionsPerHour: 2, maxActionsPerGroupPerHour: 1, recordOnly: false };

function answers(stored: { policy: object }) {
  return {
    "GET /clusters/{clusterTag}/remediation-policy": () => stored.policy,
    "PUT /clusters/{clusterTag}/remediation-policy": (call: Call) => {
      stored.policy = { ...DEFAULT, ...(call.body as object), updatedBy: "alice", updatedAt: "2026-12-02T12:00:00Z" };
      return stored.policy;
    },
  };
}

describe("RemediationTab", () => {
  it("shows the policy to a viewer, who may not change it", async () => {
    renderTab(RemediationTab, { api: fakeApi(answers({ policy: DEFAULT })).api, role: "viewer" });
    expect(await screen.findByText("default (notify)")).toBeInTheDocument();
    expect(screen.getByText("notify")).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Save policy" })).toBeNull();
  });

  it("offers an operator no change either: setting the policy is an admin's", async () => {
    renderTab(RemediationTab, { api: fakeApi(answers({ policy: DEFAULT })).api, role: "operator" });
    await screen.findByText("default (notify)");
    expect(screen.queryByRole("button", { name: "Save policy" })).toBeNull();
  });

  it("lets an admin set replace, record only, and the limits", async () => {
    const { api, calls } = fakeApi(answers({ policy: DEFAULT }));
    renderTab(RemediationTab, { api });
    await screen.findByRole("button", { name: "Save policy" });
    await userEvent.click(screen.getByRole("button", { name: /Action/ }));
    await userEvent.click(await screen.findByText("Replace"));
    expect(screen.getByText(/Replace destroys the node's volumes/)).toBeInTheDocument();
    await userEvent.click(screen.getByRole("checkbox", { name: /Record only/ }));
    const limit = screen.getByRole("spinbutton", { name: "Node operations per hour" });
    await userEvent.clear(limit);
    await userEvent.type(limit, "4");
    await userEvent.click(screen.getByRole("button", { name: "Save policy" }));
    await waitFor(() => expect(calls.some((call) => call.method === "PUT")).toBe(true));
    const put = calls.find((call) => call.method === "PUT")!;
    expect(put.body).toEqual({ action: "replace", recordOnly: true, maxActionsPerHour: 4, maxActionsPerGroupPerHour: 1 });
    expect(await screen.findByText(/Remediation policy of demo saved: replace \(record only\)/)).toBeInTheDocument();
    expect(await screen.findByText("alice")).toBeInTheDocument();
  });

  it("refuses a limit out of range before asking the API", async () => {
    const { api, calls } = fakeApi(answers({ policy: DEFAULT }));
    renderTab(RemediationTab, { api });
    const limit = await screen.findByRole("spinbutton", { name: "Node operations per instance group per hour" });
    await userEvent.clear(limit);
    await userEvent.type(limit, "500");
    expect(screen.getByText("Between 1 and 100.")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Save policy" })).toBeDisabled();
    expect(calls.every((call) => call.method === "GET")).toBe(true);
  });
});

describe("RemediationTab with a policy that replaces nodes", () => {
  const PLAN = {
    dryRun: true,
    actions: [{ action: "update", resource: "Remediation policy", name: "demo", detail: "replace: volumes destroyed" }],
    confirmationToken: "token-p",
    message: "This policy replaces unhealthy nodes.",
  };

  function asking(stored: { policy: object }) {
    const stores = answers(stored)["PUT /clusters/{clusterTag}/remediation-policy"];
    return {
      ...answers(stored),
      "PUT /clusters/{clusterTag}/remediation-policy": (call: Call) =>
        call.query.confirmationToken === "token-p"
          ? stores(call)
          : { status: 400, body: { code: "ConfirmationRequired", message: "Confirm first.", requestId: "r", details: PLAN } },
    };
  }

  async function chooseReplace() {
    await screen.findByRole("button", { name: "Save policy" });
    await userEvent.click(screen.getByRole("button", { name: /Action/ }));
    await userEvent.click(await screen.findByText("Replace"));
    await userEvent.click(screen.getByRole("button", { name: "Save policy" }));
  }

  it("shows the plan the API asks to confirm, and saves with its token once the admin confirms", async () => {
    const { api, calls } = fakeApi(asking({ policy: DEFAULT }));
    renderTab(RemediationTab, { api });
    await chooseReplace();
    const dialog = await screen.findByRole("dialog");
    expect(within(dialog).getByText("This policy replaces unhealthy nodes.")).toBeInTheDocument();
    expect(within(dialog).getByText("replace: volumes destroyed")).toBeInTheDocument();
    await userEvent.click(within(dialog).getByRole("button", { name: "Save policy" }));
    expect(await screen.findByText(/Remediation policy of demo saved: replace\./)).toBeInTheDocument();
    const puts = calls.filter((call) => call.method === "PUT");
    expect(puts.map((call) => call.query)).toEqual([{}, { confirmationToken: "token-p" }]);
  });

  it("stores nothing when the admin cancels the plan", async () => {
    const { api, calls } = fakeApi(asking({ policy: DEFAULT }));
    renderTab(RemediationTab, { api });
    await chooseReplace();
    const dialog = await screen.findByRole("dialog");
    await userEvent.click(within(dialog).getByRole("button", { name: "Cancel" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    expect(calls.filter((call) => call.method === "PUT")).toHaveLength(1);
    expect(screen.queryByText(/saved/)).toBeNull();
    expect(screen.getByText("default (notify)")).toBeInTheDocument();
  });
});
