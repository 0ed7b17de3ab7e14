import { describe, expect, it } from "vitest";
import { regionName, regionOption } from "./regions";

describe("regions", () => {
  it("names a Region as the AWS console does, and keeps the code of one it does not know", () => {
    expect(regionName("us-west-2")).toBe("US West (Oregon)");
    expect(regionName("eu-west-1")).toBe("Europe (Ireland)");
    expect(regionName("xx-test-9")).toBe("xx-test-9");
  });

  it("offers a Region by name with its code as the option's tag", () => {
    expect(regionOption("us-east-1")).toEqual({ value: "us-east-1", label: "US East (N. Virginia)", labelTag: "us-east-1" });
  });
});
