/**
 * The flash of an operation a page started, at each point of its life: running, then its end, which is announced
 * (role status, or alert when it failed). A failed or cancelled operation offers Resume: at once when resuming it
 * destroys nothing, else on its page, where the resume's plan is shown for confirmation.
 */
import Button from "@cloudscape-design/components/button";
import type { FlashbarProps } from "@cloudscape-design/components/flashbar";
import { useNavigate } from "react-router-dom";
import type { Schemas } from "../api/client";
import { forPeople } from "./forPeople";
import { RouterLink } from "./links";

type Operation = Schemas["OperationView"];
/** A flash as a page defines it; the app gives it its id and dismissal. */
export type Flash = Omit<FlashbarProps.MessageDefinition, "id" | "onDismiss" | "dismissible">;

function Link({ operationId }: { operationId: string }) {
  return <RouterLink href={`/operations/${encodeURIComponent(operationId)}`}>{operationId}</RouterLink>;
}

/** Opens the operation's page, where a destructive operation's resume is planned and confirmed. */
function ResumeOnItsPage({ operationId }: { operationId: string }) {
  const navigate = useNavigate();
  return <Button onClick={() => navigate(`/operations/${encodeURIComponent(operationId)}`)}>Resume</Button>;
}

export function runningFlash(header: string, operationId: string): Flash {
  return {
    type: "in-progress",
    loading: true,
    ariaRole: "status",
    header,
    content: (
      <>
        Operation <Link operationId={operationId} /> is running.
      </>
    ),
  };
}

/** The flash of an ended operation; `resume` when the person may resume it (undefined: no Resume). */
export function endedFlash(header: string, operation: Operation, resume?: () => void): Flash {
  const link = <Link operationId={operation.operationId} />;
  if (operation.status === "SUCCEEDED") {
    return { type: "success", ariaRole: "status", header: `${header}: done`, content: <>Operation {link} succeeded.</> };
  }
  const action =
    resume && (operation.destructive ? <ResumeOnItsPage operationId={operation.operationId} /> : <Button onClick={resume}>Resume</Button>);
  if (operation.status === "CANCELLED") {
    return { type: "warning", ariaRole: "alert", header: `${header}: cancelled`, content: <>Operation {link} was cancelled.</>, action };
  }
  const step = operation.error?.step ? ` in step "${operation.error.step}"` : "";
  return {
    type: "error",
    ariaRole: "alert",
    header: `${header}: failed${step}`,
    content: (
      <>
        {forPeople(operation.error?.message ?? "The operation failed.")} (operation {link})
      </>
    ),
    action,
  };
}

/** The flash when the operation could not be followed to its end (its page still can). */
export function unfollowedFlash(header: string, operationId: string, message: string): Flash {
  return {
    type: "warning",
    ariaRole: "status",
    header: `${header}: could not be followed`,
    content: (
      <>
        {message} See operation <Link operationId={operationId} />.
      </>
    ),
  };
}
