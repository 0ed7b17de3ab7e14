import createWrapper from "@cloudscape-design/components/test-utils/dom";
import { act, render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { fakeApi, renderPage, type Answers, type Call } from "../../test/fakeApi";
import { GPU_COLORS, gpuSeries, slices } from "./charts";
import MonitoringPage, { POLL_MS } from "./MonitoringPage";

const GPUS = { total: 16, allocatable: 16, used: 6, available: 10 };
const OVERVIEW = {
  clusterTag: "demo",
  hyperPodStatus: "InService",
  nodesTotal: 2,
  nodesByState: { Ready: 2 },
  nodesByHealth: { Schedulable: 1, UnschedulablePendingReplacement: 1 },
  nodesUnhealthy: 1,
  gpus: GPUS,
  groups: [
    { name: "workers", instanceType: "ml.p5.48xlarge", status: "InService", currentCount: 1, targetCount: 1, nodes: 1, nodesReady: 1, gpus: { total: 8, allocatable: 8, used: 6, available: 2 } },
    { name: "spare", nodes: 1, nodesReady: 1, gpus: { total: 8, allocatable: 8, used: 0, available: 8 } },
  ],
  nodes: [],
  podsTotal: 3,
  podsByPhase: { Running: 2, Pending: 1 },
  pendingByReason: { Unschedulable: 1 },
  pendingPods: [{ namespace: "team", name: "stuck", reason: "Unschedulable", message: "Insufficient nvidia.com/gpu" }],
  warningEventsTotal: 1,
  events: [
    { source: "hyperpod" as const, object: "Instance/i-0abc", reason: "Error", message: "Instance i-0abc failed its health checks", at: "2026-01-01T00:00:01Z", count: 1, nodeId: "i-0abc" },
    { source: "kubernetes" as const, namespace: "team", object: "Pod/stuck", reason: "FailedScheduling", message: "0/2 nodes are available", at: "2026-01-01T00:00:00Z", count: 3 },
  ],
};
const POD = (name: string, phase = "Running") => ({ namespace: "team", name, phase, gpus: 0, restarts: 0, node: "n-1" });

function pods(call: Call) {
  if (call.query.phase === "Pending") return { clusterTag: "demo", pods: [{ ...POD("stuck", "Pending"), reason: "Unschedulable" }] };
  return call.query.continue === "page-2"
    ? { clusterTag: "demo", pods: [POD("second")] }
    : { clusterTag: "demo", pods: [POD("first")], continue: "page-2" };
}

function show(answers: Answers = { "GET /clusters/{clusterTag}/overview": OVERVIEW, "GET /clusters/{clusterTag}/pods": pods }) {
  const fake = fakeApi(answers);
  render(renderPage({ api: fake.api, role: "viewer", route: "/clusters/:clusterTag/monitoring", url: "/clusters/demo/monitoring", element: <MonitoringPage /> }));
  return fake;
}

describe("MonitoringPage", { timeout: 30_000 }, () => {
  it("shows the cluster's figures, charts, pending pods and recent events from the overview", async () => {
    show();
    expect(await screen.findByText("6 of 16")).toBeInTheDocument();
    expect(screen.getByText("1 unhealthy")).toBeInTheDocument();
    expect(screen.getByText("GPUs per instance group")).toBeInTheDocument();
    expect(screen.getByText("Node health")).toBeInTheDocument();
    expect(screen.getByText("Pods by phase")).toBeInTheDocument();
    const pending = screen.getByText("Insufficient nvidia.com/gpu").closest("tr")!;
    expect(within(pending).getByText("team/stuck")).toBeInTheDocument();
    expect(within(screen.getByText("0/2 nodes are available").closest("tr")!).getByText("Kubernetes")).toBeInTheDocument();
    expect(within(screen.getByText("Instance i-0abc failed its health checks").closest("tr")!).getByText("HyperPod")).toBeInTheDocument();
    expect(screen.getByText(/Feature off/)).toBeInTheDocument();
  });

  it("shows the cluster's Prometheus workspace and what the person brings when the feature is on", async () => {
    const observability = {
      addonStatus: "ACTIVE",
      prometheusWorkspace: "ws-1",
      prometheusEndpoint: "https://aps-workspaces.us-west-2.amazonaws.com/workspaces/ws-1/",
      grafana: "https://g.example",
      prometheus: "https://p.example",
      hyperPodConsole: "https://c.example",
      bringYourOwn: "Bring your own Grafana: add the workspace as a Prometheus data source.",
    };
    show({ "GET /clusters/{clusterTag}/overview": { ...OVERVIEW, observability }, "GET /clusters/{clusterTag}/pods": pods });
    expect(await screen.findByRole("link", { name: /Prometheus workspace ws-1/ })).toHaveAttribute("href", "https://p.example");
    expect(screen.getByText("https://aps-workspaces.us-west-2.amazonaws.com/workspaces/ws-1/")).toBeVisible();
    expect(screen.getByText(/Bring your own Grafana/)).toBeVisible();
    expect(screen.getByRole("link", { name: /Amazon Managed Grafana/ })).toHaveAttribute("href", "https://g.example");
  });

  it("draws available GPUs in the neutral chart colour, not the palette's red, beside the used ones", async () => {
    show();
    await screen.findByText("6 of 16");
    const legend = createWrapper().findBarChart()!.findLegend()!;
    const markers = legend.findItems().map((item) => [item.getElement().textContent?.trim(), item.getElement().innerHTML]);
    expect(markers).toEqual([
      ["Used", expect.stringContaining(rgb(GPU_COLORS.used))],
      ["Available", expect.stringContaining(rgb(GPU_COLORS.available))],
    ]);
  });

  it("links to the cluster's Cost tab", async () => {
    show();
    expect(await screen.findByRole("link", { name: "Instance-hours and cost so far" })).toHaveAttribute("href", "/clusters/demo?tab=cost");
  });

  it("polls the overview", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      const fake = show();
      await screen.findByText("6 of 16");
      await act(async () => {
        await vi.advanceTimersByTimeAsync(POLL_MS);
      });
      expect(fake.calls.filter((call) => call.path === "/clusters/{clusterTag}/overview").length).toBeGreaterThanOrEqual(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it("pages through the pods with the token of the page before, and filters them by phase", async () => {
    const fake = show();
    expect(await screen.findByText("first")).toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "Next page of pods" }));
    expect(await screen.findByText("second")).toBeInTheDocument();
    expect(fake.calls.at(-1)?.query).toMatchObject({ continue: "page-2", limit: 50 });
    await userEvent.click(screen.getByRole("button", { name: "Previous page of pods" }));
    expect(await screen.findByText("first")).toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: /Phase/ }));
    await userEvent.click(await screen.findByRole("option", { name: "Pending" }));
    const row = (await screen.findByText("stuck", { selector: "td *, td" })).closest("tr")!;
    expect(within(row).getByText("Unschedulable")).toBeInTheDocument();
    expect(fake.calls.at(-1)?.query).toMatchObject({ phase: "Pending", continue: undefined });
  });
});

/** `#688ae8` as the DOM writes an inline colour: `rgb(104, 138, 232)`. */
function rgb(hex: string): string {
  const [r, g, b] = [1, 3, 5].map((at) => parseInt(hex.slice(at, at + 2), 16));
  return `rgb(${r}, ${g}, ${b})`;
}

describe("chart data", () => {
  it("stacks used and available GPUs per group and drops empty slices, largest first", () => {
    expect(gpuSeries(OVERVIEW as never).available).toEqual([
      { x: "workers", y: 2 },
      { x: "spare", y: 8 },
    ]);
    expect(slices({ Running: 2, Failed: 0, Pending: 5 })).toEqual([
      { title: "Pending", value: 5 },
      { title: "Running", value: 2 },
    ]);
  });
});
