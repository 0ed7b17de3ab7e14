/**
 * The cluster's pods a page at a time (`limit`/`continue` passed to Kubernetes), optionally only those of one phase
 * (`?phase=` in the URL). Going back re-reads the earlier page from the token that opened it.
 */
import Box from "@cloudscape-design/components/box";
import Header from "@cloudscape-design/components/header";
import Pagination from "@cloudscape-design/components/pagination";
import Select from "@cloudscape-design/components/select";
import Table from "@cloudscape-design/components/table";
import { useState } from "react";
import { unwrap, type Schemas } from "../../api/client";
import { useApp } from "../../app-context";
import { ErrorAlert } from "../../components/ErrorAlert";
import { useResource } from "../../hooks/useResource";
import { useQueryParam } from "../cluster/query";

export const PODS_PER_PAGE = 50;
const PHASES = ["Pending", "Running", "Succeeded", "Failed", "Unknown"] as const;
type Phase = (typeof PHASES)[number];
const ALL = { label: "Every phase", value: "" };

export function PodsTable({ clusterTag }: { clusterTag: string }) {
  const { api } = useApp();
  const [phaseParam, setPhase] = useQueryParam("phase");
  const phase = PHASES.find((known) => known === phaseParam);
  // The token that opened each page seen so far: tokens[0] is the first page's (none).
  const [tokens, setTokens] = useState<(string | undefined)[]>([undefined]);
  const [index, setIndex] = useState(0);
  const pods = useResource(
    (signal) =>
      unwrap(
        api.GET("/clusters/{clusterTag}/pods", {
          params: { path: { clusterTag }, query: { limit: PODS_PER_PAGE, continue: tokens[index], phase: phase as Phase | undefined } },
          signal,
        }),
      ),
    [api, clusterTag, phase, index, tokens[index]],
  );
  const next = pods.data?.continue ?? undefined;
  const choosePhase = (value: string) => {
    setTokens([undefined]);
    setIndex(0);
    setPhase(value || null);
  };
  return (
    <>
      <ErrorAlert error={pods.error} header="Pods could not be listed" />
      <Table<Schemas["PodView"]>
        loading={pods.loading}
        loadingText="Loading pods"
        items={pods.data?.pods ?? []}
        trackBy={(pod) => `${pod.namespace}/${pod.name}`}
        variant="container"
        empty={<Box textAlign="center">No pod{phase ? ` in phase ${phase}` : ""}.</Box>}
        header={
          <Header variant="h2" description={`${PODS_PER_PAGE} at a time, in Kubernetes' order (namespace, name).`}>
            Pods
          </Header>
        }
        filter={
          <Select
            selectedOption={phase ? { label: phase, value: phase } : ALL}
            options={[ALL, ...PHASES.map((value) => ({ label: value, value }))]}
            onChange={(event) => choosePhase(event.detail.selectedOption.value ?? "")}
            ariaLabel="Phase"
          />
        }
        pagination={
          <Pagination
            currentPageIndex={index + 1}
            pagesCount={next ? index + 2 : index + 1}
            openEnd={Boolean(next)}
            ariaLabels={{ nextPageLabel: "Next page of pods", previousPageLabel: "Previous page of pods", pageLabel: (page) => `Page ${page} of pods` }}
            onNextPageClick={() => {
              if (!next) return;
              setTokens((seen) => [...seen.slice(0, index + 1), next]);
              setIndex(index + 1);
            }}
            onPreviousPageClick={() => setIndex(Math.max(index - 1, 0))}
            onChange={(event) => {
              const wanted = event.detail.currentPageIndex - 1;
              if (wanted < tokens.length) setIndex(wanted);
            }}
          />
        }
        columnDefinitions={[
          { id: "namespace", header: "Namespace", cell: (pod) => pod.namespace },
          { id: "name", header: "Pod", cell: (pod) => pod.name },
          { id: "phase", header: "Phase", cell: (pod) => pod.phase },
          { id: "node", header: "Node", cell: (pod) => pod.node ?? "-" },
          { id: "gpus", header: "GPUs", cell: (pod) => pod.gpus },
          { id: "restarts", header: "Restarts", cell: (pod) => pod.restarts },
          { id: "reason", header: "Waiting because", cell: (pod) => pod.reason ?? "-" },
        ]}
      />
    </>
  );
}
