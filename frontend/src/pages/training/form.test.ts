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
      cleanPodPolicy: "None",
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
      runPolicy: { restartPolicy: { numRestartBeforeFullJobRestart: 2 }, cleanPodPolicy: "None" },
      logMonitoring: [{ name: "hang", logPattern: "step (\\d+)", expectedRecurringFrequencyInSeconds: 300 }],
    });
  });
});

describe("API_DEFAULTS", () => {
  it("are the defaults of the API's own document", () => {
    const document = JSON.parse(readFileSync("../tests/contract/openapi.snapshot.json", "utf8"));
    const schemas = document.components.schemas;
    const defaultOf = (schema: string, field: string) => schemas[schema].properties[field].default;
    expect(API_DEFAULTS).toEqual({
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
