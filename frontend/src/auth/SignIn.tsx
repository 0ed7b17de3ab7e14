/** Sign-in: in the sandbox, a choice of role; with Cognito, the hosted UI (authorization code + PKCE). */
import Box from "@cloudscape-design/components/box";
import Button from "@cloudscape-design/components/button";
import Container from "@cloudscape-design/components/container";
import Header from "@cloudscape-design/components/header";
import SpaceBetween from "@cloudscape-design/components/space-between";
import type { ConsoleConfig, Role } from "../config";
import { signInToSandbox, startCognitoSignIn } from "./session";

const ROLE_HELP: Record<Role, string> = {
  viewer: "Reads clusters, nodes and operations.",
  operator: "Also reboots nodes and configures storage.",
  admin: "Also creates, changes, imports and deletes clusters, groups, nodes and features.",
};

export function SignIn({ config, onSignedIn }: { config: ConsoleConfig; onSignedIn: () => void }) {
  const auth = config.auth;
  return (
    <Box padding="xxl">
      <Container header={<Header variant="h1" description="Control plane for SageMaker HyperPod on EKS">Sign in to InstantStart</Header>}>
        {auth.mode === "sandbox" ? (
          <SpaceBetween size="m">
            <Box>This is the sandbox: choose the role to act as.</Box>
            {auth.roles.map((role) => (
              <SpaceBetween key={role} size="xs" direction="horizontal" alignItems="center">
                <Button
                  variant={role === "admin" ? "primary" : "normal"}
                  onClick={() => {
                    signInToSandbox(role);
                    onSignedIn();
                  }}
                >
                  {`Sign in as ${role}`}
                </Button>
                <Box color="text-body-secondary">{ROLE_HELP[role]}</Box>
              </SpaceBetween>
            ))}
          </SpaceBetween>
        ) : (
          <Button variant="primary" onClick={() => void startCognitoSignIn(auth, window.location.pathname + window.location.search)}>
            Sign in
          </Button>
        )}
      </Container>
    </Box>
  );
}
