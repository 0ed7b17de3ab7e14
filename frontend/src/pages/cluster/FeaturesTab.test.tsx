import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import FeaturesTab, { patchBody, withTouch } from "./FeaturesTab";
import { fakeApi, type Answers } from "../../test/fakeApi";
import { PLAN_WITH_TOKEN, renderTab } from "./testing";

const OFF = { enabled: false, state: "disabled", available: true, requires: [], resources: [], settings: {} };
const ON = { ...OFF, enabled: true, state: "enabled", resources: ["add-on cert-manager"] };

const FEATURES = {
  clusterTag: "demo",
  hasHyperPod: true,
  features: {
    certManager: ON,
    kuberayOperator: OFF,
    trainingOperator: { ...OFF, requires: ["certManager"] },
    tieredStorage: { ...OFF, settings: { configMode: null, percentage: null } },
  },
};

const ROUTES: Answers = {
  "GET /clusters/{clusterTag}/features": FEATURES,
  "GET /clusters/{clusterTag}/instance-groups": { clusterTag: "demo", hyperPodClusterName: "hp", hyperPodStatus: "InService", instanceGroups: [] },
};

describe("patchBody and withTouch", () => {
  const live = FEATURES.features as never;
  it("sends only the touched features, each with enabled and its touched fields", () => {
    let touched = withTouch({}, "kuberayOperator", { enabled: true }, FEATURES.features.kuberayOperator as never);
    touched = withTouch(touched, "tieredStorage", { configMode: "custom" }, FEATURES.features.tieredStorage as never);
    expect(patchBody(touched, live)).toEqual({ kuberayOperator: { enabled: true }, tieredStorage: { enabled: false, configMode: "custom" } });
  });

  it("forgets a field set back to its live value", () => {
    const state = FEATURES.features.kuberayOperator as never;
    const touched = withTouch(withTouch({}, "kuberayOperator", { enabled: true }, state), "kuberayOperator", { enabled: false }, state);
    expect(patchBody(touched, live)).toEqual({});
  });
});

describe("FeaturesTab", () => {
  it("shows each feature's live state, and an operator can change none", async () => {
    renderTab(FeaturesTab, { api: fakeApi(ROUTES).api, role: "operator" });
    const row = (await screen.findByText("Training operator")).closest("tr")!;
    expect(row).toHaveTextContent("certManager");
    expect(within(row).getByRole("checkbox")).toBeDisabled();
    expect(screen.queryByRole("button", { name: "Review changes" })).toBeNull();
  });

  it("sends exactly the one feature toggled and shows its outcome in place", async () => {
    const { api, calls } = fakeApi({
      ...ROUTES,
      "PATCH /clusters/{clusterTag}/features": (call) =>
        call.query.dryRun
          ? { dryRun: true, features: { kuberayOperator: { outcome: "enabled" } }, actions: [{ action: "create", resource: "helm release", name: "kuberay-operator" }] }
          : { status: 202, body: { features: { kuberayOperator: { outcome: "enabled", stage: "kuberayOperator" } }, operationId: "op-features" } },
    });
    renderTab(FeaturesTab, { api, search: "?tab=features" });
    await userEvent.click(await screen.findByRole("checkbox", { name: "KubeRay operator enabled" }));
    await userEvent.click(screen.getByRole("button", { name: "Review changes" }));
    const dialog = await screen.findByRole("dialog");
    await within(dialog).findByText("kuberay-operator");
    const row = screen.getByText("KubeRay operator").closest("tr")!;
    expect(row).toHaveTextContent("would be enabled");
    expect(row.querySelector('[class*="status-success"]')).toBeNull();
    await userEvent.click(within(dialog).getByRole("button", { name: "Apply" }));
    await screen.findByRole("link", { name: "op-features" });
    const patches = calls.filter((call) => call.method === "PATCH");
    expect(patches.map((call) => [call.query, call.body])).toEqual([
      [{ dryRun: true }, { kuberayOperator: { enabled: true } }],
      [{}, { kuberayOperator: { enabled: true } }],
    ]);
    expect(screen.getByText("KubeRay operator").closest("tr")).toHaveTextContent("enabled");
  }, 20_000);

  it("confirms a disable with the token of its plan", async () => {
    const { api, calls } = fakeApi({
      ...ROUTES,
      "PATCH /clusters/{clusterTag}/features": (call) =>
        call.query.dryRun
          ? { ...PLAN_WITH_TOKEN, features: { certManager: { outcome: "disabled" } } }
          : { status: 202, body: { features: { certManager: { outcome: "disabled" } }, operationId: "op-off" } },
    });
    renderTab(FeaturesTab, { api });
    await userEvent.click(await screen.findByRole("checkbox", { name: "cert-manager enabled" }));
    await userEvent.click(screen.getByRole("button", { name: "Review changes" }));
    const dialog = await screen.findByRole("dialog");
    await within(dialog).findByText("Confirm with the token.");
    await userEvent.click(within(dialog).getByRole("button", { name: "Apply" }));
    await screen.findByRole("link", { name: "op-off" });
    expect(calls.filter((call) => call.method === "PATCH").map((call) => call.query)).toEqual([
      { dryRun: true },
      { confirmationToken: "token-1" },
    ]);
  }, 20_000);

  it("shows a dependency refusal in the refused feature's row", async () => {
    const message = "trainingOperator needs certManager, which is not enabled.";
    const { api } = fakeApi({
      ...ROUTES,
      "PATCH /clusters/{clusterTag}/features": {
        status: 409,
        body: { code: "FeatureDependency", message, requestId: "req-1", details: { feature: "trainingOperator", missing: ["certManager"] } },
      },
    });
    renderTab(FeaturesTab, { api });
    await userEvent.click(await screen.findByRole("checkbox", { name: "Training operator enabled" }));
    await userEvent.click(screen.getByRole("button", { name: "Review changes" }));
    await screen.findByRole("dialog");
    const row = screen.getByText("Training operator").closest("tr")!;
    expect(await within(row).findByText(message)).toBeInTheDocument();
  }, 20_000);
});
