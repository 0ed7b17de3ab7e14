/**
 * One training job (`/clusters/{tag}/jobs/{jobName}`): its phase, restarts used against the budget, pods with
 * node and status, the last events, and the live log of one pod (`?pod=`, followed by `useJobLogs` while the job
 * runs). The detail is read again every 2 s until the job ends. Delete (operator) goes through the API's plan and
 * its confirmation token.
 */
import Box from "@cloudscape-design/components/box";
import Button from "@cloudscape-design/components/button";
import Container from "@cloudscape-design/components/container";
import Header from "@cloudscape-design/components/header";
import KeyValuePairs from "@cloudscape-design/components/key-value-pairs";
import Select from "@cloudscape-design/components/select";
import SpaceBetween from "@cloudscape-design/components/space-between";
import Spinner from "@cloudscape-design/components/spinner";
import StatusIndicator from "@cloudscape-design/components/status-indicator";
import Table from "@cloudscape-design/components/table";
import { useEffect, useRef } from "react";
import { useNavigate, useParams } from "react-router-dom";
import { unwrap, type Schemas } from "../../api/client";
import { useApp } from "../../app-context";
import { ErrorAlert } from "../../components/ErrorAlert";
import { useResource } from "../../hooks/useResource";
import { usePlannedAction } from "../cluster/plan";
import { useQueryParam } from "../cluster/query";
import { jobPath } from "./paths";
import { JobPhase, restartsText, TERMINAL_PHASES } from "./phase";
import { LOG_POLL_MS, useJobLogs } from "./useJobLogs";

type Job = Schemas["JobDetail"];

export default function JobDetailPage() {
  const params = useParams();
  const clusterTag = params.clusterTag ?? "";
  const jobName = params.jobName ?? "";
  const { api, identity } = useApp();
  const navigate = useNavigate();
  const job = useResource(
    (signal) => unwrap(api.GET("/clusters/{clusterTag}/jobs/{jobName}", { params: { path: { clusterTag, jobName } }, signal })),
    [api, clusterTag, jobName],
  );
  const running = job.data !== undefined && !TERMINAL_PHASES.has(job.data.phase);
  const { reload } = job;
  useEffect(() => {
    if (!running) return;
    const timer = setTimeout(reload, LOG_POLL_MS);
    return () => clearTimeout(timer);
  }, [running, job.data, reload]);
  const planned = usePlannedAction(() => navigate(jobPath(clusterTag)));
  const path = { clusterTag, jobName };
  const remove = () =>
    planned.start({
      header: `Delete job ${jobName}`,
      confirmLabel: "Delete job",
      plan: () => unwrap(api.DELETE("/clusters/{clusterTag}/jobs/{jobName}", { params: { path, query: { dryRun: true } } })),
      run: (confirmationToken) => unwrap(api.DELETE("/clusters/{clusterTag}/jobs/{jobName}", { params: { path, query: { confirmationToken } } })),
    });

  if (!job.data) return job.error ? <ErrorAlert error={job.error} header="The job could not be read" /> : <Spinner size="large" />;
  const data = job.data;
  return (
    <SpaceBetween size="m">
      <Header
        variant="h1"
        description={<JobPhase phase={data.phase} />}
        actions={
          <SpaceBetween size="xs" direction="horizontal">
            <Button iconName="refresh" ariaLabel="Refresh job" onClick={job.reload} />
            {identity.mayCall("DELETE /clusters/{clusterTag}/jobs/{jobName}") && <Button onClick={remove}>Delete</Button>}
          </SpaceBetween>
        }
      >
        {data.name}
      </Header>
      <ErrorAlert error={job.error} header="The job could not be re-read" />
      <Container header={<Header variant="h2">Job</Header>}>
        <KeyValuePairs
          columns={4}
          items={[
            { label: "Phase", value: <JobPhase phase={data.phase} waitingReason={data.waitingReason} /> },
            { label: "Kind", value: data.kind },
            { label: "Nodes × GPUs per node", value: `${data.nodes} × ${data.gpusPerNode}` },
            { label: "Restarts used", value: restartsText(data.restartBudget) },
            { label: "Job retries allowed", value: data.restartBudget?.jobMaxRetryCount ?? "-" },
            { label: "Image", value: data.image ?? "-" },
            { label: "Namespace", value: data.namespace },
            { label: "Created", value: data.createdAt ? new Date(data.createdAt).toLocaleString() : "-" },
          ]}
        />
      </Container>
      <Table
        header={<Header variant="h2" counter={`(${data.pods.length})`}>Pods</Header>}
        items={data.pods}
        trackBy="name"
        empty={<Box textAlign="center">No pod yet.</Box>}
        columnDefinitions={[
          { id: "name", header: "Pod", cell: (pod) => pod.name },
          { id: "node", header: "Node", cell: (pod) => pod.node ?? "not scheduled" },
          { id: "phase", header: "Status", cell: (pod) => pod.phase },
          { id: "restarts", header: "Restarts", cell: (pod) => pod.restarts },
        ]}
      />
      <Logs clusterTag={clusterTag} job={data} follow={running} />
      <Table
        header={<Header variant="h2" description="Newest last.">Last events</Header>}
        items={data.events}
        empty={<Box textAlign="center">No event.</Box>}
        columnDefinitions={[
          { id: "at", header: "At", cell: (event) => (event.at ? new Date(event.at).toLocaleString() : "-") },
          { id: "type", header: "Type", cell: (event) => event.type ?? "-" },
          { id: "reason", header: "Reason", cell: (event) => event.reason ?? "-" },
          { id: "message", header: "Message", cell: (event) => event.message ?? "-" },
        ]}
      />
      {planned.modal}
    </SpaceBetween>
  );
}

function Logs({ clusterTag, job, follow }: { clusterTag: string; job: Job; follow: boolean }) {
  const [pod, setPod] = useQueryParam("pod");
  const { logs, error } = useJobLogs(clusterTag, job.name, { pod: pod ?? undefined, follow });
  const view = useRef<HTMLPreElement>(null);
  useEffect(() => {
    // A followed log stays scrolled to its newest line.
    if (follow && view.current) view.current.scrollTop = view.current.scrollHeight;
  }, [follow, logs]);
  const pods = logs?.pods.length ? logs.pods : job.pods.map((item) => item.name);
  const shown = pod ?? logs?.pod ?? "";
  return (
    <Container
      header={
        <Header
          variant="h2"
          description={follow ? <StatusIndicator type="loading">Following</StatusIndicator> : "The job has ended."}
          actions={
            <Select
              ariaLabel="Pod"
              placeholder="No pod yet"
              selectedOption={shown ? { value: shown } : null}
              options={pods.map((value) => ({ value }))}
              onChange={({ detail }) => setPod(detail.selectedOption.value ?? null)}
            />
          }
        >
          Logs
        </Header>
      }
    >
      <SpaceBetween size="s">
        <ErrorAlert error={error} header="The log could not be read" />
        {logs && logs.lines.length > 0 ? (
          <pre ref={view} aria-label="Log lines" tabIndex={0} style={{ maxHeight: 480, overflow: "auto", margin: 0, whiteSpace: "pre-wrap" }}>
            {logs.lines.join("\n")}
          </pre>
        ) : (
          <Box color="text-status-inactive">No log line yet.</Box>
        )}
      </SpaceBetween>
    </Container>
  );
}
