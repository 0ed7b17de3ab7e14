/**
 * Training (`/clusters/{tag}/jobs`): the cluster's jobs of every kind with phase, nodes, GPUs and restarts against the
 * budget (every page of `continue`), found by text and shown in pages, newest first; **Submit job** (`?action=submit`, operator) opens the job form, **Submit from a
 * recipe** (`?action=recipe`) a recipe's form. A submitted job opens its detail page.
 */
import { useCollection } from "@cloudscape-design/collection-hooks";
import Box from "@cloudscape-design/components/box";
import Button from "@cloudscape-design/components/button";
import Header from "@cloudscape-design/components/header";
import Pagination from "@cloudscape-design/components/pagination";
import SpaceBetween from "@cloudscape-design/components/space-between";
import Table from "@cloudscape-design/components/table";
import TextFilter from "@cloudscape-design/components/text-filter";
import { useState } from "react";
import { useNavigate, useParams } from "react-router-dom";
import { unwrap, type Schemas } from "../../api/client";
import { useApp } from "../../app-context";
import { ErrorAlert } from "../../components/ErrorAlert";
import { paginationLabels } from "../../components/labels";
import { RouterLink } from "../../components/links";
import { allPages, useResource } from "../../hooks/useResource";
import { useQueryParam } from "../cluster/query";
import { EMPTY_VALUES } from "./form";
import { JobForm } from "./JobForm";
import { jobPath } from "./paths";
import { JobPhase, restartsText } from "./phase";
import { SubmitFromRecipe } from "./recipes/SubmitFromRecipe";

type Job = Schemas["JobSummary"];

export default function JobsPage() {
  const clusterTag = useParams().clusterTag ?? "";
  const { api, identity } = useApp();
  const [action, setAction] = useQueryParam("action");
  const jobs = useResource(
    (signal) =>
      allPages<Job>(async (next) => {
        const page = await unwrap(
          api.GET("/clusters/{clusterTag}/jobs", { params: { path: { clusterTag }, query: { limit: 100, continue: next } }, signal }),
        );
        return { items: page.jobs, next: page.continue };
      }),
    [api, clusterTag],
  );
  const { items, collectionProps, filterProps, paginationProps, filteredItemsCount } = useCollection(jobs.data ?? [], {
    filtering: {
      empty: <Box textAlign="center">No training job yet.</Box>,
      noMatch: <Box textAlign="center">No job matches the filter.</Box>,
    },
    pagination: { pageSize: 20 },
    sorting: { defaultState: { sortingColumn: { sortingField: "createdAt" }, isDescending: true } },
  });
  const maySubmit = identity.mayCall("POST /clusters/{clusterTag}/jobs");
  const mayUseRecipes = identity.mayCall("POST /clusters/{clusterTag}/jobs/from-recipe");
  if (maySubmit && action === "submit") return <SubmitJob clusterTag={clusterTag} onCancel={() => setAction(null)} />;
  if (mayUseRecipes && action === "recipe") return <SubmitFromRecipe clusterTag={clusterTag} onCancel={() => setAction(null)} />;
  return (
    <SpaceBetween size="m">
      <ErrorAlert error={jobs.error} header="Jobs could not be listed" />
      <Table
        {...collectionProps}
        loading={jobs.loading}
        loadingText="Loading jobs"
        items={items}
        trackBy="name"
        variant="full-page"
        filter={<TextFilter {...filterProps} filteringPlaceholder="Find jobs" filteringAriaLabel="Find jobs" countText={`${filteredItemsCount ?? 0} matches`} />}
        pagination={<Pagination {...paginationProps} ariaLabels={paginationLabels("jobs")} />}
        header={
          <Header
            variant="awsui-h1-sticky"
            counter={jobs.data ? `(${jobs.data.length})` : undefined}
            description={`HyperPodPyTorchJob, RayJob and RayCluster jobs on cluster ${clusterTag}.`}
            actions={
              <SpaceBetween size="xs" direction="horizontal">
                <Button iconName="refresh" ariaLabel="Refresh jobs" onClick={jobs.reload} />
                {mayUseRecipes && <Button onClick={() => setAction("recipe")}>Submit from a recipe</Button>}
                {maySubmit && (
                  <Button variant="primary" onClick={() => setAction("submit")}>
                    Submit job
                  </Button>
                )}
              </SpaceBetween>
            }
          >
            Training jobs
          </Header>
        }
        columnDefinitions={[
          { id: "name", header: "Job", sortingField: "name", cell: (job) => <RouterLink href={jobPath(clusterTag, job.name)}>{job.name}</RouterLink> },
          { id: "kind", header: "Kind", sortingField: "kind", cell: (job) => job.kind },
          { id: "namespace", header: "Namespace", sortingField: "namespace", cell: (job) => job.namespace ?? "-" },
          { id: "phase", header: "Phase", sortingField: "phase", cell: (job) => <JobPhase phase={job.phase} waitingReason={job.waitingReason} /> },
          { id: "nodes", header: "Nodes", cell: (job) => job.nodes },
          { id: "gpus", header: "GPUs per node", cell: (job) => job.gpusPerNode },
          { id: "restarts", header: "Restarts / budget", cell: (job) => restartsText(job.restartBudget) },
          { id: "created", header: "Created", sortingField: "createdAt", cell: (job) => (job.createdAt ? new Date(job.createdAt).toLocaleString() : "-") },
        ]}
      />
    </SpaceBetween>
  );
}

function SubmitJob({ clusterTag, onCancel }: { clusterTag: string; onCancel: () => void }) {
  const { api, notify } = useApp();
  const navigate = useNavigate();
  const [submitting, setSubmitting] = useState(false);
  const [error, setError] = useState<unknown>();
  const submit = async (body: Schemas["SubmitJobRequest"]) => {
    setSubmitting(true);
    setError(undefined);
    try {
      const job = await unwrap(api.POST("/clusters/{clusterTag}/jobs", { params: { path: { clusterTag } }, body }));
      notify.success(`Job ${job.name} submitted.`);
      navigate(jobPath(clusterTag, job.name));
    } catch (reason) {
      setError(reason);
      setSubmitting(false);
    }
  };
  return (
    <SpaceBetween size="m">
      <Header variant="h1" description={`A training job on cluster ${clusterTag}, with the S3 claim at /s3.`}>
        Submit job
      </Header>
      <JobForm clusterTag={clusterTag} initial={EMPTY_VALUES} submitting={submitting} error={error} onSubmit={(body) => void submit(body)} onCancel={onCancel} />
    </SpaceBetween>
  );
}
