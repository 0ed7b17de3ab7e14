/**
 * Monitoring (`/clusters/{tag}/monitoring`): the overview the server aggregates over every node and pod, polled
 * every 10 s — GPUs used and available per instance group, node health, pods by phase, the pending pods and why,
 * the newest warnings (Kubernetes' Warning events and HyperPod's Warn/Error cluster events, merged), links to the observability dashboards when that feature is on and to the
 * cluster's Cost tab — and the cluster's pods a page at a time. The API holds no per-cluster alarms (the control
 * plane's CloudWatch alarms are its own, `infra/monitoring.py`), so none are shown here.
 */
import BarChart from "@cloudscape-design/components/bar-chart";
import Box from "@cloudscape-design/components/box";
import Button from "@cloudscape-design/components/button";
import ColumnLayout from "@cloudscape-design/components/column-layout";
import Container from "@cloudscape-design/components/container";
import Header from "@cloudscape-design/components/header";
import Link from "@cloudscape-design/components/link";
import PieChart from "@cloudscape-design/components/pie-chart";
import SpaceBetween from "@cloudscape-design/components/space-between";
import Table from "@cloudscape-design/components/table";
import { useEffect } from "react";
import { useParams } from "react-router-dom";
import { unwrap, type Schemas } from "../../api/client";
import { useApp } from "../../app-context";
import { ErrorAlert } from "../../components/ErrorAlert";
import { useResource } from "../../hooks/useResource";
import { RouterLink } from "../../components/links";
import { GPU_COLORS, gpuSeries, slices, type Overview } from "./charts";
import { PodsTable } from "./PodsTable";

export const POLL_MS = 10_000;

export default function MonitoringPage() {
  const clusterTag = useParams().clusterTag ?? "";
  const { api } = useApp();
  const overview = useResource(
    (signal) => unwrap(api.GET("/clusters/{clusterTag}/overview", { params: { path: { clusterTag } }, signal })),
    [api, clusterTag],
  );
  const { reload } = overview;
  useEffect(() => {
    const timer = setInterval(reload, POLL_MS);
    return () => clearInterval(timer);
  }, [reload]);
  const data = overview.data;
  return (
    <SpaceBetween size="l">
      <Header
        variant="h1"
        description={`Cluster ${clusterTag}, counted on the server over every node and pod; refreshed every ${POLL_MS / 1000} s.`}
        actions={<Button iconName="refresh" ariaLabel="Refresh the overview" loading={overview.loading} onClick={reload} />}
      >
        Monitoring
      </Header>
      <ErrorAlert error={overview.error} header="The overview could not be read" />
      {data && <Summary overview={data} />}
      {data && <Charts overview={data} />}
      {data && <Pending overview={data} />}
      {data && <Events overview={data} />}
      <PodsTable clusterTag={clusterTag} />
    </SpaceBetween>
  );
}

function Summary({ overview }: { overview: Overview }) {
  const links = overview.observability;
  return (
    <Container header={<Header variant="h2">Summary</Header>}>
      <ColumnLayout columns={5} variant="text-grid">
        <Figure label="Nodes" value={`${overview.nodesTotal}`} detail={`${overview.nodesUnhealthy} unhealthy`} />
        <Figure label="GPUs used" value={`${overview.gpus.used} of ${overview.gpus.allocatable}`} detail={`${overview.gpus.available} available`} />
        <Figure label="Pods" value={`${overview.podsTotal}`} detail={`${overview.podsByPhase.Pending ?? 0} pending`} />
        <div>
          <Box variant="awsui-key-label">Cost</Box>
          <RouterLink href={`/clusters/${encodeURIComponent(overview.clusterTag)}?tab=cost`}>Instance-hours and cost so far</RouterLink>
        </div>
        <div>
          <Box variant="awsui-key-label">Observability</Box>
          {links ? (
            <SpaceBetween size="xxs">
              <Link external href={links.prometheus}>
                {links.prometheusWorkspace ? `Prometheus workspace ${links.prometheusWorkspace}` : "Amazon Managed Prometheus"}
              </Link>
              {links.prometheusEndpoint && (
                <Box variant="code" fontSize="body-s">
                  {links.prometheusEndpoint}
                </Box>
              )}
              <Box color="text-body-secondary">{links.bringYourOwn}</Box>
              <Link external href={links.grafana}>Amazon Managed Grafana</Link>
              <Link external href={links.hyperPodConsole}>HyperPod cluster console</Link>
            </SpaceBetween>
          ) : (
            <Box color="text-status-inactive">Feature off (enable observability on the cluster's Features tab)</Box>
          )}
        </div>
      </ColumnLayout>
    </Container>
  );
}

function Figure({ label, value, detail }: { label: string; value: string; detail: string }) {
  return (
    <div>
      <Box variant="awsui-key-label">{label}</Box>
      <Box variant="awsui-value-large">{value}</Box>
      <Box color="text-body-secondary">{detail}</Box>
    </div>
  );
}

function Charts({ overview }: { overview: Overview }) {
  const gpus = gpuSeries(overview);
  return (
    <ColumnLayout columns={3}>
      <Container header={<Header variant="h2">GPUs per instance group</Header>}>
        <BarChart
          series={[
            { title: "Used", type: "bar", data: gpus.used, color: GPU_COLORS.used },
            { title: "Available", type: "bar", data: gpus.available, color: GPU_COLORS.available },
          ]}
          stackedBars
          xScaleType="categorical"
          xTitle="Instance group"
          yTitle="GPUs"
          height={200}
          hideFilter
          ariaLabel="GPUs used and available per instance group"
          empty={<Box textAlign="center">No instance group</Box>}
        />
      </Container>
      <Container header={<Header variant="h2">Node health</Header>}>
        <PieChart
          data={slices(overview.nodesByHealth)}
          variant="donut"
          innerMetricValue={`${overview.nodesTotal}`}
          innerMetricDescription="nodes"
          size="medium"
          hideFilter
          ariaLabel="Nodes by health"
          empty={<Box textAlign="center">No node</Box>}
        />
      </Container>
      <Container header={<Header variant="h2">Pods by phase</Header>}>
        <PieChart
          data={slices(overview.podsByPhase)}
          variant="donut"
          innerMetricValue={`${overview.podsTotal}`}
          innerMetricDescription="pods"
          size="medium"
          hideFilter
          ariaLabel="Pods by phase"
          empty={<Box textAlign="center">No pod</Box>}
        />
      </Container>
    </ColumnLayout>
  );
}

function Pending({ overview }: { overview: Overview }) {
  const reasons = Object.entries(overview.pendingByReason)
    .map(([reason, count]) => `${reason} ${count}`)
    .join(", ");
  return (
    <Table<Schemas["PendingPod"]>
      items={overview.pendingPods}
      trackBy={(pod) => `${pod.namespace}/${pod.name}`}
      variant="container"
      empty={<Box textAlign="center">No pod is pending.</Box>}
      header={
        <Header variant="h2" counter={`(${overview.podsByPhase.Pending ?? 0})`} description={reasons ? `By reason: ${reasons}. Oldest first.` : undefined}>
          Pending pods
        </Header>
      }
      columnDefinitions={[
        { id: "pod", header: "Pod", cell: (pod) => `${pod.namespace}/${pod.name}` },
        { id: "reason", header: "Reason", cell: (pod) => pod.reason },
        { id: "message", header: "Message", cell: (pod) => pod.message ?? "-" },
        { id: "since", header: "Created", cell: (pod) => (pod.createdAt ? new Date(pod.createdAt).toLocaleString() : "-") },
      ]}
    />
  );
}

function Events({ overview }: { overview: Overview }) {
  return (
    <Table<Schemas["WarningEvent"]>
      items={overview.events}
      trackBy={(event) => `${event.source}/${event.namespace}/${event.object}/${event.at}/${event.reason}`}
      variant="container"
      empty={<Box textAlign="center">No Warning event.</Box>}
      header={
        <Header variant="h2" counter={`(${overview.warningEventsTotal})`} description="Kubernetes' Warning events (counted) and HyperPod's Warn/Error cluster events, newest first.">
          Recent events
        </Header>
      }
      columnDefinitions={[
        { id: "at", header: "When", cell: (event) => (event.at ? new Date(event.at).toLocaleString() : "-") },
        { id: "source", header: "Source", cell: (event) => (event.source === "hyperpod" ? "HyperPod" : "Kubernetes") },
        { id: "object", header: "Object", cell: (event) => `${event.namespace ? `${event.namespace}/` : ""}${event.object}` },
        { id: "reason", header: "Reason", cell: (event) => event.reason ?? "-" },
        { id: "message", header: "Message", cell: (event) => event.message ?? "-" },
        { id: "count", header: "Count", cell: (event) => event.count },
      ]}
    />
  );
}
