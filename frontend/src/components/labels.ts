/** Accessible names for Cloudscape controls that have none of their own (their buttons are icons). */
import type { PaginationProps } from "@cloudscape-design/components/pagination";

/** A table's pagination buttons, named for what the table lists ("clusters"). */
export function paginationLabels(what: string): PaginationProps.Labels {
  return {
    nextPageLabel: `Next page of ${what}`,
    previousPageLabel: `Previous page of ${what}`,
    pageLabel: (page) => `Page ${page} of ${what}`,
  };
}
