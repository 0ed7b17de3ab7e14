/**
 * Software tab: each instance group's AMI release and software update in progress, and the rolling AMI update
 * (`POST …/software-update`): the API's plan (each group with its current release) is confirmed with its token.
 */
import Box from "@cloudscape-design/components/box";
import Button from "@cloudscape-design/components/button";
import ColumnLayout from "@cloudscape-design/components/column-layout";
import Container from "@cloudscape-design/components/container";
import Form from "@cloudscape-design/components/form";
import FormField from "@cloudscape-design/components/form-field";
import Header from "@cloudscape-design/components/header";
import Input from "@cloudscape-design/components/input";
import Multiselect from "@cloudscape-design/components/multiselect";
import Select from "@cloudscape-design/components/select";
import SpaceBetween from "@cloudscape-design/components/space-between";
import Table from "@cloudscape-design/components/table";
import { useState } from "react";
import { unwrap, type Schemas } from "../../api/client";
import { useApp } from "../../app-context";
import { ErrorAlert } from "../../components/ErrorAlert";
import { useInstanceGroups } from "./groups";
import { usePlannedAction } from "./plan";
import type { ClusterTabProps } from "./tabs";

type Request = Schemas["SoftwareUpdateRequest"];
type BatchType = NonNullable<Schemas["RollingPolicy"]["batchType"]>;

const BATCH_TYPES = [
  { value: "percentage", label: "Percent of the group" },
  { value: "count", label: "Number of instances" },
];

export default function SoftwareTab({ cluster, reload }: ClusterTabProps) {
  const { api, identity } = useApp();
  const groups = useInstanceGroups(cluster.clusterTag);
  const refresh = () => {
    groups.reload();
    reload();
  };
  const planned = usePlannedAction(refresh, refresh);
  const update = (body: Request) => {
    const path = { clusterTag: cluster.clusterTag };
    planned.start({
      header: "Update the software (AMI)",
      confirmLabel: "Update software",
      plan: () => unwrap(api.POST("/clusters/{clusterTag}/software-update", { params: { path, query: { dryRun: true } }, body })),
      run: (confirmationToken) =>
        unwrap(api.POST("/clusters/{clusterTag}/software-update", { params: { path, query: { confirmationToken } }, body })),
    });
  };
  return (
    <SpaceBetween size="m">
      <ErrorAlert error={groups.error} header="Instance groups could not be listed" />
      <Table
        header={<Header counter={groups.data ? `(${groups.data.length})` : undefined}>Software per instance group</Header>}
        loading={groups.loading}
        loadingText="Loading instance groups"
        items={groups.data ?? []}
        trackBy="instanceGroupName"
        empty={<Box textAlign="center">No instance group.</Box>}
        columnDefinitions={[
          { id: "name", header: "Instance group", cell: (group) => group.instanceGroupName },
          { id: "image", header: "AMI release", cell: (group) => group.imageReleaseVersion ?? "-" },
          { id: "update", header: "Software update", cell: (group) => group.softwareUpdateStatus ?? "none" },
        ]}
      />
      {identity.mayCall("POST /clusters/{clusterTag}/software-update") && <SoftwareUpdateForm groups={groups.data ?? []} onReview={update} />}
      {planned.modal}
    </SpaceBetween>
  );
}

/** The fields of `SoftwareUpdateRequest`; the body holds only the ones the person set. */
function SoftwareUpdateForm(props: { groups: Schemas["InstanceGroupView"][]; onReview: (body: Request) => void }) {
  const { groups, onReview } = props;
  const [chosen, setChosen] = useState<string[]>([]);
  const [imageId, setImageId] = useState("");
  const [batchType, setBatchType] = useState<BatchType>("percentage");
  const [batchSize, setBatchSize] = useState("20");
  const [wait, setWait] = useState("0");
  const body: Request = {};
  if (chosen.length) body.instanceGroups = chosen;
  if (imageId) body.imageId = imageId;
  if (batchType !== "percentage" || batchSize !== "20" || wait !== "0") {
    body.rollingPolicy = { batchType, batchSize: Number(batchSize), waitIntervalSeconds: Number(wait) };
  }
  const options = groups.map((group) => ({ value: group.instanceGroupName, label: group.instanceGroupName }));
  return (
    <Container header={<Header variant="h2">Software update</Header>}>
      <form onSubmit={(event) => event.preventDefault()}>
        <Form
          actions={
            <Button variant="primary" onClick={() => onReview(body)}>
              Review update
            </Button>
          }
        >
          <SpaceBetween size="m">
            <ColumnLayout columns={2}>
              <FormField label="Instance groups" description="Leave empty to update every group.">
                <Multiselect
                  selectedOptions={options.filter((option) => chosen.includes(option.value))}
                  options={options}
                  placeholder="Every group"
                  onChange={({ detail }) => setChosen(detail.selectedOptions.map((option) => option.value ?? ""))}
                />
              </FormField>
              <FormField label="AMI" description="Empty or 'default': the latest HyperPod AMI; or a custom ami-….">
                <Input value={imageId} placeholder="default" onChange={({ detail }) => setImageId(detail.value)} />
              </FormField>
            </ColumnLayout>
            <ColumnLayout columns={3}>
              <FormField label="Batch type">
                <Select
                  selectedOption={BATCH_TYPES.find((option) => option.value === batchType) ?? null}
                  options={BATCH_TYPES}
                  onChange={({ detail }) => setBatchType(detail.selectedOption.value as BatchType)}
                />
              </FormField>
              <FormField label="Batch size">
                <Input type="number" inputMode="numeric" value={batchSize} onChange={({ detail }) => setBatchSize(detail.value)} />
              </FormField>
              <FormField label="Wait between batches (s)">
                <Input type="number" inputMode="numeric" value={wait} onChange={({ detail }) => setWait(detail.value)} />
              </FormField>
            </ColumnLayout>
          </SpaceBetween>
        </Form>
      </form>
    </Container>
  );
}
