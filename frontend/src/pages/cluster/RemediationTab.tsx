/**
 * Remediation tab: what an unhealthy-node event does on the cluster when HyperPod's own recovery did not act — the
 * action (notify | reboot | replace | health-check), the record-only switch and the limits per hour. Everyone sees the policy; an
 * admin (`PUT …/remediation-policy`) edits it; a policy that replaces nodes is saved only once the admin has confirmed
 * the plan the API answers with. What the policy did is in the Events tab (and each node's history).
 */
import Alert from "@cloudscape-design/components/alert";
import Box from "@cloudscape-design/components/box";
import Button from "@cloudscape-design/components/button";
import Container from "@cloudscape-design/components/container";
import Form from "@cloudscape-design/components/form";
import FormField from "@cloudscape-design/components/form-field";
import Header from "@cloudscape-design/components/header";
import Input from "@cloudscape-design/components/input";
import KeyValuePairs from "@cloudscape-design/components/key-value-pairs";
import Select from "@cloudscape-design/components/select";
import SpaceBetween from "@cloudscape-design/components/space-between";
import Toggle from "@cloudscape-design/components/toggle";
import { useEffect, useState } from "react";
import { unwrap, type Schemas } from "../../api/client";
import { useApp } from "../../app-context";
import { ErrorAlert } from "../../components/ErrorAlert";
import { RouterLink } from "../../components/links";
import { useResource } from "../../hooks/useResource";
import { useConfirmation } from "./plan";
import type { ClusterTabProps } from "./tabs";

type Policy = Schemas["RemediationPolicy"];
type Action = Policy["action"];

const ACTIONS: { value: Action; label: string; description: string }[] = [
  { value: "notify", label: "Notify", description: "Record the event only" },
  { value: "reboot", label: "Reboot", description: "Reboot the node" },
  { value: "replace", label: "Replace", description: "Replace the node (its volumes are lost)" },
  {
    value: "health-check",
    label: "Deep health check",
    description: "Run GPU/EFA checks; HyperPod reboots or replaces the node if it fails (its volumes are then lost)",
  },
];
const LIMIT_RANGE = { min: 1, max: 100 };

export default function RemediationTab({ cluster }: ClusterTabProps) {
  const { api, identity, notify } = useApp();
  const clusterTag = cluster.clusterTag;
  const policy = useResource(
    (signal) => unwrap(api.GET("/clusters/{clusterTag}/remediation-policy", { params: { path: { clusterTag } }, signal })),
    [api, clusterTag],
  );
  const mayEdit = identity.mayCall("PUT /clusters/{clusterTag}/remediation-policy");
  const [draft, setDraft] = useState<Policy>();
  const [saving, setSaving] = useState(false);
  const confirmation = useConfirmation();
  useEffect(() => {
    if (policy.data) setDraft(editable(policy.data));
  }, [policy.data]);

  const save = async () => {
    if (!draft) return;
    setSaving(true);
    try {
      const saved = await confirmation.confirming(`Set the remediation policy of ${clusterTag}`, "Save policy", (confirmationToken) =>
        unwrap(
          api.PUT("/clusters/{clusterTag}/remediation-policy", {
            params: { path: { clusterTag }, query: confirmationToken ? { confirmationToken } : {} },
            body: draft,
          }),
        ),
      );
      if (!saved) return;
      notify.success(`Remediation policy of ${clusterTag} saved: ${draft.action}${draft.recordOnly ? " (record only)" : ""}.`);
      policy.reload();
    } catch (error: unknown) {
      notify.error(error, "The remediation policy was not saved");
    } finally {
      setSaving(false);
    }
  };

  const current = policy.data;
  return (
    <SpaceBetween size="m">
      <ErrorAlert error={policy.error} header="The remediation policy could not be read" />
      <Container
        header={
          <Header
            description="What an unhealthy-node event does when HyperPod's own recovery did not act. HyperPod acts first."
            actions={<Button iconName="refresh" ariaLabel="Refresh the policy" onClick={policy.reload} />}
          >
            Remediation policy
          </Header>
        }
      >
        {current ? (
          <KeyValuePairs
            columns={3}
            items={[
              { label: "Action", value: current.action },
              { label: "Record only", value: current.recordOnly ? "Yes: records what it would do" : "No" },
              { label: "Node operations per hour", value: String(current.maxActionsPerHour) },
              { label: "Per instance group per hour", value: String(current.maxActionsPerGroupPerHour) },
              { label: "Set by", value: current.updatedBy ?? "default (notify)" },
              { label: "Set at", value: current.updatedAt ? new Date(current.updatedAt).toLocaleString() : "-" },
            ]}
          />
        ) : (
          <Box>Loading the policy</Box>
        )}
        <Box margin={{ top: "s" }}>
          What the policy did is in the <RouterLink href={`/clusters/${encodeURIComponent(clusterTag)}?tab=events`}>Events</RouterLink>{" "}
          tab, and each node's history.
        </Box>
      </Container>
      {mayEdit && draft && (
        <Container header={<Header>Change the policy</Header>}>
          <Form
            actions={
              <Button variant="primary" loading={saving} disabled={!valid(draft)} onClick={() => void save()}>
                Save policy
              </Button>
            }
          >
            <SpaceBetween size="m">
              <FormField label="Action" description="What an unhealthy node gets when HyperPod repairs nothing.">
                <Select
                  selectedOption={ACTIONS.find((option) => option.value === draft.action) ?? null}
                  options={ACTIONS}
                  onChange={(event) => setDraft({ ...draft, action: event.detail.selectedOption.value as Action })}
                  ariaLabel="Action"
                />
              </FormField>
              {(draft.action === "replace" || draft.action === "health-check") && !draft.recordOnly && (
                <Alert type="warning">
                  {draft.action === "replace" ? "Replace destroys the node's volumes" : "A node that fails its deep health checks is replaced, which destroys its volumes"}
                  : agree it with the people using the cluster first. Saving shows the plan to confirm.
                </Alert>
              )}
              <Toggle checked={draft.recordOnly ?? false} onChange={(event) => setDraft({ ...draft, recordOnly: event.detail.checked })}>
                Record only (dry run: record what the policy would do, do nothing)
              </Toggle>
              <Limit
                label="Node operations per hour"
                value={draft.maxActionsPerHour}
                onChange={(value) => setDraft({ ...draft, maxActionsPerHour: value })}
              />
              <Limit
                label="Node operations per instance group per hour"
                value={draft.maxActionsPerGroupPerHour}
                onChange={(value) => setDraft({ ...draft, maxActionsPerGroupPerHour: value })}
              />
            </SpaceBetween>
          </Form>
        </Container>
      )}
      {confirmation.modal}
    </SpaceBetween>
  );
}

function Limit(props: { label: string; value: number | undefined; onChange: (value: number) => void }) {
  const value = props.value ?? LIMIT_RANGE.min;
  const inRange = Number.isInteger(value) && value >= LIMIT_RANGE.min && value <= LIMIT_RANGE.max;
  return (
    <FormField label={props.label} errorText={inRange ? undefined : `Between ${LIMIT_RANGE.min} and ${LIMIT_RANGE.max}.`}>
      <Input type="number" ariaLabel={props.label} value={String(value)} onChange={(event) => props.onChange(Number(event.detail.value))} />
    </FormField>
  );
}

function editable(view: Schemas["RemediationPolicyView"]): Policy {
  return {
    action: view.action,
    recordOnly: view.recordOnly,
    maxActionsPerHour: view.maxActionsPerHour,
    maxActionsPerGroupPerHour: view.maxActionsPerGroupPerHour,
  };
}

function valid(policy: Policy): boolean {
  return [policy.maxActionsPerHour, policy.maxActionsPerGroupPerHour].every(
    (value) => value === undefined || (Number.isInteger(value) && value >= LIMIT_RANGE.min && value <= LIMIT_RANGE.max),
  );
}
