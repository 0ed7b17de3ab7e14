/** An API error in place: its message, code and request id, so a person can act on it or report it. */
import Alert from "@cloudscape-design/components/alert";
import { errorText } from "../app-context";

export function ErrorAlert({ error, header }: { error: unknown; header?: string }) {
  if (!error) return null;
  const { message, requestId, code } = errorText(error);
  return (
    <Alert type="error" header={header ?? code ?? "Request failed"}>
      {message}
      {requestId ? ` (request id ${requestId})` : ""}
    </Alert>
  );
}
