import { forPeople } from "./forPeople";

describe("forPeople", () => {
  it("drops the instructions to an agent the console's dialog replaces", () => {
    expect(
      forPeople("Deleting 'demo' destroys what the actions to delete list, and leaves what they keep. Ask the person to confirm, then repeat the request with confirmationToken."),
    ).toBe("Deleting 'demo' destroys what the actions to delete list, and leaves what they keep.");
    expect(forPeople("Scaling down terminates 1 node. The plan and its confirmationToken are in details.")).toBe("Scaling down terminates 1 node.");
  });

  it("names the console place of a route instead of the route", () => {
    expect(forPeople("Feature kuberayOperator needs trainingOperator: enable it first with PATCH /clusters/demo/features.")).toBe(
      "Feature kuberayOperator needs trainingOperator: enable it first with the Features tab.",
    );
    expect(forPeople("delete the model server first (DELETE /clusters/demo/deployments/llama)")).toBe("delete the model server first (the Inference page)");
    expect(forPeople("Configure it with `POST /clusters/demo/storage`.")).toBe("Configure it with the Storage tab.");
    expect(forPeople("Resume it: POST /operations/op-1/resume")).toBe("Resume it: the operation's page");
  });

  it("leaves a route it has no place for, and text without routes", () => {
    expect(forPeople("See GET /me.")).toBe("See GET /me.");
    expect(forPeople("PATCH the instance group.")).toBe("PATCH the instance group.");
  });
});
