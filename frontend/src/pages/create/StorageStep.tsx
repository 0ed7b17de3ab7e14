/** Storage: the S3 bucket claim every workload mounts at /s3, and optionally an FSx for Lustre file system. */
import FormField from "@cloudscape-design/components/form-field";
import Input from "@cloudscape-design/components/input";
import Select from "@cloudscape-design/components/select";
import SpaceBetween from "@cloudscape-design/components/space-between";
import Toggle from "@cloudscape-design/components/toggle";
import { selected, type StepProps } from "./ClusterStep";
import { FSX_DEPLOYMENT_TYPES, type FsxDeploymentType } from "./form";

export function StorageStep({ form, update, errors = {} }: StepProps) {
  const deploymentOptions = FSX_DEPLOYMENT_TYPES.map((type) => ({ value: type, label: type }));
  return (
    <SpaceBetween size="l">
      <FormField label="S3 bucket" description="An existing bucket to mount. Leave empty to create one for the cluster."
        errorText={errors.bucketName}
      >
        <Input value={form.bucketName} onChange={({ detail }) => update({ bucketName: detail.value })} />
      </FormField>
      <FormField label="Claim name" errorText={errors.claimName}>
        <Input value={form.claimName} onChange={({ detail }) => update({ claimName: detail.value })} />
      </FormField>
      <FormField
        label="Namespace"
        description="Where the claims, jobs and model servers go: default, a new namespace (created labelled app.kubernetes.io/managed-by=instantstart), or an existing one with that label; never kube-*."
        errorText={errors.namespace}
      >
        <Input value={form.namespace} onChange={({ detail }) => update({ namespace: detail.value })} />
      </FormField>
      <Toggle checked={form.fsx} onChange={({ detail }) => update({ fsx: detail.checked })}>
        Also create an FSx for Lustre file system
      </Toggle>
      {form.fsx && (
        <>
          <FormField label="FSx deployment type" errorText={errors.fsxDeploymentType}>
            <Select
              selectedOption={selected(deploymentOptions, form.fsxDeploymentType)}
              onChange={({ detail }) => update({ fsxDeploymentType: detail.selectedOption.value as FsxDeploymentType })}
              options={deploymentOptions}
            />
          </FormField>
          <FormField label="FSx capacity (GiB)" description="1200, or a multiple of 2400." errorText={errors.fsxStorageCapacityGiB}>
            <Input
              type="number"
              inputMode="numeric"
              value={form.fsxStorageCapacityGiB}
              onChange={({ detail }) => update({ fsxStorageCapacityGiB: detail.value })}
            />
          </FormField>
        </>
      )}
    </SpaceBetween>
  );
}
