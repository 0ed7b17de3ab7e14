/**
 * A recipe's typed form, rendered generically from the recipe's schema (`fieldOf` per parameter) and prefilled with
 * the person's last values for it; the job's name, placement and team (with its priority); optional MLflow tracking (a server of the cluster's
 * Region, chosen from the API's list, and an experiment). **Review** asks the API for a dry run and shows the job it
 * renders to; **Submit job** submits exactly that and opens the job's detail. The review, or the dry run's refusal,
 * sits right above the actions and both scroll into view; a refusal leads with its fix (and shows at the field it names)
 * and holds the action until something changes; any change asks for a new review.
 */
import Box from "@cloudscape-design/components/box";
import Button from "@cloudscape-design/components/button";
import Checkbox from "@cloudscape-design/components/checkbox";
import ColumnLayout from "@cloudscape-design/components/column-layout";
import Container from "@cloudscape-design/components/container";
import Form from "@cloudscape-design/components/form";
import FormField from "@cloudscape-design/components/form-field";
import Header from "@cloudscape-design/components/header";
import Input from "@cloudscape-design/components/input";
import KeyValuePairs from "@cloudscape-design/components/key-value-pairs";
import RadioGroup from "@cloudscape-design/components/radio-group";
import Select from "@cloudscape-design/components/select";
import SpaceBetween from "@cloudscape-design/components/space-between";
import { useEffect, useRef, useState, type ReactNode } from "react";
import { useNavigate } from "react-router-dom";
import { unwrap, type Schemas } from "../../../api/client";
import { errorText, useApp } from "../../../app-context";
import { ErrorAlert } from "../../../components/ErrorAlert";
import { allPages, useResource } from "../../../hooks/useResource";
import { useInstanceGroups } from "../../cluster/groups";
import { jobPath } from "../paths";
import { NO_TEAM, TeamPicker, type TeamChoice } from "../../../components/TeamPicker";
import { fieldOf, initialValues, NO_TRACKING, recipeBody, refusedParameter, type Placement, type RecipeValues, type Tracking } from "./form";

type RecipeDetail = Schemas["RecipeDetail"];
type RecipeJob = Schemas["RecipeJob"];

export interface RecipeFormProps {
  clusterTag: string;
  recipe: RecipeDetail;
  onCancel: () => void;
}

export function RecipeForm({ clusterTag, recipe, onCancel }: RecipeFormProps) {
  const { api, notify } = useApp();
  const navigate = useNavigate();
  const [name, setName] = useState("");
  const [placement, setPlacement] = useState<Placement>({ kind: "instanceType", on: "" });
  const [values, setValues] = useState<RecipeValues>(() => initialValues(recipe.parameters, recipe.lastValues));
  const [tracked, setTracked] = useState(false);
  const [tracking, setTracking] = useState<Tracking>(NO_TRACKING);
  const [team, setTeam] = useState<TeamChoice>(NO_TEAM);
  const [review, setReview] = useState<RecipeJob>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  // The end of the form: scrolled to the bottom of the window, it shows the actions with the review right above them.
  const end = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (review || error) end.current?.scrollIntoView?.({ block: "end" });
  }, [review, error]);
  const changed = <T,>(set: (value: T) => void) => (value: T) => {
    set(value);
    setReview(undefined);
    setError(undefined);
  };
  const body = () => recipeBody(recipe, name, placement, values, tracked ? tracking : NO_TRACKING, team);
  const send = async (dryRun: boolean) => {
    setBusy(true);
    setError(undefined);
    try {
      const rendered = await unwrap(
        api.POST("/clusters/{clusterTag}/jobs/from-recipe", { params: { path: { clusterTag }, query: { dryRun } }, body: body() }),
      );
      if (dryRun) {
        setReview(rendered);
        setBusy(false);
        return;
      }
      notify.success(`Job ${name} submitted from the ${recipe.title} recipe.`);
      navigate(jobPath(clusterTag, rendered.detail?.name ?? name));
    } catch (reason) {
      setError(reason);
      setBusy(false);
    }
  };
  const refused = refusedParameter(error);
  const ready = Boolean(name && placement.on && (!tracked || (tracking.trackingServer && tracking.experiment)));
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        void send(review === undefined);
      }}
    >
      <Form
        actions={
          <SpaceBetween direction="horizontal" size="xs">
            <Button formAction="none" variant="link" onClick={onCancel}>
              Cancel
            </Button>
            <Button
              variant="primary"
              loading={busy}
              disabled={!ready || Boolean(error)}
              disabledReason={error ? "The dry run refuses this job: fix what it says, then review again." : undefined}
            >
              {review ? "Submit job" : "Review"}
            </Button>
          </SpaceBetween>
        }
      >
        <SpaceBetween size="l">
          <Section title="Job" description={recipe.description}>
            <FormField label="Job name" description="Lowercase letters, digits and hyphens; a letter first (up to 40).">
              <Input ariaLabel="Job name" value={name} onChange={({ detail }) => changed(setName)(detail.value)} placeholder={`${recipe.name}-1`} />
            </FormField>
            <PlacementFields clusterTag={clusterTag} placement={placement} onChange={changed(setPlacement)} />
            <TeamPicker clusterTag={clusterTag} value={team} onChange={changed(setTeam)} />
          </Section>
          <Section title="Parameters" description={`The ${recipe.title} recipe's parameters; your last values for it are filled in.`}>
            <ColumnLayout columns={2}>
              {recipe.parameters.map((parameter) => (
                <ParameterField
                  key={parameter.name}
                  parameter={parameter}
                  value={values[parameter.name] ?? ""}
                  errorText={refused === parameter.name ? errorText(error).message : undefined}
                  onChange={changed((value: string | boolean) => setValues((current) => ({ ...current, [parameter.name]: value })))}
                />
              ))}
            </ColumnLayout>
          </Section>
          <Section title="Experiment tracking" description="Optional: log the job's runs to a SageMaker managed MLflow tracking server.">
            <Checkbox checked={tracked} onChange={({ detail }) => changed(setTracked)(detail.checked)}>
              Track with MLflow
            </Checkbox>
            {tracked && <TrackingFields clusterTag={clusterTag} tracking={tracking} onChange={changed(setTracking)} />}
          </Section>
          {Boolean(review || error) && (
            <section aria-label="Review">
              {error ? <ErrorAlert error={error} header="The dry run refuses this job: fix first" /> : review && <Review review={review} />}
            </section>
          )}
        </SpaceBetween>
      </Form>
      <div ref={end} />
    </form>
  );
}

function ParameterField(props: {
  parameter: Schemas["RecipeParameter"];
  value: string | boolean;
  errorText?: string;
  onChange: (value: string | boolean) => void;
}) {
  const field = fieldOf(props.parameter);
  const label = field.required ? field.label : `${field.label} (optional)`;
  let control: ReactNode;
  if (field.control === "checkbox") {
    control = (
      <Checkbox checked={props.value === true} onChange={({ detail }) => props.onChange(detail.checked)}>
        {field.label}
      </Checkbox>
    );
  } else if (field.control === "select") {
    control = (
      <Select
        ariaLabel={field.label}
        selectedOption={props.value ? { value: String(props.value) } : null}
        options={field.options.map((value) => ({ value }))}
        onChange={({ detail }) => props.onChange(detail.selectedOption.value ?? "")}
      />
    );
  } else {
    control = (
      <Input
        type={field.control === "number" ? "number" : "text"}
        ariaLabel={field.label}
        value={String(props.value)}
        onChange={({ detail }) => props.onChange(detail.value)}
      />
    );
  }
  return (
    <FormField label={field.control === "checkbox" ? undefined : label} description={field.description} errorText={props.errorText}>
      {control}
    </FormField>
  );
}

function PlacementFields({ clusterTag, placement, onChange }: { clusterTag: string; placement: Placement; onChange: (placement: Placement) => void }) {
  const groups = useInstanceGroups(clusterTag);
  const options =
    placement.kind === "instanceGroup"
      ? (groups.data ?? []).map((group) => ({ value: group.instanceGroupName, description: group.instanceType ?? undefined }))
      : [...new Set((groups.data ?? []).flatMap((group) => (group.instanceType ? [group.instanceType] : [])))].map((value) => ({ value }));
  const what = placement.kind === "instanceGroup" ? "instance group" : "instance type";
  return (
    <>
      <RadioGroup
        ariaLabel="Place on"
        value={placement.kind}
        onChange={({ detail }) => onChange({ kind: detail.value as Placement["kind"], on: "" })}
        items={[
          { value: "instanceType", label: "Instance type" },
          { value: "instanceGroup", label: "Instance group" },
        ]}
      />
      <FormField label={`The ${what}`} errorText={groups.error ? "The cluster's instance groups could not be read." : undefined}>
        <Select
          ariaLabel={`The ${what}`}
          placeholder={`Choose an ${what}`}
          statusType={groups.loading ? "loading" : "finished"}
          selectedOption={placement.on ? { value: placement.on } : null}
          options={options}
          onChange={({ detail }) => onChange({ ...placement, on: detail.selectedOption.value ?? "" })}
        />
      </FormField>
    </>
  );
}

function TrackingFields({ clusterTag, tracking, onChange }: { clusterTag: string; tracking: Tracking; onChange: (tracking: Tracking) => void }) {
  const { api } = useApp();
  const servers = useResource(
    (signal) =>
      allPages<Schemas["MlflowTrackingServerView"]>(async (next) => {
        const page = await unwrap(
          api.GET("/clusters/{clusterTag}/mlflow-tracking-servers", { params: { path: { clusterTag }, query: { limit: 100, continue: next } }, signal }),
        );
        return { items: page.trackingServers, next: page.continue };
      }),
    [api, clusterTag],
  );
  return (
    <ColumnLayout columns={2}>
      <FormField
        label="Tracking server"
        description="The SageMaker managed MLflow tracking servers in the cluster's Region."
        errorText={servers.error ? `The tracking servers could not be listed: ${errorText(servers.error).message}` : undefined}
      >
        <Select
          ariaLabel="Tracking server"
          placeholder="Choose a tracking server"
          statusType={servers.loading ? "loading" : "finished"}
          empty="No MLflow tracking server in this Region."
          selectedOption={tracking.trackingServer ? { value: tracking.trackingServer } : null}
          options={(servers.data ?? []).map((server) => ({ value: server.name, description: server.status }))}
          onChange={({ detail }) => onChange({ ...tracking, trackingServer: detail.selectedOption.value ?? "" })}
        />
      </FormField>
      <FormField label="Experiment" description="Letters, digits and - _ . / (MLFLOW_EXPERIMENT_NAME).">
        <Input ariaLabel="Experiment" value={tracking.experiment} onChange={({ detail }) => onChange({ ...tracking, experiment: detail.value })} />
      </FormField>
    </ColumnLayout>
  );
}

function Review({ review }: { review: RecipeJob }) {
  const job = review.job;
  return (
    <Container header={<Header variant="h2" description="The API's dry run: the job Submit job creates.">Review</Header>}>
      <KeyValuePairs
        columns={2}
        items={[
          { label: "Image", value: job.image },
          { label: "Nodes × GPUs per node", value: `${job.nodes ?? 1} × ${job.gpusPerNode ?? 1}` },
          { label: "Command", value: <Box variant="code">{(job.command ?? []).join(" ")}</Box> },
          {
            label: "Environment",
            value: (
              <Box variant="code">
                {Object.entries(job.environment ?? {})
                  .map(([key, value]) => `${key}=${value}`)
                  .join("\n") || "-"}
              </Box>
            ),
          },
        ]}
      />
    </Container>
  );
}

function Section({ title, description, children }: { title: string; description?: string; children: ReactNode }) {
  return (
    <section aria-label={title}>
      <Container header={<Header variant="h2" description={description}>{title}</Header>}>
        <SpaceBetween size="m">{children}</SpaceBetween>
      </Container>
    </section>
  );
}
