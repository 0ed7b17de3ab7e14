import { readFileSync } from "node:fs";
import { API_DEFAULTS, EMPTY_RULE, EMPTY_VALUES, submitBody } from "./form";

const REQUIRED = { ...EMPTY_VALUES, name: "hello", image: "train:1", placeOn: "ml.g6.4xlarge" };

describe("submitBody", () => {
  it("sends only the required fields when the person changed nothing else", () => {
    expect(submitBody(REQUIRED)).toEqual({ name: "hello", image: "train:1", instanceType: "ml.g6.4xlarge" });
  });

  it("sends each changed field, and of the recovery budget only what was changed", () => {
    const body = submitBody({
      ...REQUIRED,
      placement: "instanceGroup",
      placeOn: "workers",
      command: "torchrun\n",
      args: "train.py\n--epochs=2",
      nodes: "2",
      gpusPerNode: "4",
      efa: true,
      environment: "NCCL_DEBUG=INFO\nEMPTY=",
      numRestartBeforeFullJobRestart: "2",
      cleanPodPolicy: "All",
      logMonitoring: [{ ...EMPTY_RULE, name: "hang", logPattern: "step (\\d+)", expectedRecurringFrequencyInSeconds: "300" }],
    });
    expect(body).toEqual({
      name: "hello",
      image: "train:1",
      instanceGroup: "workers",
      command: ["torchrun"],
      args: ["train.py", "--epochs=2"],
      nodes: 2,
      gpusPerNode: 4,
      efa: true,
      environment: { NCCL_DEBUG: "INFO", EMPTY: "" },
      runPolicy: { restartPolicy: { numRestartBeforeFullJobRestart: 2 }, cleanPodPolicy: "All" },
      logMonitoring: [{ name: "hang", logPattern: "step (\\d+)", expectedRecurringFrequencyInSeconds: 300 }],
    });
  });
});

describe("submitBody of a Ray kind", () => {
  it("sends the kind and the entrypoint, and nothing of the HyperPod recovery budget or log monitoring", () => {
    const body = submitBody({
      ...REQUIRED,
      kind: "RayJob",
      command: "python3\n-m\nverl.trainer.main_ppo",
      nodes: "2",
      maxFullJobRestarts: "4",
      logMonitoring: [{ ...EMPTY_RULE, name: "hang", logPattern: "step" }],
    });
    expect(body).toEqual({
      name: "hello",
      kind: "RayJob",
      image: "train:1",
      instanceType: "ml.g6.4xlarge",
      command: ["python3", "-m", "verl.trainer.main_ppo"],
      nodes: 2,
    });
  });
});

describe("API_DEFAULTS", () => {
  it("are the defaults of the API's own document", () => {
    const document = JSON.parse(readFileSync("../tests/contract/openapi.snapshot.json", "utf8"));
    const schemas = document.components.schemas;
    const defaultOf = (schema: string, field: string) => schemas[schema].properties[field].default;
    expect(API_DEFAULTS).toEqual({
      kind: defaultOf("SubmitJobRequest", "kind"),
      nodes: defaultOf("SubmitJobRequest", "nodes"),
      gpusPerNode: defaultOf("SubmitJobRequest", "gpusPerNode"),
      sharedMemoryGi: defaultOf("SubmitJobRequest", "sharedMemoryGi"),
      jobMaxRetryCount: defaultOf("RunPolicy", "jobMaxRetryCount"),
      numRestartBeforeFullJobRestart: defaultOf("RestartPolicy", "numRestartBeforeFullJobRestart"),
      evalPeriodSeconds: defaultOf("RestartPolicy", "evalPeriodSeconds"),
      maxFullJobRestarts: defaultOf("RestartPolicy", "maxFullJobRestarts"),
      cleanPodPolicy: defaultOf("RunPolicy", "cleanPodPolicy"),
    });
  });
});

describe("submitBody's team", () => {
  it("sends the team and its priority when chosen, and neither without a team", () => {
    expect(submitBody({ ...REQUIRED, team: { team: "ml-a", priority: "training" } })).toMatchObject({ team: "ml-a", priority: "training" });
    expect(submitBody({ ...REQUIRED, team: { team: "", priority: "training" } })).not.toHaveProperty("priority");
  });
});
