/**
 * An operation's attempts, newest first: each run of its workflow (the start, each resume) with who started it, its
 * outcome, its own error and the stages it ran with their times, so a resume never hides why the run before failed.
 * The latest attempt's error is the operation's, which the page shows above.
 */
import Alert from "@cloudscape-design/components/alert";
import Box from "@cloudscape-design/components/box";
import Container from "@cloudscape-design/components/container";
import ExpandableSection from "@cloudscape-design/components/expandable-section";
import Header from "@cloudscape-design/components/header";
import SpaceBetween from "@cloudscape-design/components/space-between";
import Table from "@cloudscape-design/components/table";
import type { Schemas } from "../../api/client";
import { Status } from "../../components/status";
import type { Operation } from "../../hooks/useOperation";
import { formatDuration, formatTime } from "./format";

type Attempt = Schemas["Attempt"];

/** The operation's step: the one running, or once it ended, the last one its latest attempt ran. */
export function stepItem(operation: Operation, ended: boolean): { label: string; value: string } {
  if (!ended) return { label: "Current step", value: operation.currentStep ?? "-" };
  return { label: "Last step", value: operation.attempts.at(-1)?.lastStep ?? "-" };
}

function summary(attempt: Attempt): string {
  const ended = attempt.endedAt ? `, took ${formatDuration(Date.parse(attempt.endedAt) - Date.parse(attempt.startedAt))}` : "";
  return `by ${attempt.actor}, started ${formatTime(attempt.startedAt)}${ended}`;
}

function AttemptSection({ attempt, latest }: { attempt: Attempt; latest: boolean }) {
  const label = `Attempt ${attempt.number}`;
  return (
    <section aria-label={`${label}: ${attempt.status}`}>
      <ExpandableSection
        defaultExpanded={latest || attempt.status === "FAILED"}
        headerText={label}
        headerDescription={summary(attempt)}
        headerInfo={<Status value={attempt.status} />}
      >
        <SpaceBetween size="s">
          {attempt.error && !latest && (
            <Alert
              type="error"
              header={`${attempt.error.code}${attempt.error.step ? ` in step "${attempt.error.step}"` : ""}`}
            >
              {attempt.error.message}
            </Alert>
          )}
          <Table
            variant="embedded"
            items={attempt.stages ?? []}
            trackBy="name"
            ariaLabels={{ tableLabel: `Stages of attempt ${attempt.number}` }}
            empty={<Box textAlign="center">No stage ran yet in this attempt.</Box>}
            columnDefinitions={[
              { id: "name", header: "Stage", cell: (stage) => stage.name },
              { id: "status", header: "Status", cell: (stage) => <Status value={stage.status} /> },
              { id: "startedAt", header: "Started", cell: (stage) => formatTime(stage.startedAt) },
              { id: "endedAt", header: "Ended", cell: (stage) => formatTime(stage.endedAt) },
              { id: "message", header: "Message", cell: (stage) => stage.message ?? "-" },
            ]}
          />
        </SpaceBetween>
      </ExpandableSection>
    </section>
  );
}

export function Attempts({ operation }: { operation: Operation }) {
  const attempts = [...operation.attempts].reverse();
  const title = `Attempts (${operation.attempt})`;
  const dropped = operation.attempt - operation.attempts.length;
  return (
    <section aria-label={title}>
      <Container
        header={
          <Header
            variant="h2"
            counter={`(${operation.attempt})`}
            description="Each run of the workflow: the start, then each resume. Stages an earlier attempt finished pass through a resume and keep their times."
          >
            Attempts
          </Header>
        }
      >
        <SpaceBetween size="m">
          {attempts.map((attempt, index) => (
            <AttemptSection key={attempt.number} attempt={attempt} latest={index === 0} />
          ))}
          {dropped > 0 && <Box color="text-status-inactive">{dropped} attempts between the first and these are not kept.</Box>}
        </SpaceBetween>
      </Container>
    </section>
  );
}
