/**
 * The form of a `CreateEndpointRequest`: either your model (its source — S3 path, Hugging Face, a finished training
 * job, FSx — the worker image, port and GPUs → InferenceEndpointConfig) or a JumpStart catalog model
 * (→ JumpStartModel), on an instance type the cluster has, with the KV cache and routing choices. `endpointBody`
 * turns the values into the body, sending only what the person set; the API's refusal (`error`) shows above the
 * form's actions.
 */
import Button from "@cloudscape-design/components/button";
import Checkbox from "@cloudscape-design/components/checkbox";
import ColumnLayout from "@cloudscape-design/components/column-layout";
import Container from "@cloudscape-design/components/container";
import Form from "@cloudscape-design/components/form";
import FormField from "@cloudscape-design/components/form-field";
import Header from "@cloudscape-design/components/header";
import Input from "@cloudscape-design/components/input";
import RadioGroup from "@cloudscape-design/components/radio-group";
import Select from "@cloudscape-design/components/select";
import SpaceBetween from "@cloudscape-design/components/space-between";
import { useState } from "react";
import type { Schemas } from "../../api/client";
import { ErrorAlert } from "../../components/ErrorAlert";
import { useInstanceGroups } from "../cluster/groups";
import { sent } from "../cluster/plan";

type Body = Schemas["CreateEndpointRequest"];
export type ModelKind = "model" | "jumpStart";
export type SourceKind = "s3" | "huggingFace" | "job" | "fsx";
export type L2Choice = "" | "tieredstorage" | "redis";
export type RoutingChoice = "" | "prefixaware" | "kvaware" | "session" | "roundrobin";

export interface EndpointFormValues {
  name: string;
  instanceType: string;
  replicas: string;
  kind: ModelKind;
  source: SourceKind;
  /** The S3 path, the Hugging Face model id, the job's name, or the FSx directory, by `source`. */
  location: string;
  tokenSecret: string;
  fileSystemId: string;
  image: string;
  port: string;
  gpus: string;
  jumpStartModelId: string;
  acceptEula: boolean;
  l2: L2Choice;
  redisUrl: string;
  routing: RoutingChoice;
}

export const EMPTY_ENDPOINT: EndpointFormValues = {
  name: "",
  instanceType: "",
  replicas: "1",
  kind: "model",
  source: "huggingFace",
  location: "",
  tokenSecret: "",
  fileSystemId: "",
  image: "",
  port: "8080",
  gpus: "1",
  jumpStartModelId: "",
  acceptEula: false,
  l2: "",
  redisUrl: "",
  routing: "",
};

const SOURCES: { value: SourceKind; label: string; location: string }[] = [
  { value: "huggingFace", label: "Hugging Face", location: "Hugging Face model id" },
  { value: "s3", label: "S3 (the cluster's bucket)", location: "S3 path" },
  { value: "job", label: "Training job output", location: "Training job" },
  { value: "fsx", label: "FSx for Lustre", location: "FSx directory" },
];
const ROUTINGS: RoutingChoice[] = ["prefixaware", "kvaware", "session", "roundrobin"];

function source(values: EndpointFormValues): Schemas["EndpointModelSource"] {
  switch (values.source) {
    case "s3":
      return sent<Schemas["EndpointModelSource"]>({ s3: sent<Schemas["S3Source"]>({ path: values.location }) });
    case "job":
      return sent<Schemas["EndpointModelSource"]>({ job: values.location });
    case "fsx":
      return sent<Schemas["EndpointModelSource"]>({ fsx: sent<Schemas["FsxSource"]>({ fileSystemId: values.fileSystemId, path: values.location }) });
    default:
      return sent<Schemas["EndpointModelSource"]>({
        huggingFace: sent<Schemas["HuggingFaceSource"]>({ modelId: values.location, ...(values.tokenSecret ? { tokenSecret: values.tokenSecret } : {}) }),
      });
  }
}

/** The request body: the chosen kind's fields, and the cache, routing and replicas only where the person set them. */
export function endpointBody(values: EndpointFormValues): Body {
  const body: Partial<Body> = { name: values.name, instanceType: values.instanceType };
  if (values.replicas !== EMPTY_ENDPOINT.replicas) body.replicas = Number(values.replicas);
  if (values.kind === "jumpStart") {
    body.jumpStart = sent<Schemas["JumpStartSpec"]>({ modelId: values.jumpStartModelId, ...(values.acceptEula ? { acceptEula: true } : {}) });
  } else {
    body.model = sent<Schemas["ModelSpec"]>({
      source: source(values),
      image: values.image,
      ...(values.port !== EMPTY_ENDPOINT.port ? { invocationPort: Number(values.port) } : {}),
      ...(values.gpus !== EMPTY_ENDPOINT.gpus ? { gpus: Number(values.gpus) } : {}),
    });
  }
  if (values.l2) {
    const l2 = sent<Schemas["L2Cache"]>({ backend: values.l2, ...(values.l2 === "redis" && values.redisUrl ? { localUrl: values.redisUrl } : {}) });
    body.kvCache = sent<Schemas["KvCache"]>({ l2 });
  }
  if (values.routing) body.routing = sent<Schemas["Routing"]>({ strategy: values.routing });
  return sent<Body>(body);
}

export interface EndpointFormProps {
  clusterTag: string;
  submitting: boolean;
  error: unknown;
  onSubmit: (body: Body) => void;
  onCancel: () => void;
}

export function EndpointForm({ clusterTag, submitting, error, onSubmit, onCancel }: EndpointFormProps) {
  const [values, setValues] = useState<EndpointFormValues>(EMPTY_ENDPOINT);
  const groups = useInstanceGroups(clusterTag);
  const set =
    <K extends keyof EndpointFormValues>(key: K) =>
    (value: EndpointFormValues[K]) =>
      setValues((current) => ({ ...current, [key]: value }));
  const text = (key: keyof EndpointFormValues, label: string, description?: string, type: "text" | "number" = "text") => (
    <FormField label={label} description={description}>
      <Input ariaLabel={label} type={type} value={String(values[key])} onChange={({ detail }) => set(key)(detail.value as never)} />
    </FormField>
  );
  const instanceTypes = [...new Set((groups.data ?? []).flatMap((group) => (group.instanceType ? [group.instanceType] : [])))];
  const location = SOURCES.find((choice) => choice.value === values.source)?.location ?? "Location";
  return (
    <form onSubmit={(event) => event.preventDefault()}>
      <Form
        actions={
          <SpaceBetween direction="horizontal" size="xs">
            <Button variant="link" onClick={onCancel}>
              Cancel
            </Button>
            <Button variant="primary" loading={submitting} onClick={() => onSubmit(endpointBody(values))}>
              Create endpoint
            </Button>
          </SpaceBetween>
        }
      >
        <SpaceBetween size="m">
          <Container header={<Header variant="h2">Endpoint</Header>}>
            <ColumnLayout columns={3}>
              {text("name", "Name", "Lowercase letters, digits and hyphens; up to 38 characters.")}
              <FormField label="Instance type" errorText={groups.error ? "The cluster's instance groups could not be read." : undefined}>
                <Select
                  ariaLabel="Instance type"
                  placeholder="Choose an instance type"
                  statusType={groups.loading ? "loading" : "finished"}
                  selectedOption={values.instanceType ? { value: values.instanceType } : null}
                  options={instanceTypes.map((value) => ({ value }))}
                  onChange={({ detail }) => set("instanceType")(detail.selectedOption.value ?? "")}
                />
              </FormField>
              {text("replicas", "Replicas", undefined, "number")}
            </ColumnLayout>
          </Container>
          <Container header={<Header variant="h2">Model</Header>}>
            <SpaceBetween size="m">
              <RadioGroup
                ariaLabel="Model kind"
                value={values.kind}
                onChange={({ detail }) => set("kind")(detail.value as ModelKind)}
                items={[
                  { value: "model", label: "Your model", description: "InferenceEndpointConfig: a source and a serving image." },
                  { value: "jumpStart", label: "JumpStart model", description: "JumpStartModel: a SageMaker JumpStart catalog model." },
                ]}
              />
              {values.kind === "jumpStart" ? (
                <ColumnLayout columns={2}>
                  {text("jumpStartModelId", "JumpStart model id")}
                  <Checkbox checked={values.acceptEula} onChange={({ detail }) => set("acceptEula")(detail.checked)}>
                    Accept the model's end-user licence
                  </Checkbox>
                </ColumnLayout>
              ) : (
                <SpaceBetween size="m">
                  <RadioGroup
                    ariaLabel="Model source"
                    value={values.source}
                    onChange={({ detail }) => set("source")(detail.value as SourceKind)}
                    items={SOURCES.map(({ value, label }) => ({ value, label }))}
                  />
                  <ColumnLayout columns={3}>
                    {text("location", location)}
                    {values.source === "huggingFace" && text("tokenSecret", "Token Secret", "Optional: a Secret holding a Hugging Face token under `token`, labelled app.kubernetes.io/managed-by=instantstart.")}
                    {values.source === "fsx" && text("fileSystemId", "File system id")}
                  </ColumnLayout>
                  <ColumnLayout columns={3}>
                    {text("image", "Worker image")}
                    {text("port", "Invocation port", undefined, "number")}
                    {text("gpus", "GPUs per worker", undefined, "number")}
                  </ColumnLayout>
                </SpaceBetween>
              )}
            </SpaceBetween>
          </Container>
          <Container header={<Header variant="h2" description="Routing is fixed at creation: to change it, delete the endpoint and create it again.">Cache and routing</Header>}>
            <ColumnLayout columns={3}>
              <FormField label="L2 KV cache" description="tieredstorage needs the tieredStorage feature; redis needs its URL.">
                <Select
                  ariaLabel="L2 KV cache"
                  selectedOption={{ value: values.l2, label: values.l2 || "None (L1 only)" }}
                  options={[{ value: "", label: "None (L1 only)" }, { value: "tieredstorage" }, { value: "redis" }]}
                  onChange={({ detail }) => set("l2")((detail.selectedOption.value ?? "") as L2Choice)}
                />
              </FormField>
              {values.l2 === "redis" && text("redisUrl", "Redis URL", "redis://host:port")}
              <FormField label="Intelligent routing">
                <Select
                  ariaLabel="Intelligent routing"
                  selectedOption={{ value: values.routing, label: values.routing || "None" }}
                  options={[{ value: "", label: "None" }, ...ROUTINGS.map((value) => ({ value }))]}
                  onChange={({ detail }) => set("routing")((detail.selectedOption.value ?? "") as RoutingChoice)}
                />
              </FormField>
            </ColumnLayout>
          </Container>
          <ErrorAlert error={error} header="The API refused the endpoint" />
        </SpaceBetween>
      </Form>
    </form>
  );
}
