/**
 * A workload's team and priority (task governance): the cluster's teams (their compute quotas) and the scheduler
 * policy's priority classes, as GET /clusters/{clusterTag}/teams lists them. "No team" runs the workload in the
 * cluster's namespace; a priority needs a team, so choosing another team clears it. The job and deploy forms both
 * place their workload with it; `teamFields` is what the request body carries of the choice.
 */
import ColumnLayout from "@cloudscape-design/components/column-layout";
import FormField from "@cloudscape-design/components/form-field";
import Select from "@cloudscape-design/components/select";
import { unwrap } from "../api/client";
import { useApp } from "../app-context";
import { useResource } from "../hooks/useResource";

export interface TeamChoice {
  /** Empty: no team. */
  team: string;
  /** Empty: the team's default order. */
  priority: string;
}

export const NO_TEAM: TeamChoice = { team: "", priority: "" };

/** The request's `team` and `priority`, only those chosen. */
export function teamFields(choice: TeamChoice): { team?: string; priority?: string } {
  if (!choice.team) return {};
  return { team: choice.team, ...(choice.priority ? { priority: choice.priority } : {}) };
}

export function TeamPicker({ clusterTag, value, onChange }: { clusterTag: string; value: TeamChoice; onChange: (choice: TeamChoice) => void }) {
  const { api } = useApp();
  const teams = useResource(
    (signal) => unwrap(api.GET("/clusters/{clusterTag}/teams", { params: { path: { clusterTag } }, signal })),
    [api, clusterTag],
  );
  const teamOptions = [
    { value: "", label: "No team", description: "The cluster's own namespace" },
    ...(teams.data?.teams ?? []).map((team) => ({ value: team.team, label: team.team, description: team.namespace })),
  ];
  const priorityOptions = [
    { value: "", label: "No priority" },
    ...(teams.data?.schedulerPolicy?.priorityClasses ?? []).map((priority) => ({
      value: priority.name,
      label: priority.name,
      description: `weight ${priority.weight}`,
    })),
  ];
  return (
    <ColumnLayout columns={2}>
      <FormField
        label="Team"
        description="Runs in the team's namespace, queued against its compute quota."
        errorText={teams.error ? "The cluster's teams could not be read." : undefined}
      >
        <Select
          ariaLabel="Team"
          statusType={teams.loading ? "loading" : "finished"}
          selectedOption={teamOptions.find((option) => option.value === value.team) ?? teamOptions[0]}
          options={teamOptions}
          onChange={({ detail }) => onChange({ team: detail.selectedOption.value ?? "", priority: "" })}
        />
      </FormField>
      <FormField label="Priority" description="A priority class of the cluster's scheduler policy; needs a team.">
        <Select
          ariaLabel="Priority"
          disabled={!value.team}
          selectedOption={priorityOptions.find((option) => option.value === value.priority) ?? priorityOptions[0]}
          options={priorityOptions}
          onChange={({ detail }) => onChange({ ...value, priority: detail.selectedOption.value ?? "" })}
        />
      </FormField>
    </ColumnLayout>
  );
}
