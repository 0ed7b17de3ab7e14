/**
 * The Teams tab's scheduler policy (task governance): the cluster's priority classes with their weights, fair share
 * and idle sharing; set or change it (a change through the API's plan and token) and delete it after its plan.
 */
import Box from "@cloudscape-design/components/box";
import Button from "@cloudscape-design/components/button";
import Container from "@cloudscape-design/components/container";
import FormField from "@cloudscape-design/components/form-field";
import Header from "@cloudscape-design/components/header";
import Input from "@cloudscape-design/components/input";
import KeyValuePairs from "@cloudscape-design/components/key-value-pairs";
import SpaceBetween from "@cloudscape-design/components/space-between";
import Toggle from "@cloudscape-design/components/toggle";
import { useState } from "react";
import { unwrap, type Schemas } from "../../api/client";
import { useApp } from "../../app-context";
import type { Answer } from "./PlanDetails";
import { sent, usePlannedAction } from "./plan";

type Policy = Schemas["SchedulerPolicyView"];
type Request = Schemas["SchedulerPolicyRequest"];

/** "training:50, inference:90" as the request's priority classes. */
function parsed(text: string): Request["priorityClasses"] {
  return text
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean)
    .map((item) => {
      const [name, weight] = item.split(":").map((part) => part.trim());
      return { name, weight: Number(weight ?? "0") };
    });
}

function written(policy: Policy | null | undefined): string {
  return (policy?.priorityClasses ?? []).map((priority) => `${priority.name}:${priority.weight}`).join(", ");
}

export function SchedulerPolicyPanel(props: { clusterTag: string; policy: Policy | null | undefined; onChanged: () => void }) {
  const { clusterTag, policy, onChanged } = props;
  const { api, identity } = useApp();
  const planned = usePlannedAction(onChanged);
  const [classes, setClasses] = useState(written(policy));
  const [fairShare, setFairShare] = useState(policy?.fairShare ?? true);
  const mayPut = identity.mayCall("PUT /clusters/{clusterTag}/scheduler-policy");
  const mayDelete = identity.mayCall("DELETE /clusters/{clusterTag}/scheduler-policy");

  const save = () => {
    const body = sent<Request>({ priorityClasses: parsed(classes), ...(fairShare ? {} : { fairShare }) });
    const put = (query: { dryRun?: boolean; confirmationToken?: string }) =>
      unwrap(api.PUT("/clusters/{clusterTag}/scheduler-policy", { params: { path: { clusterTag }, query }, body }));
    planned.start({
      header: policy ? "Change the scheduler policy" : "Set the scheduler policy",
      confirmLabel: "Save policy",
      // With dryRun the API answers the plan (and, for a change, its token), not the policy.
      plan: () => put({ dryRun: true }) as Promise<Answer>,
      run: async (confirmationToken) => {
        await put(confirmationToken ? { confirmationToken } : {});
        return { message: "the scheduler policy is saved." };
      },
    });
  };
  const remove = () => {
    const call = (query: { dryRun?: boolean; confirmationToken?: string }) =>
      unwrap(api.DELETE("/clusters/{clusterTag}/scheduler-policy", { params: { path: { clusterTag }, query } }));
    planned.start({
      header: "Delete the scheduler policy",
      confirmLabel: "Delete policy",
      // dryRun answers the plan (the 200 is a plan or, once confirmed, the result).
      plan: () => call({ dryRun: true }) as Promise<Schemas["Plan"]>,
      run: async (confirmationToken) => {
        await call({ confirmationToken });
        return { message: "the scheduler policy is being deleted." };
      },
    });
  };

  return (
    <Container
      header={
        <Header
          variant="h2"
          description="Priority classes order the teams' queued jobs; fair share divides idle capacity by weight."
          actions={mayDelete && policy && <Button onClick={remove}>Delete policy</Button>}
        >
          Scheduler policy
        </Header>
      }
    >
      <SpaceBetween size="m">
        {policy ? (
          <KeyValuePairs
            columns={3}
            items={[
              { label: "Priority classes", value: written(policy) },
              { label: "Fair share", value: policy.fairShare ? "On" : "Off" },
              { label: "Status", value: `${policy.status} (version ${policy.version})` },
            ]}
          />
        ) : (
          <Box>No scheduler policy yet.</Box>
        )}
        {mayPut && (
          <SpaceBetween direction="horizontal" size="s" alignItems="end">
            <FormField label="Priority classes" description="name:weight (0-100), comma-separated">
              <Input value={classes} onChange={({ detail }) => setClasses(detail.value)} placeholder="training:50, inference:90" />
            </FormField>
            <Toggle checked={fairShare} onChange={({ detail }) => setFairShare(detail.checked)}>
              Fair share
            </Toggle>
            <Button onClick={save} disabled={!classes.trim()}>
              Save policy
            </Button>
          </SpaceBetween>
        )}
      </SpaceBetween>
      {planned.modal}
    </Container>
  );
}
