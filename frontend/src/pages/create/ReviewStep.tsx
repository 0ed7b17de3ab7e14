/** The review: the choices, then the API's dry run of them (its plan and pre-flight checks, or its refusal). */
import Container from "@cloudscape-design/components/container";
import Header from "@cloudscape-design/components/header";
import KeyValuePairs from "@cloudscape-design/components/key-value-pairs";
import SpaceBetween from "@cloudscape-design/components/space-between";
import Spinner from "@cloudscape-design/components/spinner";
import { useEffect } from "react";
import { useApp } from "../../app-context";
import { ErrorAlert } from "../../components/ErrorAlert";
import { useResource } from "../../hooks/useResource";
import { PlanDetails, refused } from "../cluster/PlanDetails";
import { isAccepted, scopeOf, send, type CreateForm } from "./form";
import { regionName } from "../../components/regions";

/** `onRefused(true, error)` while the dry run refuses the request (a failing pre-flight check, a 4xx: its error), so
 * that the wizard can hold its submit and show the fields' problems at them. */
export function ReviewStep({ form, onRefused }: { form: CreateForm; onRefused: (refused: boolean, error?: unknown) => void }) {
  const { api } = useApp();
  const scope = scopeOf(form);
  const plan = useResource((signal) => send(api, { ...form }, true, signal), [api, JSON.stringify(form)]);
  const refusal = !!plan.error || (!!plan.data && !isAccepted(plan.data) && refused(plan.data));
  useEffect(() => onRefused(refusal, plan.error), [onRefused, refusal, plan.error]);
  const choices = [
    { label: "What to run", value: scope.label },
    { label: "Cluster tag", value: form.clusterTag },
    { label: "Region", value: `${regionName(form.region)} (${form.region})` },
  ];
  if (scope.creates) choices.push({ label: "Kubernetes version", value: form.kubernetesVersion });
  if (scope.steps.includes("instanceGroup")) {
    choices.push(
      { label: "Capacity type", value: form.capacityType },
      { label: "Instance type", value: `${form.instanceCount} × ${form.instanceType}` },
      form.capacityType === "training-plan"
        ? { label: "Training plan", value: form.trainingPlanArn }
        : { label: "Availability Zone", value: form.availabilityZone },
    );
  }
  if (scope.steps.includes("storage")) {
    const fsx = form.fsx ? ` and FSx ${form.fsxDeploymentType}` : "";
    choices.push({ label: "Storage", value: `${form.bucketName || "a new bucket"}${fsx}` });
  }
  return (
    <SpaceBetween size="l">
      <Container header={<Header variant="h2">Choices</Header>}>
        <KeyValuePairs columns={3} items={choices} />
      </Container>
      <Container
        header={
          <Header variant="h2" description="The API's dry run: nothing is created until you submit.">
            Plan
          </Header>
        }
      >
        {plan.loading ? (
          <Spinner />
        ) : plan.error ? (
          <ErrorAlert error={plan.error} header="The API refuses this request" />
        ) : plan.data && !isAccepted(plan.data) ? (
          <PlanDetails plan={plan.data} />
        ) : null}
      </Container>
    </SpaceBetween>
  );
}
