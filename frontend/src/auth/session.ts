/**
 * Who is signed in, kept in sessionStorage for this tab: a sandbox token, or Cognito tokens obtained with the
 * authorization code flow and PKCE through the hosted UI. Nothing here decides what a person may do: the API
 * does, and the console only hides what the API would refuse (see `app-context.tsx`).
 */
import type { CognitoAuth, ConsoleConfig, Role } from "../config";

const TOKEN_KEY = "instantstart.token";
const PKCE_KEY = "instantstart.pkce";

export interface Session {
  /** The value of the Authorization header. Whatever the sign-in, the role comes from the API (`GET /me`). */
  authorization: string;
}

export function currentSession(): Session | null {
  const stored = sessionStorage.getItem(TOKEN_KEY);
  return stored ? (JSON.parse(stored) as Session) : null;
}

export function signOut(config: ConsoleConfig): void {
  sessionStorage.removeItem(TOKEN_KEY);
  if (config.auth.mode === "cognito") {
    const { hostedUi, clientId, logoutUri } = config.auth;
    const query = new URLSearchParams({ client_id: clientId, logout_uri: logoutUri });
    window.location.assign(`${hostedUi}/logout?${query}`);
  } else {
    window.location.assign("/");
  }
}

export function signInToSandbox(role: Role): Session {
  const session: Session = { authorization: `Bearer sandbox-${role}` };
  sessionStorage.setItem(TOKEN_KEY, JSON.stringify(session));
  return session;
}

function base64Url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

function randomString(byteCount: number): string {
  return base64Url(crypto.getRandomValues(new Uint8Array(byteCount)));
}

/** Sends the browser to the hosted UI; it comes back to `redirectUri` with `?code=…&state=…`. */
export async function startCognitoSignIn(auth: CognitoAuth, returnTo: string): Promise<void> {
  const verifier = randomString(48);
  const state = randomString(16);
  const challenge = base64Url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))));
  sessionStorage.setItem(PKCE_KEY, JSON.stringify({ verifier, state, returnTo }));
  const query = new URLSearchParams({
    response_type: "code",
    client_id: auth.clientId,
    redirect_uri: auth.redirectUri,
    scope: auth.scopes.join(" "),
    code_challenge_method: "S256",
    code_challenge: challenge,
    state,
  });
  window.location.assign(`${auth.hostedUi}/oauth2/authorize?${query}`);
}

/** Exchanges the hosted UI's code for tokens; returns where the person was going, or null when not a callback. */
export async function completeCognitoSignIn(auth: CognitoAuth, location: Location): Promise<string | null> {
  const params = new URLSearchParams(location.search);
  const code = params.get("code");
  const pending = sessionStorage.getItem(PKCE_KEY);
  if (!code || !pending) return null;
  sessionStorage.removeItem(PKCE_KEY);
  const { verifier, state, returnTo } = JSON.parse(pending) as { verifier: string; state: string; returnTo: string };
  if (params.get("state") !== state) throw new Error("Sign-in was interrupted (state mismatch); sign in again.");
  const response = await fetch(`${auth.hostedUi}/oauth2/token`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      client_id: auth.clientId,
      code,
      redirect_uri: auth.redirectUri,
      code_verifier: verifier,
    }),
  });
  if (!response.ok) throw new Error(`Sign-in failed: the token endpoint answered HTTP ${response.status}.`);
  const tokens = (await response.json()) as { id_token: string };
  // API Gateway's Cognito authorizer validates the ID token (`auth.apiToken`; audience: this app client).
  const session: Session = { authorization: `Bearer ${tokens.id_token}` };
  sessionStorage.setItem(TOKEN_KEY, JSON.stringify(session));
  return returnTo;
}
