/**
 * The deploy form: a serving command (`vllm serve …`, `python -m sglang.launch_server …`, or any command with an
 * image), the GPUs per replica (required — the API refuses a deploy without it, and never reads it from a
 * tensor-parallel flag), the service type, placement, the team and priority (not for pool workers) and the optional
 * fields. The API's refusal shows above the
 * actions.
 */
import Button from "@cloudscape-design/components/button";
import ColumnLayout from "@cloudscape-design/components/column-layout";
import Container from "@cloudscape-design/components/container";
import Form from "@cloudscape-design/components/form";
import FormField from "@cloudscape-design/components/form-field";
import Header from "@cloudscape-design/components/header";
import Input from "@cloudscape-design/components/input";
import RadioGroup from "@cloudscape-design/components/radio-group";
import Select from "@cloudscape-design/components/select";
import SpaceBetween from "@cloudscape-design/components/space-between";
import Textarea from "@cloudscape-design/components/textarea";
import { useState } from "react";
import type { Schemas } from "../../api/client";
import { ErrorAlert } from "../../components/ErrorAlert";
import { TeamPicker } from "../../components/TeamPicker";
import { useInstanceGroups } from "../cluster/groups";
import { deployBody, EMPTY_DEPLOY, positive, type DeployFormValues, type ServiceType } from "./form";

const SERVICE_TYPES: { value: ServiceType; label: string; description: string }[] = [
  { value: "internal", label: "Cluster-internal", description: "A ClusterIP Service; called through the Kubernetes API's service proxy." },
  { value: "external", label: "External load balancer", description: "An internet-facing Network Load Balancer." },
  { value: "pool", label: "Model pool", description: "Warm workers (business=unassigned), bound to services from the Pool tab." },
];

export interface DeployFormProps {
  clusterTag: string;
  submitting: boolean;
  error: unknown;
  onSubmit: (body: Schemas["DeployModelRequest"]) => void;
  onCancel: () => void;
}

export function DeployForm({ clusterTag, submitting, error, onSubmit, onCancel }: DeployFormProps) {
  const [values, setValues] = useState<DeployFormValues>(EMPTY_DEPLOY);
  const set = <K extends keyof DeployFormValues>(key: K) => (value: DeployFormValues[K]) => setValues((current) => ({ ...current, [key]: value }));
  const groups = useInstanceGroups(clusterTag);
  const types = [...new Set((groups.data ?? []).flatMap((group) => (group.instanceType ? [group.instanceType] : [])))];
  const options = [{ value: "", label: "Any node with the GPUs" }, ...types.map((value) => ({ value, label: value }))];
  const gpusMissing = positive(values.gpus) === undefined;
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit(deployBody(values));
      }}
    >
      <Form
        actions={
          <SpaceBetween direction="horizontal" size="xs">
            <Button formAction="none" variant="link" onClick={onCancel}>
              Cancel
            </Button>
            <Button variant="primary" loading={submitting} disabled={!values.name || !values.command || gpusMissing}>
              Deploy
            </Button>
          </SpaceBetween>
        }
      >
        <SpaceBetween size="m">
          <Container header={<Header variant="h2">Model server</Header>}>
            <SpaceBetween size="m">
              <FormField label="Name" description="The Deployment and its Service: lowercase letters, digits and hyphens.">
                <Input ariaLabel="Name" value={values.name} onChange={({ detail }) => set("name")(detail.value)} />
              </FormField>
              <FormField
                label="Serving command"
                description="vllm serve <model> …, python -m sglang.launch_server --model-path <model> …, or any command with an image."
              >
                <Textarea
                  ariaLabel="Serving command"
                  placeholder="vllm serve Qwen/Qwen3-0.6B --max-model-len 1280 --tensor-parallel-size 1"
                  value={values.command}
                  onChange={({ detail }) => set("command")(detail.value)}
                />
              </FormField>
              <ColumnLayout columns={3}>
                <FormField
                  label="GPUs per replica"
                  description="Required. Never taken from --tensor-parallel-size, which must not exceed it."
                  errorText={values.gpus && gpusMissing ? "A whole number of at least 1." : undefined}
                >
                  <Input type="number" ariaLabel="GPUs per replica" value={values.gpus} onChange={({ detail }) => set("gpus")(detail.value)} />
                </FormField>
                <FormField label="Replicas">
                  <Input type="number" ariaLabel="Replicas" value={values.replicas} onChange={({ detail }) => set("replicas")(detail.value)} />
                </FormField>
                <FormField label="Instance type">
                  <Select
                    ariaLabel="Instance type"
                    selectedOption={options.find((option) => option.value === values.instanceType) ?? options[0]}
                    options={options}
                    onChange={({ detail }) => set("instanceType")(detail.selectedOption.value ?? "")}
                  />
                </FormField>
              </ColumnLayout>
              <FormField label="Service type">
                <RadioGroup
                  ariaLabel="Service type"
                  value={values.serviceType}
                  items={SERVICE_TYPES}
                  onChange={({ detail }) => set("serviceType")(detail.value as ServiceType)}
                />
              </FormField>
              {values.serviceType !== "pool" && <TeamPicker clusterTag={clusterTag} value={values.team} onChange={set("team")} />}
            </SpaceBetween>
          </Container>
          <Container header={<Header variant="h2">Optional</Header>}>
            <ColumnLayout columns={2}>
              <FormField label="Image" description="Inferred for vLLM and SGLang.">
                <Input ariaLabel="Image" value={values.image} onChange={({ detail }) => set("image")(detail.value)} />
              </FormField>
              <FormField label="Port" description="Inferred from --port or the engine's default.">
                <Input type="number" ariaLabel="Port" value={values.port} onChange={({ detail }) => set("port")(detail.value)} />
              </FormField>
              <FormField label="Training job" description="Serve a Succeeded job's output instead of the command's model.">
                <Input ariaLabel="Training job" value={values.job} onChange={({ detail }) => set("job")(detail.value)} />
              </FormField>
              <FormField label="Hugging Face token" description="Kept only in a Kubernetes Secret; never shown again.">
                <Input
                  type="password"
                  ariaLabel="Hugging Face token"
                  value={values.huggingFaceToken}
                  onChange={({ detail }) => set("huggingFaceToken")(detail.value)}
                />
              </FormField>
            </ColumnLayout>
          </Container>
          <ErrorAlert error={error} header="The model server was not deployed" />
        </SpaceBetween>
      </Form>
    </form>
  );
}
