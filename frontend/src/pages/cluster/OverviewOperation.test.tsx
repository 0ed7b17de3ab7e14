import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { vi } from "vitest";
import { LONG_POLL_SECONDS } from "../../api/operations";
import type { Operation } from "../../hooks/useOperation";
import { fakeApi, renderPage, type Call } from "../../test/fakeApi";
import { OverviewOperation } from "./OverviewOperation";

// A page's first Cloudscape render can take seconds on a busy machine.

type StageFields = Partial<Operation["stages"][number]>;

function operation(status: Operation["status"], stages: StageFields[], extra: Partial<Operation> = {}): Operation {
  return {
    operationId: "op-1",
    kind: "create_cluster",
    target: "demo",
    incarnation: "inc-1",
    destructive: false,
    status,
    stages: stages.map((stage) => ({ name: "eks", status: "PENDING", ...stage })),
    actor: "sandbox-admin",
    createdAt: "2026-01-01T10:00:00Z",
    updatedAt: "2026-01-01T10:05:00Z",
    attempt: 1,
    attempts: [],
    statusTool: "operation_wait",
    ...extra,
  };
}

function stageRow(name: string): HTMLElement {
  const table = screen.getByRole("table", { name: "Stages" });
  return within(table)
    .getAllByRole("row")
    .find((row) => within(row).queryByText(name, { exact: true }) !== null)!;
}

describe("the operation progress", { timeout: 30_000 }, () => {
  it("updates each stage from the long poll without a reload and says once when the operation settles", async () => {
    const running = operation("RUNNING", [
      { name: "eks", status: "RUNNING", startedAt: "2026-01-01T10:00:00Z" },
      { name: "storage", status: "PENDING" },
    ]);
    const done = operation("SUCCEEDED", [
      { name: "eks", status: "SUCCEEDED", startedAt: "2026-01-01T10:00:00Z", endedAt: "2026-01-01T10:04:00Z" },
      { name: "storage", status: "SUCCEEDED", startedAt: "2026-01-01T10:04:00Z", endedAt: "2026-01-01T10:05:00Z" },
    ]);
    const waits: Call[] = [];
    let release: () => void = () => undefined;
    const { api } = fakeApi({
      "GET /operations/{operationId}": running,
      "GET /operations/{operationId}/wait": (call: Call) => {
        waits.push(call);
        return new Promise((resolve) => (release = () => resolve(done)));
      },
    });
    const onChange = vi.fn();
    const element = <OverviewOperation operationId="op-1" onChange={onChange} />;
    render(renderPage({ api, role: "admin", route: "/", url: "/", element }));

    await waitFor(() => expect(within(stageRow("eks")).getByText("RUNNING")).toBeInTheDocument());
    expect(within(stageRow("storage")).getByText("PENDING")).toBeInTheDocument();
    await waitFor(() => expect(waits).toHaveLength(1));
    expect([waits[0].pathParams, waits[0].query]).toEqual([{ operationId: "op-1" }, { timeoutSeconds: LONG_POLL_SECONDS }]);
    expect(onChange).not.toHaveBeenCalled();

    release();
    await waitFor(() => expect(within(stageRow("storage")).getByText("SUCCEEDED")).toBeInTheDocument());
    expect(within(stageRow("eks")).getByText(new Date("2026-01-01T10:04:00Z").toLocaleString())).toBeInTheDocument();
    expect(screen.getByText("2 of 2 stages succeeded")).toBeInTheDocument();
    expect(onChange).toHaveBeenCalledTimes(1);
    expect(onChange).toHaveBeenCalledWith(done);
  });

  it("shows the failed step and resumes from the page, then follows the resumed run", async () => {
    const failed = operation("FAILED", [{ name: "hyperpod", status: "FAILED" }], {
      error: { code: "SandboxFaultInjected", message: "Fault injected", step: "Create HyperPod Cluster" },
    });
    const resumed = operation("RUNNING", [{ name: "hyperpod", status: "RUNNING" }], { attempt: 2 });
    let resumedYet = false;
    const { api, calls } = fakeApi({
      "GET /operations/{operationId}": () => (resumedYet ? resumed : failed),
      "POST /operations/{operationId}/resume": () => {
        resumedYet = true;
        return { operationId: "op-1", status: "RUNNING", stages: ["hyperpod"], statusTool: "operation_wait", operation: resumed };
      },
      "GET /operations/{operationId}/wait": () => new Promise(() => undefined),
    });
    const onChange = vi.fn();
    const element = <OverviewOperation operationId="op-1" onChange={onChange} />;
    render(renderPage({ api, role: "admin", route: "/", url: "/", element }));

    expect(await screen.findByText('Failed at step "Create HyperPod Cluster": SandboxFaultInjected')).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Cancel operation" })).toBeNull();
    fireEvent.click(screen.getByRole("button", { name: "Resume" }));

    await waitFor(() => expect(within(stageRow("hyperpod")).getByText("RUNNING")).toBeInTheDocument());
    expect(calls.filter((call) => call.method === "POST").map((call) => call.path)).toEqual(["/operations/{operationId}/resume"]);
    expect(screen.queryByText(/Failed at step/)).toBeNull();
    expect(screen.getByRole("button", { name: "Cancel operation" })).toBeInTheDocument();
    expect(onChange).toHaveBeenCalledWith(resumed);
  });

  it("offers a viewer neither resume nor cancel", async () => {
    const failed = operation("FAILED", [{ name: "eks", status: "FAILED" }], { error: { code: "Boom", message: "boom" } });
    const { api } = fakeApi({ "GET /operations/{operationId}": failed });
    const element = <OverviewOperation operationId="op-1" onChange={() => undefined} />;
    render(renderPage({ api, role: "viewer", route: "/", url: "/", element }));
    expect(await screen.findByText("Failed: Boom")).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Resume" })).toBeNull();
  });
});
