import { render, renderHook, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import type { ReactNode } from "react";
import { AppProvider, identityOf } from "../../app-context";
import { fakeApi, renderPage, type Answers, type Call } from "../../test/fakeApi";
import JobDetailPage from "./JobDetailPage";
import { useJobLogs } from "./useJobLogs";

const BUDGET = { restarts: 1, restartsBeforeFullJobRestart: 3, fullJobRestarts: 0, maxFullJobRestarts: 1, jobMaxRetryCount: 5 };
const JOB = {
  name: "hello",
  kind: "HyperPodPyTorchJob",
  phase: "Succeeded",
  nodes: 1,
  gpusPerNode: 1,
  namespace: "ml",
  image: "train:1",
  restartBudget: BUDGET,
  pods: [{ name: "hello-pods-0", node: "hyperpod-i-0abc", phase: "Succeeded", restarts: 1 }],
  events: [{ type: "Normal", reason: "JobSucceeded", message: "all pods finished", at: "2026-01-01T00:00:00Z" }],
};
const LOGS = { jobName: "hello", pod: "hello-pods-0", pods: ["hello-pods-0"], lines: ["step 1 loss 2.0", "step 2 loss 1.5"] };

function show(role: "viewer" | "operator", answers: Answers) {
  const fake = fakeApi(answers);
  const route = "/clusters/:clusterTag/jobs/:jobName";
  render(renderPage({ api: fake.api, role, route, url: "/clusters/demo/jobs/hello", element: <JobDetailPage /> }));
  return fake;
}

describe("JobDetailPage", { timeout: 30_000 }, () => {
  it("shows the phase, restarts against the budget, pods with their node, the last events and the log", async () => {
    const fake = show("viewer", { "GET /clusters/{clusterTag}/jobs/{jobName}": JOB, "GET /clusters/{clusterTag}/jobs/{jobName}/logs": LOGS });
    expect(await screen.findByText("1 of 3 in place, 0 of 1 full")).toBeInTheDocument();
    const pod = screen.getByText("hyperpod-i-0abc").closest("tr")!;
    expect(pod).toHaveTextContent("hello-pods-0");
    expect(screen.getByText("all pods finished")).toBeInTheDocument();
    expect(await screen.findByLabelText("Log lines")).toHaveTextContent("step 2 loss 1.5");
    expect(screen.queryByRole("button", { name: "Delete" })).toBeNull();
    const reads = fake.calls.filter((call) => call.path.endsWith("/logs"));
    expect(reads[0].query).toEqual({ tailLines: 1000 });
  });

  it("shows a Ray job's head, worker and submitter pods, with no restart budget", async () => {
    const pods = ["hello-x7k2p-head", "hello-x7k2p-workers-worker-0", "hello-submit"].map((name) => ({ name, node: "hyperpod-i-0abc", phase: "Running", restarts: 0 }));
    const ray = { ...JOB, kind: "RayJob", phase: "Running", nodes: 2, restartBudget: null, pods };
    show("viewer", { "GET /clusters/{clusterTag}/jobs/{jobName}": ray, "GET /clusters/{clusterTag}/jobs/{jobName}/logs": LOGS });
    expect(await screen.findByText("RayJob")).toBeInTheDocument();
    expect(screen.getByText("hello-x7k2p-workers-worker-0")).toBeInTheDocument();
    expect(screen.queryByText(/in place/)).toBeNull();
  });

  it("deletes the job with the token of the API's plan", async () => {
    const fake = show("operator", {
      "GET /clusters/{clusterTag}/jobs/{jobName}": JOB,
      "GET /clusters/{clusterTag}/jobs/{jobName}/logs": LOGS,
      "DELETE /clusters/{clusterTag}/jobs/{jobName}": (call: Call) =>
        call.query.dryRun
          ? { dryRun: true, actions: [{ action: "delete", resource: "HyperPodPyTorchJob", name: "hello" }], confirmationToken: "token-1", message: "Deleting job hello stops it." }
          : { dryRun: false, actions: [], message: "Deleted job hello." },
    });
    await userEvent.click(await screen.findByRole("button", { name: "Delete" }));
    const dialog = await screen.findByRole("dialog");
    expect(await within(dialog).findByText("Deleting job hello stops it.")).toBeInTheDocument();
    await userEvent.click(within(dialog).getByRole("button", { name: "Delete job" }));
    await waitFor(() => expect(fake.calls.filter((call) => call.method === "DELETE")).toHaveLength(2));
    const deletes = fake.calls.filter((call) => call.method === "DELETE").map((call) => call.query);
    expect(deletes).toEqual([{ dryRun: true }, { confirmationToken: "token-1" }]);
  });
});

describe("useJobLogs", () => {
  const wrap = (api: ReturnType<typeof fakeApi>["api"]) =>
    function Wrapper({ children }: { children: ReactNode }) {
      const config = { apiBase: "/api", auth: { mode: "sandbox" as const, roles: ["viewer" as const] } };
      return (
        <AppProvider config={config} api={api} identity={identityOf("viewer")}>
          {children}
        </AppProvider>
      );
    };

  it("follows a running job's log with new lines, and keeps the lines when the ended job's pods are gone", async () => {
    const answers = [
      { ...LOGS, lines: ["step 1"] },
      { ...LOGS, lines: ["step 1", "step 2"] },
      { jobName: "hello", pod: "", pods: [], lines: [] },
    ];
    let read = 0;
    const fake = fakeApi({ "GET /clusters/{clusterTag}/jobs/{jobName}/logs": () => answers[Math.min(read++, answers.length - 1)] });
    const { result, rerender } = renderHook(({ follow }) => useJobLogs("demo", "hello", { pod: undefined, follow, intervalMs: 10 }), {
      wrapper: wrap(fake.api),
      initialProps: { follow: true },
    });
    await waitFor(() => expect(result.current.logs?.lines).toEqual(["step 1", "step 2"]));
    rerender({ follow: false });
    await waitFor(() => expect(read).toBeGreaterThanOrEqual(3));
    expect(result.current.logs?.lines).toEqual(["step 1", "step 2"]);
  });

  it("reads once when the job is not running", async () => {
    const fake = fakeApi({ "GET /clusters/{clusterTag}/jobs/{jobName}/logs": LOGS });
    const { result } = renderHook(() => useJobLogs("demo", "hello", { pod: "hello-pods-0", follow: false, intervalMs: 10 }), {
      wrapper: wrap(fake.api),
    });
    await waitFor(() => expect(result.current.logs?.lines).toHaveLength(2));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(fake.calls).toHaveLength(1);
    expect(fake.calls[0].query).toEqual({ tailLines: 1000, pod: "hello-pods-0" });
  });
});
