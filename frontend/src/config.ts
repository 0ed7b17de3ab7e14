/** The deployment's `config.json`: where the API is and how people sign in (the sandbox or Cognito). */

export type Role = "viewer" | "operator" | "admin";

export interface SandboxAuth {
  mode: "sandbox";
  /** Each role signs in with the sandbox token of the same name (`sandbox-<role>`). */
  roles: Role[];
}

export interface CognitoAuth {
  mode: "cognito";
  region: string;
  userPoolId: string;
  clientId: string;
  /** Hosted UI domain, e.g. `my-prefix.auth.us-west-2.amazoncognito.com`. */
  domain: string;
  redirectUri: string;
  logoutUri: string;
}

export interface ConsoleConfig {
  apiBase: string;
  auth: SandboxAuth | CognitoAuth;
}

export async function loadConfig(): Promise<ConsoleConfig> {
  const response = await fetch("/config.json", { cache: "no-store" });
  if (!response.ok) {
    throw new Error(`config.json could not be read (HTTP ${response.status}); the console was deployed without it.`);
  }
  return (await response.json()) as ConsoleConfig;
}
