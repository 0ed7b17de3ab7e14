/**
 * The form that adds an instance group: every capacity choice `AddInstanceGroupRequest` accepts, placed with the
 * console's placement picker (the Region's AZs, the instance types offered in the chosen AZ, its training plans).
 * The body holds the required fields and the ones the person set; the API's dryRun plan is reviewed before adding.
 */
import Button from "@cloudscape-design/components/button";
import ColumnLayout from "@cloudscape-design/components/column-layout";
import Container from "@cloudscape-design/components/container";
import Form from "@cloudscape-design/components/form";
import FormField from "@cloudscape-design/components/form-field";
import Header from "@cloudscape-design/components/header";
import Input from "@cloudscape-design/components/input";
import Select, { type SelectProps } from "@cloudscape-design/components/select";
import SpaceBetween from "@cloudscape-design/components/space-between";
import Toggle from "@cloudscape-design/components/toggle";
import { useState } from "react";
import type { Schemas } from "../../api/client";
import { PlacementPicker, usePlacementOffer, type Placement } from "../../components/PlacementPicker";
import { sent } from "./plan";

type Request = Schemas["AddInstanceGroupRequest"];

const DEEP_HEALTH_CHECKS: SelectProps.Option[] = [
  { value: "default", label: "Default", description: "On for GPU families that support them" },
  { value: "on", label: "On" },
  { value: "off", label: "Off" },
];

export function AddInstanceGroupForm(props: {
  cluster: Schemas["ClusterDetail"];
  onCancel: () => void;
  onReview: (body: Request) => void;
}) {
  const { cluster, onCancel, onReview } = props;
  const region = cluster.region;
  const [name, setName] = useState("");
  const [placement, setPlacement] = useState<Placement>({
    capacityType: "on-demand",
    trainingPlanArn: "",
    availabilityZone: "",
    instanceType: "",
  });
  const [count, setCount] = useState("1");
  const [minimum, setMinimum] = useState("");
  const [ebs, setEbs] = useState("500");
  const [network, setNetwork] = useState("none");
  const [deepHealthChecks, setDeepHealthChecks] = useState("default");
  const [dedicatedSubnet, setDedicatedSubnet] = useState(false);
  const offer = usePlacementOffer(region, placement);
  const { capacityType, trainingPlanArn, availabilityZone, instanceType } = placement;
  const type = offer.type;

  const networkOptions: SelectProps.Option[] = [
    { value: "none", label: "ENA only" },
    ...(type && type.efaInterfaces > 0 ? [{ value: "efa", label: "EFA", description: "EFA with ENA" }] : []),
    ...(type?.efaOnlyCapable ? [{ value: "efa-only", label: "EFA only", description: "Immutable once the group exists" }] : []),
  ];
  const healthOptions = DEEP_HEALTH_CHECKS.filter((option) => option.value !== "on" || type?.deepHealthChecks);

  const body: Partial<Request> = { instanceGroupName: name, instanceType, instanceCount: Number(count) };
  if (capacityType !== "on-demand") body.capacityType = capacityType;
  if (capacityType === "training-plan") body.trainingPlanArn = trainingPlanArn;
  else body.availabilityZone = availabilityZone;
  if (minimum !== "") body.minInstanceCount = Number(minimum);
  if (ebs !== "500") body.ebsVolumeSizeGb = Number(ebs);
  if (network !== "none") body.networkInterface = network as Request["networkInterface"];
  if (deepHealthChecks !== "default") body.deepHealthChecks = deepHealthChecks === "on";
  if (dedicatedSubnet) body.dedicatedSubnet = true;
  const complete =
    name !== "" && !!instanceType && count !== "" && (capacityType === "training-plan" ? !!trainingPlanArn : !!availabilityZone);

  const option = (options: SelectProps.Option[], value: string | undefined) => options.find((item) => item.value === value) ?? null;

  return (
    <Container header={<Header variant="h2">Add instance group</Header>}>
      <form onSubmit={(event) => event.preventDefault()}>
        <Form
          actions={
            <SpaceBetween direction="horizontal" size="xs">
              <Button variant="link" onClick={onCancel}>
                Cancel
              </Button>
              <Button variant="primary" disabled={!complete} onClick={() => onReview(sent<Request>(body))}>
                Review plan
              </Button>
            </SpaceBetween>
          }
        >
          <SpaceBetween size="m">
            <FormField label="Name" constraintText="Letters, digits and hyphens; unique in the cluster.">
              <Input value={name} onChange={({ detail }) => setName(detail.value)} placeholder="spot-g6" />
            </FormField>
            <PlacementPicker
              region={region}
              value={placement}
              offer={offer}
              onChange={(change) => {
                setPlacement((current) => ({ ...current, ...change }));
                if (change.instanceType !== undefined) {
                  setNetwork("none");
                  setDeepHealthChecks("default");
                }
              }}
            />
            <ColumnLayout columns={3}>
              <FormField label="Instance count">
                <Input type="number" inputMode="numeric" value={count} onChange={({ detail }) => setCount(detail.value)} />
              </FormField>
              <FormField label="Minimum count" description="Optional; at most the instance count.">
                <Input type="number" inputMode="numeric" value={minimum} onChange={({ detail }) => setMinimum(detail.value)} />
              </FormField>
              <FormField label="EBS volume per instance (GiB)">
                <Input type="number" inputMode="numeric" value={ebs} onChange={({ detail }) => setEbs(detail.value)} />
              </FormField>
            </ColumnLayout>
            <ColumnLayout columns={2}>
              <FormField label="Network interface">
                <Select
                  selectedOption={option(networkOptions, network)}
                  options={networkOptions}
                  onChange={({ detail }) => setNetwork(detail.selectedOption.value ?? "none")}
                />
              </FormField>
              <FormField label="Deep health checks">
                <Select
                  selectedOption={option(healthOptions, deepHealthChecks)}
                  options={healthOptions}
                  onChange={({ detail }) => setDeepHealthChecks(detail.selectedOption.value ?? "default")}
                />
              </FormField>
            </ColumnLayout>
            <Toggle checked={dedicatedSubnet} onChange={({ detail }) => setDedicatedSubnet(detail.checked)}>
              Give the group its own compute subnet
            </Toggle>
          </SpaceBetween>
        </Form>
      </form>
    </Container>
  );
}
