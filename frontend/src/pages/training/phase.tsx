/** A job's phase and its restarts against the budget, as the job list and the job detail show them. */
import type { Schemas } from "../../api/client";
import { Status } from "../../components/status";

type Phase = Schemas["JobPhase"];

export const TERMINAL_PHASES: ReadonlySet<Phase> = new Set(["Succeeded", "Failed"]);

export function JobPhase({ phase }: { phase: Phase }) {
  return <Status value={phase} />;
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
