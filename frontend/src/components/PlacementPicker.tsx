/**
 * Where an instance group runs: its capacity type, then a training plan (whose AZ is used) or an Availability Zone,
 * then an instance type offered there, each offered only as the Region's inspection routes list it. The creation
 * wizard's instance-group step and the cluster's "Add instance group" form both place their group with it:
 * `usePlacementOffer` reads what the Region offers, `PlacementPicker` shows the choices.
 */
import FormField from "@cloudscape-design/components/form-field";
import RadioGroup from "@cloudscape-design/components/radio-group";
import Select, { type SelectProps } from "@cloudscape-design/components/select";
import { unwrap, type Schemas } from "../api/client";
import { useApp } from "../app-context";
import { useResource, type Resource } from "../hooks/useResource";
import { ErrorAlert } from "./ErrorAlert";

export type CapacityType = Schemas["CreateHyperPodRequest"]["capacityType"];
export type TrainingPlan = Schemas["TrainingPlanView"];
export type InstanceType = Schemas["InstanceTypeView"];

export interface Placement {
  capacityType: CapacityType;
  trainingPlanArn: string;
  availabilityZone: string;
  instanceType: string;
}

/** Typed against the OpenAPI enum, so a value the API drops fails the build. */
export const CAPACITY_TYPES: { value: CapacityType; label: string; description: string }[] = [
  { value: "on-demand", label: "On-demand", description: "Pay by the hour, no interruption." },
  { value: "spot", label: "Spot", description: "Spare capacity at a discount; instances can be reclaimed." },
  { value: "training-plan", label: "Training plan", description: "Reserved capacity of a SageMaker training plan (its Availability Zone is used)." },
];

export interface PlacementOffer {
  zones: Resource<Schemas["AvailabilityZoneList"]>;
  plans: Resource<Schemas["TrainingPlanList"] | undefined>;
  types: Resource<Schemas["InstanceTypeList"] | undefined>;
  /** The AZ the instance types are offered in: the training plan's, or the one chosen. */
  zone: string;
  plan: TrainingPlan | undefined;
  type: InstanceType | undefined;
}

/** What `region` offers a group placed at `placement`. */
export function usePlacementOffer(region: string, placement: Placement): PlacementOffer {
  const { api } = useApp();
  const path = { region };
  const trainingPlan = placement.capacityType === "training-plan";
  const zones = useResource(
    (signal) => unwrap(api.GET("/regions/{region}/availability-zones", { params: { path }, signal })),
    [api, region],
  );
  const plans = useResource(
    async (signal) =>
      trainingPlan ? unwrap(api.GET("/regions/{region}/training-plans", { params: { path }, signal })) : undefined,
    [api, region, trainingPlan],
  );
  const plan = plans.data?.trainingPlans.find((candidate) => candidate.trainingPlanArn === placement.trainingPlanArn);
  const zone = trainingPlan ? (plan?.availabilityZone ?? "") : placement.availabilityZone;
  const types = useResource(
    async (signal) =>
      zone
        ? unwrap(api.GET("/regions/{region}/instance-types", { params: { path, query: { availabilityZone: zone } }, signal }))
        : undefined,
    [api, region, zone],
  );
  const type = types.data?.instanceTypes.find((candidate) => candidate.instanceType === placement.instanceType);
  return { zones, plans, types, zone, plan, type };
}

function option(options: SelectProps.Option[], value: string): SelectProps.Option | null {
  return options.find((item) => item.value === value) ?? null;
}

/**
 * The capacity type, the training plan or AZ, and the instance type of `value`. A new capacity type or AZ clears
 * the instance type (and a new capacity type the plan); a chosen plan brings its instance type, and `onChange`
 * gets the plan too (the wizard takes its instance count). `errors`: the API's problems with these fields.
 */
export function PlacementPicker(props: {
  region: string;
  value: Placement;
  offer: PlacementOffer;
  onChange: (change: Partial<Placement>, plan?: TrainingPlan) => void;
  errors?: Partial<Record<keyof Placement, string>>;
}) {
  const { region, value, offer, onChange, errors = {} } = props;
  const { zones, plans, types, zone } = offer;
  const zoneOptions = (zones.data?.availabilityZones ?? []).map((az) => ({ value: az.name, label: az.name, description: az.zoneId }));
  const planOptions = (plans.data?.trainingPlans ?? []).map((plan) => ({
    value: plan.trainingPlanArn,
    label: plan.name,
    description: `${plan.status} · ${plan.instanceCount} × ${plan.instanceType ?? "?"} in ${plan.availabilityZone ?? "?"}`,
  }));
  const typeOptions = (types.data?.instanceTypes ?? []).map((type) => ({
    value: type.instanceType,
    label: type.instanceType,
    description: `${type.gpus} × ${type.accelerator} · ${type.vcpus} vCPU · ${type.memoryGib} GiB · EFA ${type.efaInterfaces}`,
  }));

  return (
    <>
      <ErrorAlert error={zones.error ?? plans.error ?? types.error} header="The Region's offer could not be read" />
      <FormField label="Capacity type" errorText={errors.capacityType}>
        <RadioGroup
          value={value.capacityType}
          items={CAPACITY_TYPES}
          onChange={({ detail }) =>
            onChange({ capacityType: detail.value as CapacityType, trainingPlanArn: "", instanceType: "" })
          }
        />
      </FormField>
      {value.capacityType === "training-plan" ? (
        <FormField
          label="Training plan"
          description="The group runs in the plan's Availability Zone, on its instance type."
          errorText={errors.trainingPlanArn}
        >
          <Select
            selectedOption={option(planOptions, value.trainingPlanArn)}
            options={planOptions}
            statusType={plans.loading ? "loading" : "finished"}
            placeholder="Choose a training plan"
            empty={`No training plans in ${region}.`}
            onChange={({ detail }) => {
              const plan = plans.data?.trainingPlans.find((item) => item.trainingPlanArn === detail.selectedOption.value);
              onChange({ trainingPlanArn: detail.selectedOption.value ?? "", instanceType: plan?.instanceType ?? "" }, plan);
            }}
          />
        </FormField>
      ) : (
        <FormField label="Availability Zone" errorText={errors.availabilityZone}>
          <Select
            selectedOption={option(zoneOptions, value.availabilityZone)}
            options={zoneOptions}
            statusType={zones.loading ? "loading" : "finished"}
            placeholder="Choose an Availability Zone"
            onChange={({ detail }) => onChange({ availabilityZone: detail.selectedOption.value ?? "", instanceType: "" })}
          />
        </FormField>
      )}
      <FormField label="Instance type" description="Only the types offered in the Availability Zone." errorText={errors.instanceType}>
        <Select
          selectedOption={option(typeOptions, value.instanceType)}
          options={typeOptions}
          filteringType="auto"
          disabled={!zone}
          statusType={types.loading && zone ? "loading" : "finished"}
          placeholder={zone ? "Choose an instance type" : "Choose the Availability Zone first"}
          onChange={({ detail }) => onChange({ instanceType: detail.selectedOption.value ?? "" })}
        />
      </FormField>
    </>
  );
}
