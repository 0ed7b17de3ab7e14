/**
 * A chat box for one target: the person's prompts and the model's answers, one OpenAI chat completion per turn with
 * the conversation so far. A target says what answers: a model service of the cluster (`…/services/{name}/chat`) or
 * a managed endpoint (`…/endpoints/{name}/chat`); both routes take and return the same chat contract.
 */
import Box from "@cloudscape-design/components/box";
import Button from "@cloudscape-design/components/button";
import Container from "@cloudscape-design/components/container";
import Form from "@cloudscape-design/components/form";
import FormField from "@cloudscape-design/components/form-field";
import Header from "@cloudscape-design/components/header";
import SpaceBetween from "@cloudscape-design/components/space-between";
import Textarea from "@cloudscape-design/components/textarea";
import { useState } from "react";
import { unwrap, type ApiClient, type Schemas } from "../../api/client";
import { useApp } from "../../app-context";
import { ErrorAlert } from "../../components/ErrorAlert";

export interface ChatTarget {
  kind: "service" | "endpoint";
  name: string;
}

type Message = Schemas["ChatMessage"];

const ROUTES = {
  service: "/clusters/{clusterTag}/services/{name}/chat",
  endpoint: "/clusters/{clusterTag}/endpoints/{name}/chat",
} as const;

/** One completion from the target, given the conversation. */
async function complete(api: ApiClient, clusterTag: string, target: ChatTarget, messages: Message[]): Promise<string> {
  const request = { params: { path: { clusterTag, name: target.name } }, body: { messages, max_tokens: 512, temperature: 0.7 } };
  const answer = await unwrap(api.POST(ROUTES[target.kind], request));
  return answer.choices[0]?.message.content ?? "";
}

export function ChatPanel({ clusterTag, target }: { clusterTag: string; target: ChatTarget }) {
  const { api, identity } = useApp();
  const [messages, setMessages] = useState<Message[]>([]);
  const [prompt, setPrompt] = useState("");
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<unknown>();
  const mayCall = identity.mayCall(`POST ${ROUTES[target.kind]}`);
  const send = async () => {
    const asked: Message[] = [...messages, { role: "user", content: prompt }];
    setMessages(asked);
    setPrompt("");
    setSending(true);
    setError(undefined);
    try {
      const content = await complete(api, clusterTag, target, asked);
      setMessages([...asked, { role: "assistant", content }]);
    } catch (reason) {
      setError(reason);
    } finally {
      setSending(false);
    }
  };
  return (
    <Container header={<Header variant="h2" description={`Chat completions from ${target.name}.`}>Chat</Header>}>
      <SpaceBetween size="m">
        <div aria-label="Conversation" role="log">
          {messages.length === 0 && <Box color="text-status-inactive">No message yet.</Box>}
          {messages.map((message, index) => (
            <Box key={index} padding={{ vertical: "xxs" }}>
              <Box variant="strong" display="inline">
                {message.role === "user" ? "You" : target.name}:
              </Box>{" "}
              <span data-testid={message.role === "assistant" ? "answer" : "prompt"}>{message.content}</span>
            </Box>
          ))}
        </div>
        <ErrorAlert error={error} header="The model did not answer" />
        {mayCall ? (
          <form
            onSubmit={(event) => {
              event.preventDefault();
              void send();
            }}
          >
            <Form
              actions={
                <Button variant="primary" loading={sending} disabled={!prompt.trim()}>
                  Send
                </Button>
              }
            >
              <FormField label="Prompt">
                <Textarea ariaLabel="Prompt" value={prompt} onChange={({ detail }) => setPrompt(detail.value)} />
              </FormField>
            </Form>
          </form>
        ) : (
          <Box>Calling a model needs the operator role.</Box>
        )}
      </SpaceBetween>
    </Container>
  );
}
