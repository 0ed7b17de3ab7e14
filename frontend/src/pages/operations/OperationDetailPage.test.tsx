import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { LONG_POLL_SECONDS } from "../../api/operations";
import type { Operation } from "../../hooks/useOperation";
import { fakeApi, renderPage, type Answers, type Call } from "../../test/fakeApi";
import OperationDetailPage from "./OperationDetailPage";

const FAILED: Operation = {
  operationId: "op-00000000000000000001",
  kind: "create_hyperpod_cluster",
  target: "demo",
  incarnation: "inc-1",
  destructive: false,
  status: "FAILED",
  stages: [
    { name: "hyperpod", status: "FAILED", startedAt: "2026-12-01T10:00:00Z", endedAt: "2026-12-01T10:05:00Z", message: "capacity" },
  ],
  error: { code: "InsufficientCapacity", message: "No ml.g6.4xlarge in us-west-2c.", step: "Create HyperPod Cluster" },
  actor: "alice",
  createdAt: "2026-12-01T10:00:00Z",
  updatedAt: "2026-12-01T10:05:00Z",
  attempt: 1,
  attempts: [
    {
      number: 1,
      actor: "alice",
      status: "FAILED",
      startedAt: "2026-12-01T10:00:00Z",
      endedAt: "2026-12-01T10:05:00Z",
      lastStep: "Create HyperPod Cluster",
      error: { code: "InsufficientCapacity", message: "No ml.g6.4xlarge in us-west-2c.", step: "Create HyperPod Cluster" },
      stages: [
        { name: "hyperpod", status: "FAILED", startedAt: "2026-12-01T10:00:00Z", endedAt: "2026-12-01T10:05:00Z", message: "capacity" },
      ],
    },
  ],
  statusTool: "operation_get",
};

/** FAILED resumed by bob, who then succeeded: two attempts, the first still with its error. */
const RESUMED: Operation = {
  ...FAILED,
  status: "SUCCEEDED",
  error: null,
  currentStep: null,
  attempt: 2,
  actor: "bob",
  stages: [{ name: "hyperpod", status: "SUCCEEDED", startedAt: "2026-12-01T11:00:00Z", endedAt: "2026-12-01T11:20:00Z" }],
  attempts: [
    FAILED.attempts[0],
    {
      number: 2,
      actor: "bob",
      status: "SUCCEEDED",
      startedAt: "2026-12-01T11:00:00Z",
      endedAt: "2026-12-01T11:20:00Z",
      lastStep: "Wait For HyperPod Cluster",
      error: null,
      stages: [{ name: "hyperpod", status: "SUCCEEDED", startedAt: "2026-12-01T11:00:00Z", endedAt: "2026-12-01T11:20:00Z" }],
    },
  ],
};

function page(role: "viewer" | "operator" | "admin", answers: Answers) {
  const fake = fakeApi(answers);
  render(
    renderPage({
      api: fake.api,
      role,
      route: "/operations/:operationId",
      url: `/operations/${FAILED.operationId}`,
      element: <OperationDetailPage />,
    }),
  );
  return fake;
}

describe("OperationDetailPage", () => {
  it("shows the error with the step that failed, and Resume only to an admin", async () => {
    page("admin", { "GET /operations/{operationId}": FAILED });
    expect(await screen.findByText("No ml.g6.4xlarge in us-west-2c.")).toBeInTheDocument();
    expect(screen.getByText('InsufficientCapacity in step "Create HyperPod Cluster"')).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Resume" })).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Cancel" })).toBeNull();
  });

  it("offers an operator neither Resume nor Cancel", async () => {
    page("operator", { "GET /operations/{operationId}": FAILED });
    await screen.findByText("No ml.g6.4xlarge in us-west-2c.");
    expect(screen.queryByRole("button", { name: "Resume" })).toBeNull();
  });

  it("follows a running operation with long polls until it is terminal", async () => {
    const running = { ...FAILED, status: "RUNNING", error: null, stages: [{ name: "hyperpod", status: "RUNNING" }] };
    const done = { ...running, status: "SUCCEEDED", stages: [{ name: "hyperpod", status: "SUCCEEDED" }] };
    let finish: (operation: unknown) => void = () => undefined;
    const finished = new Promise((resolve) => (finish = resolve));
    const fake = page("admin", { "GET /operations/{operationId}": running, "GET /operations/{operationId}/wait": () => finished });
    expect(await screen.findByRole("button", { name: "Cancel" })).toBeInTheDocument();
    finish(done);
    await waitFor(() => expect(screen.getAllByText("SUCCEEDED")).toHaveLength(2));
    expect(screen.queryByRole("button", { name: "Cancel" })).toBeNull();
    const waits = fake.calls.filter((call) => call.path.endsWith("/wait"));
    expect(waits).toHaveLength(1);
    expect(waits[0].query).toEqual({ timeoutSeconds: LONG_POLL_SECONDS });
  });

  it("resumes through the API and follows the operation again", async () => {
    const fake = page("admin", {
      "GET /operations/{operationId}": FAILED,
      "POST /operations/{operationId}/resume": { operationId: FAILED.operationId, status: "PENDING" },
    });
    await userEvent.click(await screen.findByRole("button", { name: "Resume" }));
    await waitFor(() => expect(fake.calls.filter((call) => call.method === "GET")).toHaveLength(2));
    expect(fake.calls.map((call) => `${call.method} ${call.path}`)).toContain("POST /operations/{operationId}/resume");
  });

  it("resumes a destructive operation only with the token of a fresh plan", async () => {
    const deleting: Operation = { ...FAILED, kind: "delete_eks_cluster", destructive: true };
    const fake = page("admin", {
      "GET /operations/{operationId}": deleting,
      "POST /operations/{operationId}/resume": (call: Call) =>
        call.query.dryRun
          ? { dryRun: true, actions: [{ action: "delete", resource: "EKS cluster", name: "demo" }], confirmationToken: "token-1", message: "Resuming deletes cluster demo." }
          : { operationId: FAILED.operationId, status: "PENDING" },
    });
    await userEvent.click(await screen.findByRole("button", { name: "Resume" }));
    const dialog = await screen.findByRole("dialog");
    expect(await within(dialog).findByText("Resuming deletes cluster demo.")).toBeInTheDocument();
    await userEvent.click(within(dialog).getByRole("button", { name: "Resume" }));
    await waitFor(() => expect(fake.calls.filter((call) => call.method === "POST")).toHaveLength(2));
    const resumes = fake.calls.filter((call) => call.method === "POST").map((call) => call.query);
    expect(resumes).toEqual([{ dryRun: true }, { confirmationToken: "token-1" }]);
  });

  it("shows each attempt with its own outcome, the first attempt's error kept after a resume", async () => {
    page("viewer", { "GET /operations/{operationId}": RESUMED });
    const attempts = await screen.findByRole("region", { name: "Attempts (2)" });
    const second = within(attempts).getByRole("region", { name: /Attempt 2/ });
    const first = within(attempts).getByRole("region", { name: /Attempt 1/ });
    expect(within(second).getByText(/by bob/)).toBeInTheDocument();
    expect(within(second).getByText("SUCCEEDED")).toBeInTheDocument();
    expect(within(first).getByText(/by alice/)).toBeInTheDocument();
    expect(within(first).getByText('InsufficientCapacity in step "Create HyperPod Cluster"')).toBeInTheDocument();
    expect(within(first).getByText("No ml.g6.4xlarge in us-west-2c.")).toBeInTheDocument();
    const stages = within(first).getByRole("table", { name: "Stages of attempt 1" });
    expect(within(stages).getByText("capacity")).toBeInTheDocument();
    expect(within(stages).getByText("FAILED")).toBeInTheDocument();
  });

  it("shows an ended operation's last step, not a current one", async () => {
    page("viewer", { "GET /operations/{operationId}": RESUMED });
    expect(await screen.findByText("Last step")).toBeInTheDocument();
    expect(screen.queryByText("Current step")).toBeNull();
    expect(screen.getByText("Wait For HyperPod Cluster")).toBeInTheDocument();
  });

  it("shows an API error with its message and request id", async () => {
    page("viewer", {
      "GET /operations/{operationId}": {
        status: 404,
        body: { code: "OperationNotFound", message: "Operation op-00000000000000000001 not found.", requestId: "req-42" },
      },
    });
    expect(await screen.findByText(/Operation op-00000000000000000001 not found\. \(request id req-42\)/)).toBeInTheDocument();
  });
});
