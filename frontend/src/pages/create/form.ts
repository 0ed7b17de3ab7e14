/**
 * The creation wizard's choices, kept in the URL's query (every wizard state is a permalink), and the one place
 * that turns them into a request to the route the chosen scope runs. Validation stays with the API: a dry run
 * on the review step shows its refusals and pre-flight checks, and a refusal's field problems go to their fields.
 */
import { ApiError, unwrap, type ApiClient, type Schemas } from "../../api/client";
import type { RouteKey } from "../../api/contract.gen";
import type { CapacityType } from "../../components/PlacementPicker";

/** The whole pipeline (`POST /clusters`) or one stage (`POST /clusters/eks`, then the routes of an existing cluster). */
export type Scope = "cluster" | "eks" | "dependencies" | "hyperpod" | "storage";
export type KubernetesVersion = Schemas["CreateEksClusterRequest"]["kubernetesVersion"];
export type FsxDeploymentType = Schemas["FsxRequest"]["deploymentType"];

export interface ScopeChoice {
  scope: Scope;
  label: string;
  description: string;
  /** The route the scope calls: who may call it is the API's route → role table (`identity.mayCall`). */
  route: RouteKey;
  /** Whether the scope creates a cluster (else it runs a stage of an existing one). */
  creates: boolean;
  steps: ("instanceGroup" | "storage")[];
}

export const SCOPES: ScopeChoice[] = [
  {
    scope: "cluster",
    label: "Whole cluster",
    description: "Network and EKS, dependencies, HyperPod with its first instance group, and storage, in one operation.",
    route: "POST /clusters",
    creates: true,
    steps: ["instanceGroup", "storage"],
  },
  {
    scope: "eks",
    label: "EKS stage only",
    description: "A VPC and an EKS control plane; run the next stages later.",
    route: "POST /clusters/eks",
    creates: true,
    steps: [],
  },
  {
    scope: "dependencies",
    label: "Dependencies stage",
    description: "Add-ons and operators on an existing cluster's EKS.",
    route: "POST /clusters/{clusterTag}/dependencies",
    creates: false,
    steps: [],
  },
  {
    scope: "hyperpod",
    label: "HyperPod stage",
    description: "The HyperPod cluster with its first instance group, on an existing cluster.",
    route: "POST /clusters/{clusterTag}/hyperpod",
    creates: false,
    steps: ["instanceGroup"],
  },
  {
    scope: "storage",
    label: "Storage stage",
    description: "An S3 bucket claim, and optionally FSx for Lustre, on an existing cluster.",
    route: "POST /clusters/{clusterTag}/storage",
    creates: false,
    steps: ["storage"],
  },
];

/** Typed against the OpenAPI enums, so a value the API drops fails the build. */
export const KUBERNETES_VERSIONS: KubernetesVersion[] = ["1.35", "1.34", "1.33", "1.32"];
export const FSX_DEPLOYMENT_TYPES: FsxDeploymentType[] = ["SCRATCH_2", "PERSISTENT_2"];

export interface CreateForm {
  scope: Scope;
  clusterTag: string;
  region: string;
  kubernetesVersion: KubernetesVersion;
  vpcCidr: string;
  availabilityZone: string;
  capacityType: CapacityType;
  instanceType: string;
  instanceCount: string;
  trainingPlanArn: string;
  instanceGroupName: string;
  ebsVolumeSizeGb: string;
  dedicatedSubnet: boolean;
  bucketName: string;
  claimName: string;
  namespace: string;
  fsx: boolean;
  fsxDeploymentType: FsxDeploymentType;
  fsxStorageCapacityGiB: string;
}

/** The API's defaults (the OpenAPI document's), shown in the fields so a person sees what will be sent. */
export const DEFAULTS: CreateForm = {
  scope: "cluster",
  clusterTag: "",
  region: "",
  kubernetesVersion: "1.34",
  vpcCidr: "",
  availabilityZone: "",
  capacityType: "on-demand",
  instanceType: "",
  instanceCount: "1",
  trainingPlanArn: "",
  instanceGroupName: "accelerated-worker",
  ebsVolumeSizeGb: "500",
  dedicatedSubnet: false,
  bucketName: "",
  claimName: "s3-claim",
  namespace: "default",
  fsx: false,
  fsxDeploymentType: "SCRATCH_2",
  fsxStorageCapacityGiB: "1200",
};

const KEYS = Object.keys(DEFAULTS) as (keyof CreateForm)[];

/** The form a URL query holds: a missing key is its default. */
export function formFromQuery(query: URLSearchParams): CreateForm {
  const form: Record<string, unknown> = { ...DEFAULTS };
  for (const key of KEYS) {
    const value = query.get(key);
    if (value === null) continue;
    form[key] = typeof DEFAULTS[key] === "boolean" ? value === "true" : value;
  }
  if (!SCOPES.some((choice) => choice.scope === form.scope)) form.scope = DEFAULTS.scope;
  return form as unknown as CreateForm;
}

/** The query for a form and wizard step: only what differs from the defaults, so a permalink stays short. */
export function queryFromForm(form: CreateForm, step: number): URLSearchParams {
  const query = new URLSearchParams();
  if (step > 0) query.set("step", String(step));
  for (const key of KEYS) {
    if (form[key] !== DEFAULTS[key]) query.set(key, String(form[key]));
  }
  return query;
}

export function scopeOf(form: CreateForm): ScopeChoice {
  return SCOPES.find((choice) => choice.scope === form.scope) ?? SCOPES[0];
}

function optional(value: string): string | undefined {
  return value.trim() === "" ? undefined : value.trim();
}

export function hyperPodBody(form: CreateForm): Schemas["CreateHyperPodRequest"] {
  const trainingPlan = form.capacityType === "training-plan";
  return {
    instanceType: form.instanceType,
    instanceCount: Number(form.instanceCount),
    capacityType: form.capacityType,
    availabilityZone: trainingPlan ? undefined : optional(form.availabilityZone),
    trainingPlanArn: trainingPlan ? optional(form.trainingPlanArn) : undefined,
    instanceGroupName: form.instanceGroupName,
    ebsVolumeSizeGb: Number(form.ebsVolumeSizeGb),
    dedicatedSubnet: form.dedicatedSubnet,
  };
}

export function storageBody(form: CreateForm): Schemas["ConfigureStorageRequest"] {
  return {
    bucketName: optional(form.bucketName),
    claimName: form.claimName,
    namespace: form.namespace,
    fsx: form.fsx
      ? {
          claimName: "fsx-claim",
          deploymentType: form.fsxDeploymentType,
          storageCapacityGiB: Number(form.fsxStorageCapacityGiB),
        }
      : undefined,
  };
}

export function eksBody(form: CreateForm): Schemas["CreateEksClusterRequest"] {
  return {
    clusterTag: form.clusterTag,
    region: form.region,
    kubernetesVersion: form.kubernetesVersion,
    vpcCidr: optional(form.vpcCidr),
  };
}

export function clusterBody(form: CreateForm): Schemas["CreateClusterRequest"] {
  return {
    clusterTag: form.clusterTag,
    region: form.region,
    eks: { kubernetesVersion: form.kubernetesVersion, vpcCidr: optional(form.vpcCidr) },
    hyperpod: hyperPodBody(form),
    storage: storageBody(form),
  };
}

export type Outcome = Schemas["Plan"] | Schemas["Accepted"];

export function isAccepted(outcome: Outcome): outcome is Schemas["Accepted"] {
  return "operationId" in outcome;
}

/** Sends the form to its scope's route: the plan with its pre-flight checks (`dryRun`), or the started operation. */
export function send(api: ApiClient, form: CreateForm, dryRun: boolean, signal?: AbortSignal): Promise<Outcome> {
  const query = { dryRun };
  const path = { clusterTag: form.clusterTag };
  switch (form.scope) {
    case "cluster":
      return unwrap(api.POST("/clusters", { params: { query }, body: clusterBody(form), signal }));
    case "eks":
      return unwrap(api.POST("/clusters/eks", { params: { query }, body: eksBody(form), signal }));
    case "dependencies":
      return unwrap(api.POST("/clusters/{clusterTag}/dependencies", { params: { path, query }, signal }));
    case "hyperpod":
      return unwrap(
        api.POST("/clusters/{clusterTag}/hyperpod", { params: { path, query }, body: hyperPodBody(form), signal }),
      );
    case "storage":
      return unwrap(
        api.POST("/clusters/{clusterTag}/storage", { params: { path, query }, body: storageBody(form), signal }),
      );
  }
}

/** A refused request's problems by the form field they name (the fields a person can fix). */
export type FieldErrors = Partial<Record<keyof CreateForm, string>>;

/** The API's name of a field inside an FSx request, where it differs from the form's. */
const FSX_FIELDS: Record<string, keyof CreateForm> = { deploymentType: "fsxDeploymentType", storageCapacityGiB: "fsxStorageCapacityGiB" };

/** The form field an API field path names (`hyperpod.instanceCount` → instanceCount), if the form has one. */
function formField(path: string): keyof CreateForm | undefined {
  const parts = path.split(".");
  const last = parts[parts.length - 1];
  if (parts.includes("fsx")) return FSX_FIELDS[last];
  return (KEYS as string[]).includes(last) && last !== "scope" ? (last as keyof CreateForm) : undefined;
}

/** The field errors of a 400 (its `details.problems`), each under the form field it names. */
export function fieldErrors(error: unknown): FieldErrors {
  const details = error instanceof ApiError ? error.details : undefined;
  const problems = Array.isArray(details?.problems) ? (details.problems as { field?: string; problem?: string }[]) : [];
  const errors: FieldErrors = {};
  for (const { field, problem } of problems) {
    const key = field ? formField(field) : undefined;
    if (key && problem && !errors[key]) errors[key] = problem;
  }
  return errors;
}

/** The wizard step each form field is on. */
export const FIELD_STEPS: Record<keyof CreateForm, "cluster" | "instanceGroup" | "storage"> = {
  scope: "cluster",
  clusterTag: "cluster",
  region: "cluster",
  kubernetesVersion: "cluster",
  vpcCidr: "cluster",
  availabilityZone: "instanceGroup",
  capacityType: "instanceGroup",
  instanceType: "instanceGroup",
  instanceCount: "instanceGroup",
  trainingPlanArn: "instanceGroup",
  instanceGroupName: "instanceGroup",
  ebsVolumeSizeGb: "instanceGroup",
  dedicatedSubnet: "instanceGroup",
  bucketName: "storage",
  claimName: "storage",
  namespace: "storage",
  fsx: "storage",
  fsxDeploymentType: "storage",
  fsxStorageCapacityGiB: "storage",
};
