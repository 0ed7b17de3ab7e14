/**
 * Create a cluster: a wizard that runs the whole pipeline or one stage. The step and every choice live in the
 * URL, so a half-filled wizard is a permalink; the review shows the API's dry run before the submit. A refused
 * request's field problems show at their fields (a refused submit opens the first step that has one); a field's
 * error clears once it changes.
 */
import Alert from "@cloudscape-design/components/alert";
import Button from "@cloudscape-design/components/button";
import SpaceBetween from "@cloudscape-design/components/space-between";
import Wizard, { type WizardProps } from "@cloudscape-design/components/wizard";
import { useCallback, useEffect, useState } from "react";
import { useNavigate, useSearchParams } from "react-router-dom";
import { errorText, useApp } from "../../app-context";
import { ClusterStep } from "./ClusterStep";
import {
  FIELD_STEPS,
  fieldErrors,
  formFromQuery,
  isAccepted,
  queryFromForm,
  SCOPES,
  scopeOf,
  send,
  type CreateForm,
  type FieldErrors,
} from "./form";
import { InstanceGroupStep } from "./InstanceGroupStep";
import { ReviewStep } from "./ReviewStep";
import { StorageStep } from "./StorageStep";

/** What a step still needs before Next; the API checks everything else in the review's dry run. */
function missing(form: CreateForm, step: string): string | undefined {
  if (step === "cluster") {
    if (!scopeOf(form).creates) return form.clusterTag ? undefined : "Choose a cluster.";
    return form.clusterTag && form.region ? undefined : "Enter a cluster tag and choose a Region.";
  }
  if (step === "instanceGroup") {
    if (form.capacityType === "training-plan" && !form.trainingPlanArn) return "Choose a training plan.";
    if (form.capacityType !== "training-plan" && !form.availabilityZone) return "Choose an Availability Zone.";
    return form.instanceType ? undefined : "Choose an instance type.";
  }
  return undefined;
}

export default function CreateClusterPage() {
  const { api, identity, notify } = useApp();
  const navigate = useNavigate();
  const [query, setQuery] = useSearchParams();
  const allowed = SCOPES.filter((choice) => identity.mayCall(choice.route));
  // The choices live in state (typing stays smooth) and are mirrored into the URL; the step is read from the URL.
  const [chosen, setChosen] = useState(() => formFromQuery(query));
  const reachable = !allowed.length || allowed.some((choice) => choice.scope === chosen.scope);
  const form = reachable ? chosen : { ...chosen, scope: allowed[0].scope };
  const ids = ["cluster", ...scopeOf(form).steps, "review"];
  const activeStep = Math.min(Number(query.get("step") ?? 0) || 0, ids.length - 1);
  const [blocked, setBlocked] = useState<string>();
  const [submitting, setSubmitting] = useState(false);
  const [refused, setRefused] = useState(false);
  const [errors, setErrors] = useState<FieldErrors>({});
  const permalink = queryFromForm(form, activeStep).toString();
  useEffect(() => {
    if (permalink !== query.toString()) setQuery(new URLSearchParams(permalink), { replace: true });
  }, [permalink, query, setQuery]);

  if (!allowed.length) return <Alert type="info">Creating a cluster needs the operator or admin role.</Alert>;

  const update = (change: Partial<CreateForm>) => {
    setChosen((current) => ({ ...current, ...change }));
    setErrors((current) => Object.fromEntries(Object.entries(current).filter(([key]) => !(key in change))));
  };
  const onRefused = useCallback((refusal: boolean, error?: unknown) => {
    setRefused(refusal);
    setErrors(fieldErrors(error));
  }, []);
  const navigateTo = ({ detail }: { detail: WizardProps.NavigateDetail }) => {
    const problem = detail.requestedStepIndex > activeStep ? missing(form, ids[activeStep]) : undefined;
    setBlocked(problem);
    if (!problem) setQuery(queryFromForm(form, detail.requestedStepIndex));
  };
  const submit = async () => {
    setSubmitting(true);
    try {
      const outcome = await send(api, form, false);
      if (isAccepted(outcome)) {
        notify.operation(`Create cluster ${form.clusterTag} (${outcome.stages.join(", ")})`, outcome.operationId);
        navigate(`/clusters/${encodeURIComponent(form.clusterTag)}`);
      }
    } catch (error) {
      const problems = fieldErrors(error);
      const first = ids.findIndex((id) => Object.keys(problems).some((key) => FIELD_STEPS[key as keyof CreateForm] === id));
      setErrors(problems);
      if (first < 0) setBlocked(`The API refused the request: ${errorText(error).message}`);
      else setQuery(queryFromForm(form, first));
    } finally {
      setSubmitting(false);
    }
  };
  const content: Record<string, WizardProps.Step> = {
    cluster: { title: "Scope and cluster", content: <ClusterStep form={form} update={update} errors={errors} /> },
    instanceGroup: { title: "Instance group", content: <InstanceGroupStep form={form} update={update} errors={errors} /> },
    storage: { title: "Storage", content: <StorageStep form={form} update={update} errors={errors} /> },
    review: { title: "Review and create", content: <ReviewStep form={form} onRefused={onRefused} /> },
  };
  const steps = ids.map((id, index) => ({ ...content[id], errorText: index === activeStep ? blocked : undefined }));
  const submitText = scopeOf(form).creates ? "Create cluster" : "Run stage";
  // A refused dry run holds the submit: the wizard's own buttons, with the submit disabled and saying why.
  const held = activeStep === ids.length - 1 && refused && (
    <SpaceBetween direction="horizontal" size="xs">
      <Button variant="link" onClick={() => navigate("/clusters")}>
        Cancel
      </Button>
      <Button onClick={() => setQuery(queryFromForm(form, activeStep - 1))}>Previous</Button>
      <Button variant="primary" disabled disabledReason="The plan is refused: fix what it says first.">
        {submitText}
      </Button>
    </SpaceBetween>
  );
  return (
    <Wizard
      steps={steps}
      activeStepIndex={activeStep}
      onNavigate={navigateTo}
      onCancel={() => navigate("/clusters")}
      onSubmit={() => void submit()}
      isLoadingNextStep={submitting}
      submitButtonText={submitText}
      customPrimaryActions={held || undefined}
      i18nStrings={{
        stepNumberLabel: (number) => `Step ${number}`,
        collapsedStepsLabel: (number, count) => `Step ${number} of ${count}`,
        navigationAriaLabel: "Steps",
        cancelButton: "Cancel",
        previousButton: "Previous",
        nextButton: "Next",
        optional: "optional",
      }}
    />
  );
}
