/** The deployment's `config.json`: where the API is and how people sign in (the sandbox or Cognito). */

export type Role = "viewer" | "operator" | "admin";

export interface SandboxAuth {
  mode: "sandbox";
  /** Each role signs in with the sandbox token of the same name (`sandbox-<role>`). */
  roles: Role[];
}

/** Written by the CDK stack (functions/infra/console.py). */
export interface CognitoAuth {
  mode: "cognito";
  /** The token the API's authorizer validates: the ID token. */
  apiToken: "id";
  region: string;
  userPoolId: string;
  clientId: string;
  /** The hosted UI's base URL, e.g. `https://my-prefix.auth.us-west-2.amazoncognito.com`. */
  hostedUi: string;
  redirectUri: string;
  logoutUri: string;
  scopes: string[];
}

export interface ConsoleConfig {
  apiBase: string;
  /** The live logs' WebSocket API (`wss://…/v1`, or a path of this origin such as `/ws`); absent: logs are polled. */
  wsBase?: string;
  auth: SandboxAuth | CognitoAuth;
}

export async function loadConfig(): Promise<ConsoleConfig> {
  const response = await fetch("/config.json", { cache: "no-store" });
  if (!response.ok) {
    throw new Error(`config.json could not be read (HTTP ${response.status}); the console was deployed without it.`);
  }
  return (await response.json()) as ConsoleConfig;
}
