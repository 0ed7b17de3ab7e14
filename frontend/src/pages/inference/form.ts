/**
 * The deploy form's values and the `DeployModelRequest` they make. The GPU count starts empty on purpose: it is
 * required and never derived from a tensor-parallel flag, so the person types it.
 */
import type { Schemas } from "../../api/client";
import { NO_TEAM, teamFields, type TeamChoice } from "../../components/TeamPicker";

export type ServiceType = Schemas["ServiceType"];

export interface DeployFormValues {
  name: string;
  command: string;
  gpus: string;
  serviceType: ServiceType;
  replicas: string;
  instanceType: string;
  image: string;
  port: string;
  huggingFaceToken: string;
  job: string;
  /** Task governance: the team whose namespace and queue the server goes to (not for pool workers). */
  team: TeamChoice;
}

export const EMPTY_DEPLOY: DeployFormValues = {
  name: "",
  command: "",
  gpus: "",
  serviceType: "internal",
  replicas: "1",
  instanceType: "",
  image: "",
  port: "",
  huggingFaceToken: "",
  job: "",
  team: NO_TEAM,
};

/** A whole number of at least 1, or undefined. */
export function positive(value: string): number | undefined {
  const number = Number(value);
  return value.trim() !== "" && Number.isInteger(number) && number >= 1 ? number : undefined;
}

/** The request body: only the optional fields the person set. */
export function deployBody(values: DeployFormValues): Schemas["DeployModelRequest"] {
  return {
    name: values.name.trim(),
    command: values.command.trim(),
    gpus: positive(values.gpus) ?? 0,
    serviceType: values.serviceType,
    replicas: positive(values.replicas) ?? 1,
    sharedMemoryGi: 16,
    ...(values.instanceType ? { instanceType: values.instanceType } : {}),
    ...(values.image.trim() ? { image: values.image.trim() } : {}),
    ...(positive(values.port) ? { port: positive(values.port) } : {}),
    ...(values.huggingFaceToken ? { huggingFaceToken: values.huggingFaceToken } : {}),
    ...(values.job.trim() ? { modelSource: { job: values.job.trim() } } : {}),
    ...(values.serviceType === "pool" ? {} : teamFields(values.team)),
  };
}
