/**
 * The form that adds an instance group: every capacity choice `AddInstanceGroupRequest` accepts, offering only what
 * the inspection routes list (the Region's AZs, the instance types offered in the chosen AZ, its training plans).
 * The body holds the required fields and the ones the person set; the API's dryRun plan is reviewed before adding.
 */
import Button from "@cloudscape-design/components/button";
import ColumnLayout from "@cloudscape-design/components/column-layout";
import Container from "@cloudscape-design/components/container";
import Form from "@cloudscape-design/components/form";
import FormField from "@cloudscape-design/components/form-field";
import Header from "@cloudscape-design/components/header";
import Input from "@cloudscape-design/components/input";
import RadioGroup from "@cloudscape-design/components/radio-group";
import Select, { type SelectProps } from "@cloudscape-design/components/select";
import SpaceBetween from "@cloudscape-design/components/space-between";
import Toggle from "@cloudscape-design/components/toggle";
import { useState } from "react";
import { unwrap, type Schemas } from "../../api/client";
import { useApp } from "../../app-context";
import { ErrorAlert } from "../../components/ErrorAlert";
import { useResource } from "../../hooks/useResource";
import { sent } from "./plan";

type Request = Schemas["AddInstanceGroupRequest"];
type CapacityType = NonNullable<Request["capacityType"]>;

const CAPACITY_TYPES: { value: CapacityType; label: string; description: string }[] = [
  { value: "on-demand", label: "On-demand", description: "Pay by the hour, no interruption." },
  { value: "spot", label: "Spot", description: "Spare capacity at a discount; instances can be reclaimed." },
  { value: "training-plan", label: "Training plan", description: "Reserved capacity of a SageMaker training plan (its AZ is used)." },
];

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
  const { api } = useApp();
  const region = cluster.region;
  const [name, setName] = useState("");
  const [capacityType, setCapacityType] = useState<CapacityType>("on-demand");
  const [zone, setZone] = useState<string>();
  const [planArn, setPlanArn] = useState<string>();
  const [instanceType, setInstanceType] = useState<string>();
  const [count, setCount] = useState("1");
  const [minimum, setMinimum] = useState("");
  const [ebs, setEbs] = useState("500");
  const [network, setNetwork] = useState("none");
  const [deepHealthChecks, setDeepHealthChecks] = useState("default");
  const [dedicatedSubnet, setDedicatedSubnet] = useState(false);

  const zones = useResource(
    (signal) => unwrap(api.GET("/regions/{region}/availability-zones", { params: { path: { region } }, signal })),
    [api, region],
  );
  const plans = useResource(
    (signal) =>
      capacityType === "training-plan"
        ? unwrap(api.GET("/regions/{region}/training-plans", { params: { path: { region } }, signal }))
        : Promise.resolve(undefined),
    [api, region, capacityType],
  );
  const plan = plans.data?.trainingPlans.find((candidate) => candidate.trainingPlanArn === planArn);
  const typeZone = capacityType === "training-plan" ? (plan?.availabilityZone ?? undefined) : zone;
  const types = useResource(
    (signal) =>
      typeZone
        ? unwrap(api.GET("/regions/{region}/instance-types", { params: { path: { region }, query: { availabilityZone: typeZone } }, signal }))
        : Promise.resolve(undefined),
    [api, region, typeZone],
  );
  const type = types.data?.instanceTypes.find((candidate) => candidate.instanceType === instanceType);

  const networkOptions: SelectProps.Option[] = [
    { value: "none", label: "ENA only" },
    ...(type && type.efaInterfaces > 0 ? [{ value: "efa", label: "EFA", description: "EFA with ENA" }] : []),
    ...(type?.efaOnlyCapable ? [{ value: "efa-only", label: "EFA only", description: "Immutable once the group exists" }] : []),
  ];
  const healthOptions = DEEP_HEALTH_CHECKS.filter((option) => option.value !== "on" || type?.deepHealthChecks);

  const body: Partial<Request> = { instanceGroupName: name, instanceType: instanceType ?? "", instanceCount: Number(count) };
  if (capacityType !== "on-demand") body.capacityType = capacityType;
  if (capacityType === "training-plan") body.trainingPlanArn = planArn;
  else body.availabilityZone = zone;
  if (minimum !== "") body.minInstanceCount = Number(minimum);
  if (ebs !== "500") body.ebsVolumeSizeGb = Number(ebs);
  if (network !== "none") body.networkInterface = network as Request["networkInterface"];
  if (deepHealthChecks !== "default") body.deepHealthChecks = deepHealthChecks === "on";
  if (dedicatedSubnet) body.dedicatedSubnet = true;
  const complete = name !== "" && !!instanceType && count !== "" && (capacityType === "training-plan" ? !!planArn : !!zone);

  const option = (options: SelectProps.Option[], value: string | undefined) => options.find((item) => item.value === value) ?? null;
  const zoneOptions = (zones.data?.availabilityZones ?? []).map((item) => ({ value: item.name, label: item.name, description: item.zoneId }));
  const planOptions = (plans.data?.trainingPlans ?? []).map((item) => ({
    value: item.trainingPlanArn,
    label: item.name,
    description: `${item.status}: ${item.instanceCount} × ${item.instanceType ?? "?"} in ${item.availabilityZone ?? "?"}`,
  }));
  const typeOptions = (types.data?.instanceTypes ?? []).map((item) => ({
    value: item.instanceType,
    label: item.instanceType,
    description: `${item.accelerator}, ${item.gpus} GPU, ${item.vcpus} vCPU, ${item.memoryGib} GiB`,
  }));

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
            <ErrorAlert error={zones.error ?? plans.error ?? types.error} header="The Region's offer could not be read" />
            <FormField label="Name" constraintText="Letters, digits and hyphens; unique in the cluster.">
              <Input value={name} onChange={({ detail }) => setName(detail.value)} placeholder="spot-g6" />
            </FormField>
            <FormField label="Capacity type">
              <RadioGroup
                value={capacityType}
                items={CAPACITY_TYPES}
                onChange={({ detail }) => {
                  setCapacityType(detail.value as CapacityType);
                  setInstanceType(undefined);
                }}
              />
            </FormField>
            {capacityType === "training-plan" ? (
              <FormField label="Training plan" description="The plan's AZ and instance type are used.">
                <Select
                  selectedOption={option(planOptions, planArn)}
                  options={planOptions}
                  statusType={plans.loading ? "loading" : "finished"}
                  empty="No training plan in this Region"
                  placeholder="Choose a training plan"
                  onChange={({ detail }) => {
                    const chosen = plans.data?.trainingPlans.find((item) => item.trainingPlanArn === detail.selectedOption.value);
                    setPlanArn(detail.selectedOption.value);
                    setInstanceType(chosen?.instanceType ?? undefined);
                  }}
                />
              </FormField>
            ) : (
              <FormField label="Availability zone">
                <Select
                  selectedOption={option(zoneOptions, zone)}
                  options={zoneOptions}
                  statusType={zones.loading ? "loading" : "finished"}
                  placeholder="Choose an availability zone"
                  onChange={({ detail }) => {
                    setZone(detail.selectedOption.value);
                    setInstanceType(undefined);
                  }}
                />
              </FormField>
            )}
            <FormField label="Instance type" description="The types offered in the availability zone.">
              <Select
                selectedOption={option(typeOptions, instanceType)}
                options={typeOptions}
                disabled={!typeZone}
                filteringType="auto"
                statusType={types.loading && typeZone ? "loading" : "finished"}
                placeholder={typeZone ? "Choose an instance type" : "Choose the availability zone first"}
                onChange={({ detail }) => {
                  setInstanceType(detail.selectedOption.value);
                  setNetwork("none");
                  setDeepHealthChecks("default");
                }}
              />
            </FormField>
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
