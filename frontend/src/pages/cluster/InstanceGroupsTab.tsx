/**
 * Instance groups tab: the HyperPod cluster's groups as HyperPod reports them; add (`?action=add`), scale
 * (`?scale=<group>`) and delete, each through the API's plan and confirmation.
 */
import { useCollection } from "@cloudscape-design/collection-hooks";
import Box from "@cloudscape-design/components/box";
import Button from "@cloudscape-design/components/button";
import Container from "@cloudscape-design/components/container";
import Form from "@cloudscape-design/components/form";
import FormField from "@cloudscape-design/components/form-field";
import Header from "@cloudscape-design/components/header";
import Input from "@cloudscape-design/components/input";
import SpaceBetween from "@cloudscape-design/components/space-between";
import Table from "@cloudscape-design/components/table";
import { useState } from "react";
import { unwrap, type Schemas } from "../../api/client";
import { useApp } from "../../app-context";
import { ErrorAlert } from "../../components/ErrorAlert";
import { Status } from "../../components/status";
import { AddInstanceGroupForm } from "./AddInstanceGroupForm";
import { useInstanceGroups } from "./groups";
import { usePlannedAction } from "./plan";
import { useQueryParam } from "./query";
import type { ClusterTabProps } from "./tabs";

type Group = Schemas["InstanceGroupView"];

export default function InstanceGroupsTab({ cluster, reload }: ClusterTabProps) {
  const { api, identity } = useApp();
  const clusterTag = cluster.clusterTag;
  const groups = useInstanceGroups(clusterTag);
  const [action, setAction] = useQueryParam("action");
  const [scaling, setScaling] = useQueryParam("scale");
  const refresh = () => {
    groups.reload();
    reload();
  };
  const planned = usePlannedAction(refresh, refresh);
  const { items, collectionProps } = useCollection(groups.data ?? [], {
    selection: { trackBy: "instanceGroupName" },
    sorting: { defaultState: { sortingColumn: { sortingField: "instanceGroupName" } } },
  });
  const selected = collectionProps.selectedItems?.[0];
  const admin = identity.mayCall("POST /clusters/{clusterTag}/instance-groups");

  const remove = (group: Group) => {
    const path = { clusterTag, name: group.instanceGroupName };
    planned.start({
      header: `Delete instance group ${group.instanceGroupName}`,
      confirmLabel: "Delete",
      plan: () => unwrap(api.DELETE("/clusters/{clusterTag}/instance-groups/{name}", { params: { path, query: { dryRun: true } } })),
      run: (confirmationToken) =>
        unwrap(api.DELETE("/clusters/{clusterTag}/instance-groups/{name}", { params: { path, query: { confirmationToken } } })),
    });
  };

  return (
    <SpaceBetween size="m">
      <ErrorAlert error={groups.error} header="Instance groups could not be listed" />
      <Table
        {...collectionProps}
        selectionType={admin ? "single" : undefined}
        loading={groups.loading}
        loadingText="Loading instance groups"
        items={items}
        trackBy="instanceGroupName"
        wrapLines
        ariaLabels={{ selectionGroupLabel: "Instance group selection", itemSelectionLabel: (_, group) => `Select ${group.instanceGroupName}` }}
        empty={<Box textAlign="center">No instance group.</Box>}
        header={
          <Header
            counter={groups.data ? `(${groups.data.length})` : undefined}
            actions={
              <SpaceBetween size="xs" direction="horizontal">
                <Button iconName="refresh" ariaLabel="Refresh instance groups" onClick={groups.reload} />
                {admin && (
                  <>
                    <Button disabled={!selected} onClick={() => selected && setScaling(selected.instanceGroupName)}>
                      Scale
                    </Button>
                    <Button disabled={!selected} onClick={() => selected && remove(selected)}>
                      Delete
                    </Button>
                    <Button variant="primary" onClick={() => setAction("add")}>
                      Add instance group
                    </Button>
                  </>
                )}
              </SpaceBetween>
            }
          >
            Instance groups
          </Header>
        }
        columnDefinitions={[
          { id: "name", header: "Name", sortingField: "instanceGroupName", cell: (group) => group.instanceGroupName },
          { id: "status", header: "Status", cell: (group) => <Status value={group.status} /> },
          { id: "instanceType", header: "Instance type", cell: (group) => group.instanceType ?? "-" },
          { id: "capacityType", header: "Capacity", cell: (group) => group.capacityType },
          {
            id: "count",
            header: "Current / target (min)",
            cell: (group) => `${group.currentCount} / ${group.targetCount}${group.minInstanceCount != null ? ` (${group.minInstanceCount})` : ""}`,
          },
          { id: "trainingPlan", header: "Training plan", cell: (group) => group.trainingPlanArn?.split("/").at(-1) ?? "-" },
          { id: "network", header: "Network", cell: (group) => group.networkInterface ?? "-" },
          { id: "ebs", header: "EBS (GiB)", cell: (group) => group.ebsVolumeSizeGb ?? "-" },
          { id: "deepHealthChecks", header: "Deep health checks", cell: (group) => (group.deepHealthChecks ? "on" : "off") },
          { id: "image", header: "AMI release", cell: (group) => group.imageReleaseVersion ?? "-" },
        ]}
      />
      {admin && scaling && groups.data && (
        <ScaleForm
          key={scaling}
          group={groups.data.find((group) => group.instanceGroupName === scaling)}
          name={scaling}
          onCancel={() => setScaling(null)}
          onReview={(body) => {
            const path = { clusterTag, name: scaling };
            planned.start({
              header: `Scale instance group ${scaling} to ${body.instanceCount}`,
              confirmLabel: "Scale",
              plan: () =>
                unwrap(api.PATCH("/clusters/{clusterTag}/instance-groups/{name}", { params: { path, query: { dryRun: true } }, body })),
              run: async (confirmationToken) => {
                const result = await unwrap(
                  api.PATCH("/clusters/{clusterTag}/instance-groups/{name}", { params: { path, query: { confirmationToken } }, body }),
                );
                setScaling(null);
                return result;
              },
            });
          }}
        />
      )}
      {admin && action === "add" && (
        <AddInstanceGroupForm
          cluster={cluster}
          onCancel={() => setAction(null)}
          onReview={(body) =>
            planned.start({
              header: `Add instance group ${body.instanceGroupName}`,
              confirmLabel: "Add instance group",
              plan: () =>
                unwrap(api.POST("/clusters/{clusterTag}/instance-groups", { params: { path: { clusterTag }, query: { dryRun: true } }, body })),
              run: async () => {
                const accepted = await unwrap(api.POST("/clusters/{clusterTag}/instance-groups", { params: { path: { clusterTag } }, body }));
                setAction(null);
                return accepted;
              },
            })
          }
        />
      )}
      {planned.modal}
    </SpaceBetween>
  );
}

/** Scale one group: the new target count (and minimum); only the fields changed are sent (explicit diff). */
function ScaleForm(props: {
  name: string;
  group: Group | undefined;
  onCancel: () => void;
  onReview: (body: Schemas["UpdateInstanceGroupRequest"]) => void;
}) {
  const { name, group, onCancel, onReview } = props;
  const [count, setCount] = useState(String(group?.targetCount ?? ""));
  const [minimum, setMinimum] = useState(group?.minInstanceCount != null ? String(group.minInstanceCount) : "");
  const body: Schemas["UpdateInstanceGroupRequest"] = { instanceCount: Number(count) };
  if (minimum !== "" && Number(minimum) !== group?.minInstanceCount) body.minInstanceCount = Number(minimum);
  return (
    <Container header={<Header variant="h2">Scale {name}</Header>}>
      <form onSubmit={(event) => event.preventDefault()}>
        <Form
          actions={
            <SpaceBetween direction="horizontal" size="xs">
              <Button variant="link" onClick={onCancel}>
                Cancel
              </Button>
              <Button variant="primary" disabled={!group || count === ""} onClick={() => onReview(body)}>
                Review scaling
              </Button>
            </SpaceBetween>
          }
        >
          {!group && <ErrorAlert error={new Error(`The cluster has no instance group ${name}.`)} />}
          <SpaceBetween size="s">
            <FormField label="Target count" description={group ? `Now ${group.currentCount} running, target ${group.targetCount}.` : undefined}>
              <Input type="number" inputMode="numeric" value={count} onChange={({ detail }) => setCount(detail.value)} />
            </FormField>
            <FormField label="Minimum count" description="Optional: instances that must come up for the group to be InService.">
              <Input type="number" inputMode="numeric" value={minimum} onChange={({ detail }) => setMinimum(detail.value)} />
            </FormField>
          </SpaceBetween>
        </Form>
      </form>
    </Container>
  );
}
