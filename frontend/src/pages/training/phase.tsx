/** A job's phase and its restarts against the budget, as the job list and the job detail show them. */
import type { Schemas } from "../../api/client";
import { QueueStatus } from "../../components/status";

type Phase = Schemas["JobPhase"];

export const TERMINAL_PHASES: ReadonlySet<Phase> = new Set(["Succeeded", "Failed"]);

/** The phase; a job Kueue holds (task governance) shows a Queued badge with why it waits. */
export function JobPhase({ phase, waitingReason }: { phase: Phase; waitingReason?: string | null }) {
  return <QueueStatus value={phase} waitingReason={waitingReason} />;
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
