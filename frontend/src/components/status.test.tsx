import { render, screen } from "@testing-library/react";
import { Status } from "./status";

describe("Status", () => {
  it("shows the API's word and marks failures as errors", () => {
    const { container } = render(<Status value="FAILED" />);
    expect(screen.getByText("FAILED")).toBeInTheDocument();
    expect(container.querySelector('[class*="status-error"]')).not.toBeNull();
  });

  it("says UNKNOWN rather than nothing when the API sent no status", () => {
    render(<Status value={null} />);
    expect(screen.getByText("UNKNOWN")).toBeInTheDocument();
  });
});
