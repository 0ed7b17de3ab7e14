/**
 * The first instance group: placed with the console's placement picker (the Region's AZs, the instance types
 * offered in the chosen AZ, its training plans), then its count, name, volume size and subnet.
 */
import FormField from "@cloudscape-design/components/form-field";
import Input from "@cloudscape-design/components/input";
import SpaceBetween from "@cloudscape-design/components/space-between";
import Toggle from "@cloudscape-design/components/toggle";
import { PlacementPicker, usePlacementOffer } from "../../components/PlacementPicker";
import type { StepProps } from "./ClusterStep";

export function InstanceGroupStep({ form, update, errors = {} }: StepProps) {
  const offer = usePlacementOffer(form.region, form);

  return (
    <SpaceBetween size="l">
      <PlacementPicker
        region={form.region}
        value={form}
        offer={offer}
        errors={errors}
        onChange={(change, plan) => update(plan ? { ...change, instanceCount: String(plan.instanceCount) } : change)}
      />
      <FormField label="Instance count" errorText={errors.instanceCount}>
        <Input
          type="number"
          inputMode="numeric"
          value={form.instanceCount}
          onChange={({ detail }) => update({ instanceCount: detail.value })}
        />
      </FormField>
      <FormField label="Instance group name" errorText={errors.instanceGroupName}>
        <Input value={form.instanceGroupName} onChange={({ detail }) => update({ instanceGroupName: detail.value })} />
      </FormField>
      <FormField label="EBS volume per instance (GiB)" errorText={errors.ebsVolumeSizeGb}>
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
