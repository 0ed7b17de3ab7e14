/**
 * The form of a `SubmitJobRequest`: the kind (HyperPodPyTorchJob, or RayJob / RayCluster on the KubeRay path), image,
 * command, nodes × GPUs per node, placement on an instance type or group the cluster has, EFA, deep-health-checked
 * nodes, the team and priority (task governance), shared memory, environment, and for a HyperPodPyTorchJob the recovery budget (shown with the API's
 * defaults) and log-monitoring rules. It starts from `initial`, so a recipe form can prefill it; the page
 * sends the body, and the API's refusal (`error`) shows above the form's actions.
 */
import AttributeEditor from "@cloudscape-design/components/attribute-editor";
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
import Textarea from "@cloudscape-design/components/textarea";
import { useState, type ReactNode } from "react";
import type { Schemas } from "../../api/client";
import { ErrorAlert } from "../../components/ErrorAlert";
import { TeamPicker } from "../../components/TeamPicker";
import { useInstanceGroups } from "../cluster/groups";
import {
  API_DEFAULTS,
  EMPTY_RULE,
  isRayKind,
  submitBody,
  type CleanPodPolicy,
  type JobFormValues,
  type JobKind,
  type RuleOperator,
  type RuleValues,
} from "./form";

const CLEAN_POD_POLICIES: CleanPodPolicy[] = ["All", "OnlyComplete", "None"];
const OPERATORS: RuleOperator[] = ["gt", "lt", "eq", "gteq", "lteq"];
const KINDS: { value: JobKind; description: string }[] = [
  { value: "HyperPodPyTorchJob", description: "HyperPod training operator: the command in every pod, with a recovery budget" },
  { value: "RayJob", description: "KubeRay: a Ray head and workers; the command is the Ray job's entrypoint" },
  { value: "RayCluster", description: "KubeRay: a long-lived Ray head and workers, no entrypoint" },
];

type NumberField =
  | "nodes"
  | "gpusPerNode"
  | "sharedMemoryGi"
  | "jobMaxRetryCount"
  | "numRestartBeforeFullJobRestart"
  | "evalPeriodSeconds"
  | "maxFullJobRestarts";

export interface JobFormProps {
  clusterTag: string;
  initial: JobFormValues;
  submitting: boolean;
  /** The API's refusal of the last submit, shown above the actions. */
  error: unknown;
  onSubmit: (body: Schemas["SubmitJobRequest"]) => void;
  onCancel: () => void;
}

export function JobForm({ clusterTag, initial, submitting, error, onSubmit, onCancel }: JobFormProps) {
  const [values, setValues] = useState<JobFormValues>(initial);
  const set = <K extends keyof JobFormValues>(key: K) => (value: JobFormValues[K]) => setValues((current) => ({ ...current, [key]: value }));
  const groups = useInstanceGroups(clusterTag);
  const options =
    values.placement === "instanceGroup"
      ? (groups.data ?? []).map((group) => ({ value: group.instanceGroupName, description: group.instanceType ?? undefined }))
      : [...new Set((groups.data ?? []).flatMap((group) => (group.instanceType ? [group.instanceType] : [])))].map((value) => ({ value }));
  const placeLabel = values.placement === "instanceGroup" ? "instance group" : "instance type";
  const ray = isRayKind(values.kind);
  const number = (key: NumberField, label: string, description?: string) => (
    <FormField label={label} description={description}>
      <Input type="number" ariaLabel={label} value={values[key]} onChange={({ detail }) => set(key)(detail.value)} />
    </FormField>
  );
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit(submitBody(values));
      }}
    >
      <Form
        actions={
          <SpaceBetween direction="horizontal" size="xs">
            <Button formAction="none" variant="link" onClick={onCancel}>
              Cancel
            </Button>
            <Button variant="primary" loading={submitting} disabled={!values.name || !values.image || !values.placeOn}>
              Submit job
            </Button>
          </SpaceBetween>
        }
      >
        <SpaceBetween size="l">
          <Section title="Job">
            <FormField label="Kind" description="RayJob and RayCluster need the kuberayOperator feature; HyperPodPyTorchJob the trainingOperator.">
              <Select
                ariaLabel="Kind"
                selectedOption={KINDS.find((kind) => kind.value === values.kind) ?? null}
                options={KINDS}
                onChange={({ detail }) => set("kind")((detail.selectedOption.value ?? API_DEFAULTS.kind) as JobKind)}
              />
            </FormField>
            <FormField label="Name" description="Lowercase letters, digits and hyphens; a letter first (up to 40).">
              <Input ariaLabel="Name" value={values.name} onChange={({ detail }) => set("name")(detail.value)} placeholder="llama-finetune" />
            </FormField>
            <FormField label="Image" description={ray ? "The container image; it has Ray installed." : "The container image; it runs hyperpodrun."}>
              <Input ariaLabel="Image" value={values.image} onChange={({ detail }) => set("image")(detail.value)} />
            </FormField>
            <ColumnLayout columns={2}>
              <FormField
                label="Command"
                description={ray ? "One item per line: the Ray job's entrypoint (none for a RayCluster)." : "One item per line; empty keeps the image's entrypoint."}
              >
                <Textarea ariaLabel="Command" value={values.command} onChange={({ detail }) => set("command")(detail.value)} rows={3} />
              </FormField>
              <FormField label="Arguments" description="One item per line.">
                <Textarea ariaLabel="Arguments" value={values.args} onChange={({ detail }) => set("args")(detail.value)} rows={3} />
              </FormField>
            </ColumnLayout>
          </Section>
          <Section title="Placement">
            <ColumnLayout columns={3}>
              {number("nodes", "Nodes", ray ? "A Ray head and nodes - 1 workers, one pod per node." : "One pod per node.")}
              {number("gpusPerNode", "GPUs per node")}
              {number("sharedMemoryGi", "Shared memory (GiB)", "Size of /dev/shm.")}
            </ColumnLayout>
            <RadioGroup
              ariaLabel="Place on"
              value={values.placement}
              onChange={({ detail }) => setValues((current) => ({ ...current, placement: detail.value as JobFormValues["placement"], placeOn: "" }))}
              items={[
                { value: "instanceType", label: "Instance type" },
                { value: "instanceGroup", label: "Instance group" },
              ]}
            />
            <FormField label={`The ${placeLabel}`} errorText={groups.error ? "The cluster's instance groups could not be read." : undefined}>
              <Select
                ariaLabel={`The ${placeLabel}`}
                placeholder={`Choose an ${placeLabel}`}
                statusType={groups.loading ? "loading" : "finished"}
                selectedOption={values.placeOn ? { value: values.placeOn } : null}
                options={options}
                onChange={({ detail }) => set("placeOn")(detail.selectedOption.value ?? "")}
              />
            </FormField>
            <Checkbox checked={values.efa} onChange={({ detail }) => set("efa")(detail.checked)}>
              EFA: every EFA interface of the instance type
            </Checkbox>
            <Checkbox checked={values.deepHealthCheckedOnly} onChange={({ detail }) => set("deepHealthCheckedOnly")(detail.checked)}>
              Only nodes that passed deep health checks
            </Checkbox>
            <TeamPicker clusterTag={clusterTag} value={values.team} onChange={set("team")} />
            <FormField label="Environment" description="NAME=value, one per line.">
              <Textarea ariaLabel="Environment" value={values.environment} onChange={({ detail }) => set("environment")(detail.value)} rows={3} />
            </FormField>
          </Section>
          {!ray && (
            <>
              <Section title="Recovery budget" description="The run policy: in-place restarts of a failed process, then full job restarts.">
                <ColumnLayout columns={3}>
                  {number("numRestartBeforeFullJobRestart", "In-place restarts before a full job restart")}
                  {number("maxFullJobRestarts", "Full job restarts")}
                  {number("evalPeriodSeconds", "Evaluation period (s)", "Window in which restarts are counted.")}
                  {number("jobMaxRetryCount", "Job retries")}
                  <FormField label="Pods deleted when the job ends">
                    <Select
                      ariaLabel="Pods deleted when the job ends"
                      selectedOption={{ value: values.cleanPodPolicy }}
                      options={CLEAN_POD_POLICIES.map((value) => ({ value }))}
                      onChange={({ detail }) => set("cleanPodPolicy")((detail.selectedOption.value ?? API_DEFAULTS.cleanPodPolicy) as CleanPodPolicy)}
                    />
                  </FormField>
                </ColumnLayout>
              </Section>
              <Section title="Log monitoring" description="Optional: hang detection (a pattern expected every N s) or outliers (a metric against a threshold).">
                <RulesEditor rules={values.logMonitoring} onChange={set("logMonitoring")} />
              </Section>
            </>
          )}
          <ErrorAlert error={error} header="The API refused the job" />
        </SpaceBetween>
      </Form>
    </form>
  );
}

function Section({ title, description, children }: { title: string; description?: string; children: ReactNode }) {
  return (
    <Container header={<Header variant="h2" description={description}>{title}</Header>}>
      <SpaceBetween size="m">{children}</SpaceBetween>
    </Container>
  );
}

function RulesEditor({ rules, onChange }: { rules: RuleValues[]; onChange: (rules: RuleValues[]) => void }) {
  const edit = (index: number, change: Partial<RuleValues>) => onChange(rules.map((rule, at) => (at === index ? { ...rule, ...change } : rule)));
  const text = (key: keyof RuleValues, label: string, type: "text" | "number" = "text") => ({
    label,
    control: (rule: RuleValues, index: number) => (
      <Input type={type} ariaLabel={`${label} ${index + 1}`} value={rule[key]} onChange={({ detail }) => edit(index, { [key]: detail.value })} />
    ),
  });
  return (
    <AttributeEditor
      items={rules}
      addButtonText="Add rule"
      removeButtonText="Remove"
      empty="No log-monitoring rule."
      onAddButtonClick={() => onChange([...rules, EMPTY_RULE])}
      onRemoveButtonClick={({ detail }) => onChange(rules.filter((_, at) => at !== detail.itemIndex))}
      definition={[
        text("name", "Rule name"),
        text("logPattern", "Log pattern"),
        text("expectedStartCutOffInSeconds", "First match within (s)", "number"),
        text("expectedRecurringFrequencyInSeconds", "Then every (s)", "number"),
        {
          label: "Operator",
          control: (rule, index) => (
            <Select
              ariaLabel={`Operator ${index + 1}`}
              selectedOption={rule.operator ? { value: rule.operator } : null}
              placeholder="none"
              options={OPERATORS.map((value) => ({ value }))}
              onChange={({ detail }) => edit(index, { operator: (detail.selectedOption.value ?? "") as RuleOperator })}
            />
          ),
        },
        text("metricThreshold", "Threshold", "number"),
      ]}
    />
  );
}
