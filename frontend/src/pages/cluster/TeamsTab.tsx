/**
 * Teams tab (task governance): each team's compute quota, what its jobs use now and which wait (with Kueue's
 * reason), its namespace and Kueue queue, the cluster's capacity per
 * instance type with what the quotas guarantee, its scheduler policy (`SchedulerPolicyPanel`), a form that creates a
 * team (`?action=create-team`) or changes the chosen one's quota (`?action=change-team`), and the delete of a team's
 * quota; a change and a delete go through the API's plan and confirmation. Each team's namespace says whether it is
 * ready for workloads (the cluster's claims and the jobs' identity copied into it) and what it lacks; one that is not
 * can be prepared again (an operation). Where the API could not read a team's queue (the cluster's RBAC refusing Kueue's
 * kinds, or its Kubernetes API not reachable), its use and queued jobs read "Unknown" with the API's reason.
 */
import Box from "@cloudscape-design/components/box";
import Button from "@cloudscape-design/components/button";
import Container from "@cloudscape-design/components/container";
import Form from "@cloudscape-design/components/form";
import FormField from "@cloudscape-design/components/form-field";
import Header from "@cloudscape-design/components/header";
import Input from "@cloudscape-design/components/input";
import Select from "@cloudscape-design/components/select";
import StatusIndicator from "@cloudscape-design/components/status-indicator";
import SpaceBetween from "@cloudscape-design/components/space-between";
import Table from "@cloudscape-design/components/table";
import { useState } from "react";
import { unwrap, type Schemas } from "../../api/client";
import { useApp } from "../../app-context";
import { ErrorAlert } from "../../components/ErrorAlert";
import { useResource } from "../../hooks/useResource";
import { OperationLink, sent, usePlannedAction } from "./plan";
import { SchedulerPolicyPanel } from "./SchedulerPolicyPanel";
import { useQueryParam } from "./query";
import type { ClusterTabProps } from "./tabs";

type Team = Schemas["TeamView"];
type Request = Schemas["CreateTeamQuotaRequest"];
type Change = Schemas["UpdateTeamQuotaRequest"];

const SHARING = [
  { value: "LendAndBorrow", label: "Lend and borrow idle capacity" },
  { value: "Lend", label: "Lend only" },
  { value: "DontLend", label: "Neither lend nor borrow" },
];

/** Whether the team's namespace is ready for workloads, what it lacks, or the operation preparing it. */
export function NamespaceReadiness({ team }: { team: Team }) {
  if (team.namespaceOperationId) {
    return (
      <StatusIndicator type="in-progress">
        Preparing: <OperationLink operationId={team.namespaceOperationId} />
      </StatusIndicator>
    );
  }
  if (team.namespaceReady === true) return <StatusIndicator type="success">Ready</StatusIndicator>;
  if (team.namespaceReady === false) {
    return <StatusIndicator type="warning">Lacks {(team.namespaceMissing ?? []).join("; ")}</StatusIndicator>;
  }
  return <StatusIndicator type="stopped">Unknown (Kubernetes API not reachable)</StatusIndicator>;
}

/** Why the team's queue was not read, in place of its use and queued jobs. */
function QueueUnknown({ reason }: { reason: string }) {
  return <StatusIndicator type="stopped">Unknown: {reason}</StatusIndicator>;
}

/** "1 nvidia.com/gpu on ml.g5.xlarge (1 borrowed)": the accelerators its admitted jobs use now. */
function inUse(team: Team): string {
  const used = (team.inUse ?? []).filter((use) => /gpu|neuron/.test(use.resource));
  const text = used.map((use) => `${use.inUse} ${use.resource} on ${use.instanceType}${use.borrowed !== "0" ? ` (${use.borrowed} borrowed)` : ""}`);
  return text.join("; ") || "none";
}

/** Its jobs and model servers' pods waiting for quota, each with why (Kueue's words). */
function Queued({ team }: { team: Team }) {
  if (team.queueUnknown) return <QueueUnknown reason={team.queueUnknown} />;
  const queued = team.queued ?? [];
  if (queued.length === 0) return <>0</>;
  return (
    <SpaceBetween size="xxs">
      {queued.map((work) => (
        <Box key={work.name} variant="small">
          <strong>{work.name}</strong>: {work.message ?? work.reason ?? "waiting for Kueue"}
        </Box>
      ))}
    </SpaceBetween>
  );
}

function allocations(team: Team): string {
  return team.allocations.map((allocation) => `${allocation.count} × ${allocation.instanceType}`).join(", ");
}

export default function TeamsTab({ cluster }: ClusterTabProps) {
  const { api, identity } = useApp();
  const clusterTag = cluster.clusterTag;
  const [action, setAction] = useQueryParam("action");
  const [selected, setSelected] = useState<Team[]>([]);
  const teams = useResource((signal) => unwrap(api.GET("/clusters/{clusterTag}/teams", { params: { path: { clusterTag } }, signal })), [api, clusterTag]);
  const planned = usePlannedAction(() => teams.reload());
  const [createError, setCreateError] = useState<unknown>();
  const [preparing, setPreparing] = useState<{ team: string; operationId?: string; error?: unknown }>();
  const mayCreate = identity.mayCall("POST /clusters/{clusterTag}/teams");
  const mayDelete = identity.mayCall("DELETE /clusters/{clusterTag}/teams/{team}");
  const mayChange = identity.mayCall("PATCH /clusters/{clusterTag}/teams/{team}");
  const mayPrepare = identity.mayCall("POST /clusters/{clusterTag}/teams/{team}/namespace");

  const prepare = async (team: string) => {
    try {
      const operation = await unwrap(api.POST("/clusters/{clusterTag}/teams/{team}/namespace", { params: { path: { clusterTag, team } } }));
      setPreparing({ team, operationId: operation.operationId });
      teams.reload();
    } catch (error) {
      setPreparing({ team, error });
    }
  };

  const remove = (team: string) => {
    const call = (query: { dryRun?: boolean; confirmationToken?: string }) =>
      unwrap(api.DELETE("/clusters/{clusterTag}/teams/{team}", { params: { path: { clusterTag, team }, query } }));
    planned.start({
      header: `Delete team ${team}`,
      confirmLabel: "Delete quota",
      // dryRun answers the plan (the 200 is a plan or, once confirmed, the result).
      plan: () => call({ dryRun: true }) as Promise<Schemas["Plan"]>,
      run: async (confirmationToken) => {
        await call({ confirmationToken });
        setSelected([]);
        return { message: `team ${team}'s compute quota is being deleted.` };
      },
    });
  };
  const change = (team: string, body: Request) => {
    const sentChange = sent<Change>({ allocations: body.allocations, ...(body.sharing ? { sharing: body.sharing } : {}) });
    const call = (query: { dryRun?: boolean; confirmationToken?: string }) =>
      unwrap(api.PATCH("/clusters/{clusterTag}/teams/{team}", { params: { path: { clusterTag, team }, query }, body: sentChange }));
    planned.start({
      header: `Change team ${team}'s quota`,
      confirmLabel: "Change quota",
      // dryRun answers the plan (the 200 is a plan or, once confirmed, the result).
      plan: () => call({ dryRun: true }) as Promise<Schemas["Plan"]>,
      run: async (confirmationToken) => {
        await call({ confirmationToken });
        setAction(null);
        return { message: `team ${team}'s compute quota is being changed.` };
      },
    });
  };
  const create = async (body: Request) => {
    setCreateError(undefined);
    try {
      await unwrap(api.POST("/clusters/{clusterTag}/teams", { params: { path: { clusterTag } }, body }));
      setAction(null);
      teams.reload();
    } catch (error) {
      setCreateError(error);
    }
  };

  const capacity = teams.data?.capacity ?? {};
  const allocated = teams.data?.allocated ?? {};
  const [chosen] = selected;
  return (
    <SpaceBetween size="m">
      <ErrorAlert error={teams.error} header="The teams could not be read" />
      <ErrorAlert error={preparing?.error} header={`Team ${preparing?.team}'s namespace could not be prepared`} />
      {preparing?.operationId && (
        <Box>
          Preparing team {preparing.team}'s namespace: operation <OperationLink operationId={preparing.operationId} />.
        </Box>
      )}
      <Table<Team>
        loading={teams.loading}
        loadingText="Reading the compute quotas"
        items={teams.data?.teams ?? []}
        selectionType={mayDelete || mayChange ? "single" : undefined}
        selectedItems={selected}
        onSelectionChange={({ detail }) => setSelected(detail.selectedItems)}
        trackBy="team"
        ariaLabels={{ selectionGroupLabel: "Team selection", itemSelectionLabel: (_, team) => `Select ${team.team}` }}
        header={
          <Header
            variant="h2"
            description={`Capacity: ${Object.entries(capacity)
              .map(([type, count]) => `${allocated[type] ?? 0} of ${count} × ${type} guaranteed`)
              .join("; ") || "no instance groups"}`}
            actions={
              <SpaceBetween direction="horizontal" size="xs">
                {mayPrepare && (
                  <Button disabled={!chosen || chosen.namespaceReady === true} onClick={() => chosen && void prepare(chosen.team)}>
                    Prepare namespace
                  </Button>
                )}
                {mayChange && (
                  <Button disabled={!chosen} onClick={() => setAction("change-team")}>
                    Change quota
                  </Button>
                )}
                {mayDelete && (
                  <Button disabled={!chosen} onClick={() => chosen && remove(chosen.team)}>
                    Delete
                  </Button>
                )}
                {mayCreate && (
                  <Button onClick={() => setAction("create-team")} disabled={action === "create-team"}>
                    Create team
                  </Button>
                )}
              </SpaceBetween>
            }
          >
            Teams
          </Header>
        }
        columnDefinitions={[
          { id: "team", header: "Team", cell: (item) => item.team },
          { id: "quota", header: "Quota", cell: allocations },
          { id: "inUse", header: "In use", cell: (item) => (item.queueUnknown ? <QueueUnknown reason={item.queueUnknown} /> : inUse(item)) },
          { id: "queued", header: "Queued", cell: (item) => <Queued team={item} /> },
          { id: "sharing", header: "Sharing", cell: (item) => (item.borrowLimit ? `${item.sharing} (borrow ≤ ${item.borrowLimit}%)` : item.sharing) },
          { id: "queue", header: "Namespace / queue", cell: (item) => `${item.namespace} / ${item.localQueue}` },
          { id: "namespace", header: "Namespace readiness", cell: (item) => <NamespaceReadiness team={item} /> },
          { id: "status", header: "Status", cell: (item) => (item.active ? item.status : `${item.status} (disabled)`) },
        ]}
        empty={<Box textAlign="center">No team has a compute quota. Enable task governance on the Features tab, then create a team.</Box>}
      />
      {teams.data && <SchedulerPolicyPanel key={teams.data.schedulerPolicy?.version ?? 0} clusterTag={clusterTag} policy={teams.data.schedulerPolicy} onChanged={teams.reload} />}
      {mayCreate && action === "create-team" && (
        <TeamForm types={Object.keys(capacity)} error={createError} onCancel={() => setAction(null)} onCreate={(body) => void create(body)} />
      )}
      {mayChange && action === "change-team" && chosen && (
        <TeamForm key={chosen.team} types={Object.keys(capacity)} editing={chosen} error={undefined} onCancel={() => setAction(null)} onCreate={(body) => change(chosen.team, body)} />
      )}
      {planned.modal}
    </SpaceBetween>
  );
}

/** Creates a team, or (`editing`) changes the chosen team's quota: its name then stays. */
function TeamForm(props: { types: string[]; editing?: Team; error: unknown; onCancel: () => void; onCreate: (body: Request) => void }) {
  const { types, editing, error, onCancel, onCreate } = props;
  const [first] = editing?.allocations ?? [];
  const [team, setTeam] = useState(editing?.team ?? "");
  const [instanceType, setInstanceType] = useState(first?.instanceType ?? types[0] ?? "");
  const [count, setCount] = useState(String(first?.count ?? 1));
  const [sharing, setSharing] = useState<Request["sharing"]>(editing?.sharing ?? "LendAndBorrow");
  const label = editing ? "Review change" : "Create team";
  const body = sent<Request>({ team, allocations: [{ instanceType, count: Number(count) }], ...(sharing === "LendAndBorrow" && !editing ? {} : { sharing }) });
  return (
    <Container header={<Header variant="h2">{editing ? `Change team ${editing.team}'s quota` : "Create team"}</Header>}>
      <form onSubmit={(event) => event.preventDefault()}>
        <Form
          errorText={error ? <ErrorAlert error={error} /> : undefined}
          actions={
            <SpaceBetween direction="horizontal" size="xs">
              <Button variant="link" onClick={onCancel}>
                Cancel
              </Button>
              <Button variant="primary" onClick={() => onCreate(body)}>
                {label}
              </Button>
            </SpaceBetween>
          }
        >
          <SpaceBetween size="m">
            <FormField label="Team" description="Lowercase letters, digits and '-'; its jobs run in namespace hyperpod-ns-<team>.">
              <Input value={team} disabled={Boolean(editing)} onChange={({ detail }) => setTeam(detail.value)} />
            </FormField>
            <FormField label="Instance type">
              <Select
                selectedOption={{ value: instanceType, label: instanceType }}
                options={types.map((type) => ({ value: type, label: type }))}
                onChange={({ detail }) => setInstanceType(detail.selectedOption.value ?? "")}
              />
            </FormField>
            <FormField label="Instances guaranteed">
              <Input type="number" value={count} onChange={({ detail }) => setCount(detail.value)} />
            </FormField>
            <FormField label="Idle capacity">
              <Select
                selectedOption={SHARING.find((option) => option.value === sharing) ?? SHARING[0]}
                options={SHARING}
                onChange={({ detail }) => setSharing(detail.selectedOption.value as Request["sharing"])}
              />
            </FormField>
          </SpaceBetween>
        </Form>
      </form>
    </Container>
  );
}
