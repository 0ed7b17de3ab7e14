import { describe, expect, it } from "vitest";
import { fieldOf, initialValues, label, recipeBody, refusedParameter, type Parameter, type Recipe } from "./form";

const PARAMETERS: Parameter[] = [
  { name: "dataset", type: "s3uri", required: true, description: "Training data.", maxLength: 1024 },
  { name: "learningRate", type: "number", default: 0.0001, minimum: 0, maximum: 1, description: "Learning rate.", maxLength: 1024 },
  { name: "nodes", type: "integer", default: 1, minimum: 1, maximum: 64, description: "Nodes.", maxLength: 1024 },
  { name: "gpusPerNode", type: "integer", default: 1, description: "GPUs.", maxLength: 1024 },
  { name: "finetuningType", type: "enum", default: "lora", choices: ["lora", "full"], description: "What is trained.", maxLength: 1024 },
  { name: "bf16", type: "boolean", default: true, description: "bfloat16.", maxLength: 1024 },
  { name: "template", type: "string", default: "default", description: "Chat template.", maxLength: 1024 },
] as Parameter[];
const RECIPE = { name: "demo", title: "Demo", description: "A demo.", kind: "HyperPodPyTorchJob", image: "demo:1", parameters: PARAMETERS } as Recipe;

describe("recipe form", () => {
  it("maps each parameter type of the schema to its control, with bounds and required in the field", () => {
    const fields = Object.fromEntries(PARAMETERS.map((parameter) => [parameter.name, fieldOf(parameter)]));
    expect(fields.dataset).toMatchObject({ control: "text", required: true, label: "Dataset" });
    expect(fields.dataset.description).toContain("s3://bucket/prefix");
    expect(fields.learningRate).toMatchObject({ control: "number", label: "Learning rate", required: false });
    expect(fields.nodes.description).toContain("at least 1, at most 64");
    expect(fields.finetuningType).toMatchObject({ control: "select", options: ["lora", "full"] });
    expect(fields.bf16.control).toBe("checkbox");
    expect(label("gradientAccumulationSteps")).toBe("Gradient accumulation steps");
  });

  it("starts from the last values submitted, else from the defaults", () => {
    expect(initialValues(PARAMETERS, { learningRate: 0.0002, bf16: false, dataset: "s3://b/d" })).toEqual({
      dataset: "s3://b/d",
      learningRate: "0.0002",
      nodes: "1",
      gpusPerNode: "1",
      finetuningType: "lora",
      bf16: false,
      template: "default",
    });
    expect(initialValues(PARAMETERS).dataset).toBe("");
  });

  it("sends typed values, the placement and MLflow only when a tracking server is chosen", () => {
    const values = { ...initialValues(PARAMETERS), dataset: "s3://b/d", nodes: "2", template: "" };
    const placement = { kind: "instanceGroup" as const, on: "workers" };

    expect(recipeBody(RECIPE, "job-1", placement, values)).toEqual({
      recipe: "demo",
      name: "job-1",
      instanceGroup: "workers",
      values: { dataset: "s3://b/d", learningRate: 0.0001, nodes: 2, gpusPerNode: 1, finetuningType: "lora", bf16: true },
    });
    const tracked = recipeBody(RECIPE, "job-1", placement, values, { trackingServer: "team", experiment: "exp" });
    expect(tracked.mlflow).toEqual({ trackingServer: "team", experiment: "exp" });
  });

  it("sends the team and its priority when one is chosen", () => {
    const values = initialValues(PARAMETERS);
    const placement = { kind: "instanceType" as const, on: "ml.g5.xlarge" };
    const body = recipeBody(RECIPE, "job-1", placement, values, undefined, { team: "ml-a", priority: "training" });
    expect(body).toMatchObject({ team: "ml-a", priority: "training" });
    expect(recipeBody(RECIPE, "job-1", placement, values)).not.toHaveProperty("team");
  });

  it("finds the parameter an API refusal names", () => {
    expect(refusedParameter({ details: { parameter: "nodes" } })).toBe("nodes");
    expect(refusedParameter(new Error("x"))).toBeUndefined();
  });
});
