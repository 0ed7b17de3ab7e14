/**
 * Resuming an operation whose start needed a confirmation token (`destructive`: a delete, a replace, a scale-down…)
 * asks for one again: the API's plan of what resuming deletes, terminates or restarts now, then the resume with that
 * plan's token. Any other operation is resumed at once by its page.
 */
import { unwrap, type ApiClient } from "../../api/client";
import type { PlannedAction } from "../cluster/plan";

export function resumePlan(api: ApiClient, operationId: string): PlannedAction {
  const path = { operationId };
  return {
    header: `Resume ${operationId}`,
    confirmLabel: "Resume",
    plan: () => unwrap(api.POST("/operations/{operationId}/resume", { params: { path, query: { dryRun: true } } })),
    run: (confirmationToken) =>
      unwrap(api.POST("/operations/{operationId}/resume", { params: { path, query: { confirmationToken } } })),
  };
}
