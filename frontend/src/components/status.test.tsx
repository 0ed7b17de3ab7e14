import { render, screen } from "@testing-library/react";
import { readFileSync } from "node:fs";
import type { Schemas } from "../api/client";
import { ClusterStatus, Status, knownStatusType, statusType } from "./status";

const SNAPSHOT = "../tests/contract/openapi.snapshot.json";

/** Every enum the API names a status, state or phase: whole schemas (`ClusterStatus`) and properties (`state`). */
function statusEnums(): Map<string, string[]> {
  const schemas: Record<string, { enum?: string[]; properties?: Record<string, { enum?: string[] }> }> = JSON.parse(
    readFileSync(SNAPSHOT, "utf8"),
  ).components.schemas;
  const found = new Map<string, string[]>();
  for (const [name, schema] of Object.entries(schemas)) {
    if (schema.enum && /(Status|State|Phase)$/.test(name)) found.set(name, schema.enum);
    for (const [property, definition] of Object.entries(schema.properties ?? {})) {
      if (definition.enum && /^(status|state|phase)$/.test(property)) found.set(`${name}.${property}`, definition.enum);
    }
  }
  return found;
}

// Words the API passes through as free text: SageMaker's instance group and node statuses, EKS add-on statuses and
// HyperPod's node-health-status label (reference/aws-facts.md).
const PASSED_THROUGH = {
  instanceGroup: ["InService", "Creating", "Updating", "Failed", "Degraded", "SystemUpdating", "Deleting"],
  node: ["Running", "Failure", "Pending", "ShuttingDown", "SystemUpdating", "DeepHealthCheckInProgress", "NotFound"],
  addon: ["CREATING", "ACTIVE", "CREATE_FAILED", "UPDATING", "DELETING", "DELETE_FAILED", "DEGRADED", "UPDATE_FAILED"],
  health: ["Schedulable", "Unschedulable", "UnschedulablePendingReboot", "UnschedulablePendingReplacement", "Unknown"],
};

function indicator(container: HTMLElement): string | undefined {
  const icon = container.querySelector('[class*="status-"]');
  return /status-([a-z-]+)/.exec(icon?.className ?? "")?.[1];
}

describe("the status vocabulary", () => {
  it("maps every status, state and phase enum of the OpenAPI document", () => {
    const enums = statusEnums();
    expect([...enums.keys()]).toEqual(expect.arrayContaining(["ClusterStatus", "OperationStatus", "EndpointState", "JobPhase"]));
    const unmapped = [...enums].flatMap(([name, values]) => values.filter((value) => !knownStatusType(value)).map((value) => `${name}: ${value}`));
    expect(unmapped).toEqual([]);
  });

  it("maps every status word SageMaker, EKS and HyperPod pass through", () => {
    const unmapped = Object.values(PASSED_THROUGH)
      .flat()
      .filter((word) => !knownStatusType(word));
    expect(unmapped).toEqual([]);
  });

  it("reads words whatever their case", () => {
    expect(statusType("InService")).toBe("success");
    expect(statusType("INSERVICE")).toBe("success");
    expect(statusType("Pending")).toBe("pending");
    expect(statusType("running")).toBe("in-progress");
    expect(statusType("Running", null, "machine")).toBe("success");
  });

  it("shows the less settled of a word and its detail", () => {
    expect(statusType("enabled (CREATING)")).toBe("in-progress");
    expect(statusType("enabled (CREATE_FAILED)")).toBe("error");
    expect(statusType("disabled (DELETING)")).toBe("in-progress");
    expect(statusType("enabled (ACTIVE)")).toBe("success");
    expect(statusType("Pending", "Rebooting", "machine")).toBe("in-progress");
    expect(statusType("Running", "message", "machine")).toBe("success");
  });

  it("leaves an unknown word as information", () => {
    expect(statusType("Frobnicating")).toBe("info");
  });
});

describe("Status", () => {
  it("shows the API's word and marks failures as errors", () => {
    const { container } = render(<Status value="FAILED" />);
    expect(screen.getByText("FAILED")).toBeInTheDocument();
    expect(indicator(container)).toBe("error");
  });

  it("says UNKNOWN rather than nothing when the API sent no status", () => {
    render(<Status value={null} />);
    expect(screen.getByText("UNKNOWN")).toBeInTheDocument();
  });

  it("shows a detail beside the word", () => {
    const { container } = render(<Status value="Pending" detail="Rebooting" vocabulary="machine" />);
    expect(screen.getByText("Pending (Rebooting)")).toBeInTheDocument();
    expect(indicator(container)).toBe("in-progress");
  });
});

describe("ClusterStatus", () => {
  const cluster = (status: Schemas["OperationStatus"], failed?: { stage: string; number: number }, activeOperationId?: string) =>
    ({
      status: "ACTIVE",
      activeOperationId,
      lastOperation: { operationId: "op-1", kind: "create_cluster", status, failedStage: failed?.stage, failedStageNumber: failed?.number },
    }) as unknown as Schemas["ClusterView"];

  it("says a cluster whose create failed part-way is not well, though EKS is ACTIVE, and at which stage", () => {
    const { container } = render(<ClusterStatus cluster={cluster("FAILED", { stage: "hyperpod", number: 3 })} />);
    expect(screen.getByText("ACTIVE (create failed at stage 3: hyperpod)")).toBeInTheDocument();
    expect(indicator(container)).toBe("error");
  });

  it("shows a created cluster ACTIVE and green", () => {
    const { container } = render(<ClusterStatus cluster={cluster("SUCCEEDED")} />);
    expect(screen.getByText("ACTIVE")).toBeInTheDocument();
    expect(indicator(container)).toBe("success");
  });

  it("shows the status alone while a resume runs", () => {
    render(<ClusterStatus cluster={cluster("FAILED", { stage: "hyperpod", number: 3 }, "op-2")} />);
    expect(screen.getByText("ACTIVE")).toBeInTheDocument();
  });
});
