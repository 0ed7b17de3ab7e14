/**
 * The typed REST client: paths and bodies come from the OpenAPI document (`npm run gen` writes
 * `schema.d.ts`), so a renamed field fails the build. Every call carries the session's Authorization header;
 * every mutating call carries a fresh `Idempotency-Key`, so a retried click never starts a second operation.
 */
import createClient, { type Middleware } from "openapi-fetch";
import type { components, paths } from "./schema";

export type Schemas = components["schemas"];
export type ApiClient = ReturnType<typeof createClient<paths>>;

/** An API refusal or failure, with the message and request id the API gave. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId?: string,
    readonly details?: Record<string, unknown> | null,
  ) {
    super(message);
  }
}

const MUTATING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

export function createApiClient(baseUrl: string, authorization: () => string | null, onUnauthorized: () => void): ApiClient {
  const client = createClient<paths>({ baseUrl });
  const middleware: Middleware = {
    onRequest({ request }) {
      const value = authorization();
      if (value) request.headers.set("Authorization", value);
      if (MUTATING.has(request.method)) request.headers.set("Idempotency-Key", crypto.randomUUID());
      return request;
    },
    onResponse({ response }) {
      if (response.status === 401) onUnauthorized();
      return response;
    },
  };
  client.use(middleware);
  return client;
}

interface Outcome<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The body of a successful call, or an ApiError carrying the API's own message and request id. */
export async function unwrap<T>(call: Promise<Outcome<T>>): Promise<T> {
  let outcome: Outcome<T>;
  try {
    outcome = await call;
  } catch (error) {
    throw new ApiError(0, "ApiUnavailable", `The API could not be reached: ${String(error)}`);
  }
  const { data, error, response } = outcome;
  if (response.ok) return data as T;
  const body = (error ?? {}) as Partial<Schemas["ErrorBody"]>;
  throw new ApiError(
    response.status,
    body.code ?? `HTTP${response.status}`,
    body.message ?? `The API answered HTTP ${response.status}.`,
    body.requestId ?? response.headers.get("x-request-id") ?? undefined,
    body.details,
  );
}
