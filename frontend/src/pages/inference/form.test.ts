import { deployBody, EMPTY_DEPLOY } from "./form";

const REQUIRED = { ...EMPTY_DEPLOY, name: "qwen", command: "vllm serve Qwen/Qwen3-0.6B", gpus: "1" };

describe("deployBody's team", () => {
  it("sends the team and its priority for a served model", () => {
    expect(deployBody({ ...REQUIRED, team: { team: "ml-a", priority: "inference" } })).toMatchObject({ team: "ml-a", priority: "inference" });
  });

  it("sends no team for pool workers, which run in the cluster's namespace", () => {
    expect(deployBody({ ...REQUIRED, serviceType: "pool", team: { team: "ml-a", priority: "" } })).not.toHaveProperty("team");
  });
});
