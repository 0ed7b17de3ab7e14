/**
 * One cluster: a header with its status and actions, the Overview tab, then the tabs registered in
 * `cluster/tabs.tsx`. The active tab is `?tab=`. Delete shows the API's plan before it is confirmed.
 */
import Button from "@cloudscape-design/components/button";
import Header from "@cloudscape-design/components/header";
import SpaceBetween from "@cloudscape-design/components/space-between";
import Spinner from "@cloudscape-design/components/spinner";
import Tabs from "@cloudscape-design/components/tabs";
import { Suspense, useState } from "react";
import { useNavigate, useParams, useSearchParams } from "react-router-dom";
import { unwrap } from "../api/client";
import { useApp } from "../app-context";
import { ErrorAlert } from "../components/ErrorAlert";
import { ClusterStatus } from "../components/status";
import { useResource } from "../hooks/useResource";
import type { Operation } from "../hooks/useOperation";
import { Overview } from "./cluster/Overview";
import { CLUSTER_TABS } from "./cluster/tabs";
import { usePlannedAction } from "./cluster/plan";
import { TAB_SCROLL_LABELS } from "../components/tabs";

export default function ClusterDetailPage() {
  const clusterTag = useParams().clusterTag ?? "";
  const { api, identity, notify } = useApp();
  const navigate = useNavigate();
  const [query, setQuery] = useSearchParams();
  const cluster = useResource(
    (signal) => unwrap(api.GET("/clusters/{clusterTag}", { params: { path: { clusterTag } }, signal })),
    [api, clusterTag],
  );
  const [startedOperationId, setStartedOperationId] = useState<string>();
  const planned = usePlannedAction((started) => {
    setStartedOperationId(started.operationId ?? undefined);
    cluster.reload();
  });
  const remove = () =>
    planned.start({
      header: `Delete cluster ${clusterTag}`,
      confirmLabel: "Delete cluster",
      typeToConfirm: clusterTag,
      plan: () => unwrap(api.DELETE("/clusters/{clusterTag}", { params: { path: { clusterTag }, query: { dryRun: true } } })),
      run: (confirmationToken) =>
        unwrap(api.DELETE("/clusters/{clusterTag}", { params: { path: { clusterTag }, query: { confirmationToken } } })),
    });
  // A finished or imported cluster whose reads answer ClusterAccessDenied: Ensure Access Entry again.
  const restoreAccess = () =>
    planned.start({
      header: `Restore Kubernetes access of ${clusterTag}`,
      confirmLabel: "Restore access",
      plan: () => unwrap(api.POST("/clusters/{clusterTag}/access", { params: { path: { clusterTag }, query: { dryRun: true } } })),
      run: () => unwrap(api.POST("/clusters/{clusterTag}/access", { params: { path: { clusterTag } } })),
    });
  const operationChanged = (operation: Operation) => {
    if (operation.kind === "delete_eks_cluster" && operation.status === "SUCCEEDED") {
      notify.success(`Cluster ${clusterTag} deleted.`);
      navigate("/clusters");
    } else {
      cluster.reload();
    }
  };

  if (!cluster.data) {
    return cluster.error ? <ErrorAlert error={cluster.error} header="The cluster could not be read" /> : <Spinner size="large" />;
  }
  const data = cluster.data;
  const tabs = [
    {
      id: "overview",
      label: "Overview",
      content: <Overview cluster={data} onOperationChange={operationChanged} startedOperationId={startedOperationId} />,
    },
    ...CLUSTER_TABS.map((tab) => ({
      id: tab.id,
      label: tab.label,
      content: (
        <Suspense fallback={<Spinner />}>
          <tab.component cluster={data} reload={cluster.reload} />
        </Suspense>
      ),
    })),
  ];
  return (
    <SpaceBetween size="m">
      <Header
        variant="h1"
        description={<ClusterStatus cluster={data} />}
        actions={
          <SpaceBetween size="xs" direction="horizontal">
            <Button iconName="refresh" ariaLabel="Refresh" onClick={cluster.reload} />
            {data.status === "ACTIVE" && identity.mayCall("POST /clusters/{clusterTag}/access") && (
              <Button onClick={restoreAccess}>Restore Kubernetes access</Button>
            )}
            {identity.mayCall("DELETE /clusters/{clusterTag}") && <Button onClick={remove}>Delete</Button>}
          </SpaceBetween>
        }
      >
        {data.clusterTag}
      </Header>
      <ErrorAlert error={cluster.error} header="The cluster could not be re-read" />
      <Tabs
        activeTabId={query.get("tab") ?? "overview"}
        onChange={({ detail }) => setQuery(detail.activeTabId === "overview" ? {} : { tab: detail.activeTabId })}
        tabs={tabs}
        i18nStrings={TAB_SCROLL_LABELS}
      />
      {planned.modal}
    </SpaceBetween>
  );
}
