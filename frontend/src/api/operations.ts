/** Waiting for an operation: `GET /operations/{id}/wait` long polls, asked again until the operation is terminal. */
import { TERMINAL_STATUSES } from "./contract.gen";
import { unwrap, type ApiClient, type Schemas } from "./client";

/** How long one wait holds a request: under API Gateway's 29 s (the API caps a wait at 25 s). */
export const LONG_POLL_SECONDS = 20;

/** The operation once it has ended (succeeded, failed or was cancelled). */
export async function operationEnd(api: ApiClient, operationId: string, signal?: AbortSignal): Promise<Schemas["OperationView"]> {
  const path = { operationId };
  let current = await unwrap(api.GET("/operations/{operationId}", { params: { path }, signal }));
  while (!TERMINAL_STATUSES.has(current.status)) {
    const query = { timeoutSeconds: LONG_POLL_SECONDS };
    current = await unwrap(api.GET("/operations/{operationId}/wait", { params: { path, query }, signal }));
  }
  return current;
}
