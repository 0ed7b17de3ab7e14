/**
 * The first instance group: offers only the AZs of the Region, the instance types offered in the chosen AZ and
 * the Region's training plans, as the inspection routes list them.
 */
import FormField from "@cloudscape-design/components/form-field";
import Input from "@cloudscape-design/components/input";
import RadioGroup from "@cloudscape-design/components/radio-group";
import Select from "@cloudscape-design/components/select";
import SpaceBetween from "@cloudscape-design/components/space-between";
import Toggle from "@cloudscape-design/components/toggle";
import { unwrap } from "../../api/client";
import { useApp } from "../../app-context";
import { ErrorAlert } from "../../components/ErrorAlert";
import { useResource } from "../../hooks/useResource";
import { selected, type StepProps } from "./ClusterStep";
import { CAPACITY_TYPES, type CapacityType } from "./form";

export function InstanceGroupStep({ form, update }: StepProps) {
  const { api } = useApp();
  const region = { region: form.region };
  const trainingPlan = form.capacityType === "training-plan";
  const zones = useResource(
    (signal) => unwrap(api.GET("/regions/{region}/availability-zones", { params: { path: region }, signal })),
    [api, form.region],
  );
  const plans = useResource(
    async (signal) =>
      trainingPlan ? unwrap(api.GET("/regions/{region}/training-plans", { params: { path: region }, signal })) : undefined,
    [api, form.region, trainingPlan],
  );
  const plan = plans.data?.trainingPlans.find((candidate) => candidate.trainingPlanArn === form.trainingPlanArn);
  const zone = trainingPlan ? (plan?.availabilityZone ?? "") : form.availabilityZone;
  const types = useResource(
    async (signal) =>
      zone
        ? unwrap(
            api.GET("/regions/{region}/instance-types", {
              params: { path: region, query: { availabilityZone: zone } },
              signal,
            }),
          )
        : undefined,
    [api, form.region, zone],
  );

  const zoneOptions = (zones.data?.availabilityZones ?? []).map((az) => ({
    value: az.name,
    label: az.name,
    description: az.zoneId,
  }));
  const planOptions = (plans.data?.trainingPlans ?? []).map((candidate) => ({
    value: candidate.trainingPlanArn,
    label: candidate.name,
    description:
      `${candidate.status} · ${candidate.instanceCount} × ${candidate.instanceType ?? "?"}` +
      ` in ${candidate.availabilityZone ?? "?"}`,
  }));
  const typeOptions = (types.data?.instanceTypes ?? []).map((type) => ({
    value: type.instanceType,
    label: type.instanceType,
    description:
      `${type.gpus} × ${type.accelerator} · ${type.vcpus} vCPU · ${type.memoryGib} GiB` +
      ` · EFA ${type.efaInterfaces}`,
  }));

  return (
    <SpaceBetween size="l">
      <ErrorAlert error={zones.error ?? plans.error ?? types.error} header="Choices could not be listed" />
      <FormField label="Capacity type">
        <RadioGroup
          value={form.capacityType}
          onChange={({ detail }) =>
            update({ capacityType: detail.value as CapacityType, trainingPlanArn: "", instanceType: "" })
          }
          items={CAPACITY_TYPES}
        />
      </FormField>
      {trainingPlan ? (
        <FormField label="Training plan" description="The group runs in the plan's Availability Zone.">
          <Select
            selectedOption={selected(planOptions, form.trainingPlanArn)}
            onChange={({ detail }) => {
              const chosen = plans.data?.trainingPlans.find(
                (candidate) => candidate.trainingPlanArn === detail.selectedOption.value,
              );
              update({
                trainingPlanArn: detail.selectedOption.value ?? "",
                instanceType: chosen?.instanceType ?? "",
                instanceCount: chosen ? String(chosen.instanceCount) : form.instanceCount,
              });
            }}
            options={planOptions}
            statusType={plans.loading ? "loading" : "finished"}
            placeholder="Choose a training plan"
            empty={`No training plans in ${form.region}.`}
          />
        </FormField>
      ) : (
        <FormField label="Availability Zone">
          <Select
            selectedOption={selected(zoneOptions, form.availabilityZone)}
            onChange={({ detail }) => update({ availabilityZone: detail.selectedOption.value ?? "", instanceType: "" })}
            options={zoneOptions}
            statusType={zones.loading ? "loading" : "finished"}
            placeholder="Choose an Availability Zone"
          />
        </FormField>
      )}
      <FormField label="Instance type" description="Only the types offered in the Availability Zone.">
        <Select
          selectedOption={selected(typeOptions, form.instanceType)}
          onChange={({ detail }) => update({ instanceType: detail.selectedOption.value ?? "" })}
          options={typeOptions}
          filteringType="auto"
          disabled={!zone}
          statusType={types.loading && zone ? "loading" : "finished"}
          placeholder={zone ? "Choose an instance type" : "Choose the Availability Zone first"}
        />
      </FormField>
      <FormField label="Instance count">
        <Input
          type="number"
          inputMode="numeric"
          value={form.instanceCount}
          onChange={({ detail }) => update({ instanceCount: detail.value })}
        />
      </FormField>
      <FormField label="Instance group name">
        <Input value={form.instanceGroupName} onChange={({ detail }) => update({ instanceGroupName: detail.value })} />
      </FormField>
      <FormField label="EBS volume per instance (GB)">
        <Input
          type="number"
          inputMode="numeric"
          value={form.ebsVolumeSizeGb}
          onChange={({ detail }) => update({ ebsVolumeSizeGb: detail.value })}
        />
      </FormField>
      <Toggle checked={form.dedicatedSubnet} onChange={({ detail }) => update({ dedicatedSubnet: detail.checked })}>
        Give the group its own compute subnet
      </Toggle>
    </SpaceBetween>
  );
}
