/**
 * The API's messages are written for every caller, agents included: they name routes ("PATCH /clusters/demo/features")
 * and tell an agent how to confirm ("Ask the person to confirm, then repeat the request with confirmationToken."). The
 * console shows them to a person: routes become the console places that make the same call, and the instructions to
 * an agent go (the dialog itself asks the person).
 */

/** Sentences addressed to an agent that the console's own dialogs replace. */
const FOR_AGENTS = [
  /\s*Ask the person to confirm,? then repeat the (request|resume) with confirmationToken\.?/g,
  /\s*The plan and its confirmationToken are in details\.?/g,
];

/** A route's console place, by the segment after `/clusters/{tag}/` ("" for the cluster itself). */
const CLUSTER_PLACES: Record<string, string> = {
  "": "the cluster's page",
  features: "the Features tab",
  "instance-groups": "the Instance groups tab",
  nodes: "the Nodes tab",
  storage: "the Storage tab",
  "software-update": "the Software tab",
  "remediation-policy": "the Remediation tab",
  drift: "the Drift tab",
  cost: "the Cost tab",
  jobs: "the Training jobs page",
  deployments: "the Inference page",
  endpoints: "the Inference page",
  "model-pool": "the Inference page",
  services: "the Inference page",
  monitoring: "the Monitoring page",
};

const TOP_PLACES: Record<string, string> = {
  import: "Import cluster on the Clusters page",
  eks: "Create cluster on the Clusters page",
};

/** A route, with the bracket or backticks around it: "(DELETE /clusters/demo)", "`POST /clusters/demo/storage`". */
const ROUTE = /([(`]?)\b(?:GET|POST|PUT|PATCH|DELETE) (\/[^\s,;)`]*[^\s,;).`])([`)]?)/g;

function placeOf(path: string): string | undefined {
  const parts = path.split("/").filter(Boolean);
  if (parts[0] === "operations") return parts.length > 1 ? "the operation's page" : "the Operations page";
  if (parts[0] !== "clusters") return undefined;
  if (parts.length === 1) return "Create cluster on the Clusters page";
  if (parts.length === 2 && TOP_PLACES[parts[1]]) return TOP_PLACES[parts[1]];
  return CLUSTER_PLACES[parts[2] ?? ""];
}

/** `message` as the console shows it to a person. */
export function forPeople(message: string): string {
  let text = message;
  for (const sentence of FOR_AGENTS) text = text.replace(sentence, "");
  return text.replace(ROUTE, (route, open: string, path: string, close: string) => {
    const place = placeOf(path);
    if (!place) return route;
    return `${open === "(" ? open : ""}${place}${close === ")" ? close : ""}`;
  });
}
