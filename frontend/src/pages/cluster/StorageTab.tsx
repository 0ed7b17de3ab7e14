/**
 * Storage tab: the claims, bucket and FSx file system the cluster has, and the form that configures storage
 * (`POST …/storage`, `?action=configure`) through the API's plan. An FSx file system is offered to an admin only
 * (creating one enables the fsxCsiDriver feature).
 */
import Box from "@cloudscape-design/components/box";
import Button from "@cloudscape-design/components/button";
import ColumnLayout from "@cloudscape-design/components/column-layout";
import Container from "@cloudscape-design/components/container";
import Form from "@cloudscape-design/components/form";
import FormField from "@cloudscape-design/components/form-field";
import Header from "@cloudscape-design/components/header";
import Input from "@cloudscape-design/components/input";
import KeyValuePairs from "@cloudscape-design/components/key-value-pairs";
import Select from "@cloudscape-design/components/select";
import SpaceBetween from "@cloudscape-design/components/space-between";
import Toggle from "@cloudscape-design/components/toggle";
import { useState } from "react";
import { unwrap, type Schemas } from "../../api/client";
import { useApp } from "../../app-context";
import { sent, usePlannedAction } from "./plan";
import { useQueryParam } from "./query";
import type { ClusterTabProps } from "./tabs";

type Request = Schemas["ConfigureStorageRequest"];
type Fsx = Schemas["FsxRequest"];

const DEPLOYMENT_TYPES = [
  { value: "SCRATCH_2", label: "SCRATCH_2", description: "Temporary, no replication" },
  { value: "PERSISTENT_2", label: "PERSISTENT_2", description: "Durable" },
];

export default function StorageTab({ cluster, reload }: ClusterTabProps) {
  const { api, identity } = useApp();
  const [action, setAction] = useQueryParam("action");
  const planned = usePlannedAction(reload, reload);
  const configure = (body: Request) =>
    planned.start({
      header: "Configure storage",
      confirmLabel: "Configure storage",
      plan: () => unwrap(api.POST("/clusters/{clusterTag}/storage", { params: { path: { clusterTag: cluster.clusterTag }, query: { dryRun: true } }, body })),
      run: async () => {
        const accepted = await unwrap(api.POST("/clusters/{clusterTag}/storage", { params: { path: { clusterTag: cluster.clusterTag } }, body }));
        setAction(null);
        return accepted;
      },
    });
  return (
    <SpaceBetween size="m">
      <Container
        header={
          <Header
            variant="h2"
            actions={
              identity.mayCall("POST /clusters/{clusterTag}/storage") && (
                <Button onClick={() => setAction("configure")} disabled={action === "configure"}>
                  Configure storage
                </Button>
              )
            }
          >
            Storage
          </Header>
        }
      >
        <KeyValuePairs
          columns={3}
          items={[
            { label: "S3 claim", value: cluster.storageClaim ?? "none" },
            { label: "S3 bucket", value: cluster.storageBucket ?? "none" },
            { label: "FSx for Lustre claim", value: cluster.fsxClaim ?? "none" },
          ]}
        />
      </Container>
      {identity.mayCall("POST /clusters/{clusterTag}/storage") && action === "configure" && (
        <StorageForm withFsx={identity.can("admin")} onCancel={() => setAction(null)} onReview={configure} />
      )}
      {planned.modal}
    </SpaceBetween>
  );
}

/** The fields of `ConfigureStorageRequest`; the body holds only the ones the person set. */
function StorageForm(props: { withFsx: boolean; onCancel: () => void; onReview: (body: Request) => void }) {
  const { withFsx, onCancel, onReview } = props;
  const [bucketName, setBucketName] = useState("");
  const [claimName, setClaimName] = useState("");
  const [namespace, setNamespace] = useState("");
  const [fsxOn, setFsxOn] = useState(false);
  const [deploymentType, setDeploymentType] = useState<Fsx["deploymentType"]>("SCRATCH_2");
  const [capacity, setCapacity] = useState("1200");
  const [throughput, setThroughput] = useState("");

  const body: Partial<Request> = {};
  if (bucketName) body.bucketName = bucketName;
  if (claimName) body.claimName = claimName;
  if (namespace) body.namespace = namespace;
  if (fsxOn) {
    const fsx: Partial<Fsx> = {};
    if (deploymentType !== "SCRATCH_2") fsx.deploymentType = deploymentType;
    if (capacity !== "1200") fsx.storageCapacityGiB = Number(capacity);
    if (throughput) fsx.perUnitStorageThroughput = Number(throughput);
    body.fsx = sent<Fsx>(fsx);
  }
  return (
    <Container header={<Header variant="h2">Configure storage</Header>}>
      <form onSubmit={(event) => event.preventDefault()}>
        <Form
          actions={
            <SpaceBetween direction="horizontal" size="xs">
              <Button variant="link" onClick={onCancel}>
                Cancel
              </Button>
              <Button variant="primary" onClick={() => onReview(sent<Request>(body))}>
                Review plan
              </Button>
            </SpaceBetween>
          }
        >
          <SpaceBetween size="m">
            <ColumnLayout columns={3}>
              <FormField label="Existing bucket" description="Leave empty to create instantstart-<cluster>-<account>-<region>.">
                <Input value={bucketName} onChange={({ detail }) => setBucketName(detail.value)} />
              </FormField>
              <FormField label="Claim name" description="Workload templates mount it at /s3.">
                <Input value={claimName} placeholder="s3-claim" onChange={({ detail }) => setClaimName(detail.value)} />
              </FormField>
              <FormField label="Namespace">
                <Input value={namespace} placeholder="default" onChange={({ detail }) => setNamespace(detail.value)} />
              </FormField>
            </ColumnLayout>
            {withFsx && (
              <Toggle checked={fsxOn} onChange={({ detail }) => setFsxOn(detail.checked)}>
                Also create an FSx for Lustre file system (enables the fsxCsiDriver feature)
              </Toggle>
            )}
            {withFsx && fsxOn && (
              <ColumnLayout columns={3}>
                <FormField label="Deployment type">
                  <Select
                    selectedOption={DEPLOYMENT_TYPES.find((option) => option.value === deploymentType) ?? null}
                    options={DEPLOYMENT_TYPES}
                    onChange={({ detail }) => setDeploymentType(detail.selectedOption.value as Fsx["deploymentType"])}
                  />
                </FormField>
                <FormField label="Capacity (GiB)" constraintText="1200, or a multiple of 2400.">
                  <Input type="number" inputMode="numeric" value={capacity} onChange={({ detail }) => setCapacity(detail.value)} />
                </FormField>
                <FormField label="Throughput (MB/s per TiB)" constraintText="PERSISTENT_2 only: 125, 250, 500 or 1000.">
                  <Input type="number" inputMode="numeric" value={throughput} onChange={({ detail }) => setThroughput(detail.value)} />
                </FormField>
              </ColumnLayout>
            )}
            <Box variant="small">The plan is shown before anything is created.</Box>
          </SpaceBetween>
        </Form>
      </form>
    </Container>
  );
}
