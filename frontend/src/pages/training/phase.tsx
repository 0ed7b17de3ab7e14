/** A job's phase and its restarts against the budget, as the job list and the job detail show them. */
import Badge from "@cloudscape-design/components/badge";
import Box from "@cloudscape-design/components/box";
import SpaceBetween from "@cloudscape-design/components/space-between";
import type { Schemas } from "../../api/client";
import { Status } from "../../components/status";

type Phase = Schemas["JobPhase"];

export const TERMINAL_PHASES: ReadonlySet<Phase> = new Set(["Succeeded", "Failed"]);

/** The phase; a job Kueue holds (task governance) shows a Queued badge with why it waits. */
export function JobPhase({ phase, waitingReason }: { phase: Phase; waitingReason?: string | null }) {
  if (phase !== "Queued") return <Status value={phase} />;
  return (
    <SpaceBetween size="xxs">
      <Badge color="blue">Queued</Badge>
      {waitingReason && <Box variant="small">{waitingReason}</Box>}
    </SpaceBetween>
  );
}

/** "1 of 3 in place, 0 of 1 full": restarts used against what the run policy allows; "-" for a Ray job (KubeRay has
 * no HyperPod recovery budget). */
export function restartsText(budget: Schemas["RestartBudget"] | null | undefined): string {
  if (!budget) return "-";
  return (
    `${budget.restarts} of ${budget.restartsBeforeFullJobRestart} in place, ` +
    `${budget.fullJobRestarts} of ${budget.maxFullJobRestarts} full`
  );
}
