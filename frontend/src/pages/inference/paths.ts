/** The Inference page's URL: one page per cluster, its tab in `?tab=` (deployments, services, pool, chat, endpoints)
 * and the chat's target in `?service=` (a model service) or `?endpoint=` (a managed endpoint). */
import type { ChatTarget } from "./ChatPanel";

export function inferencePath(clusterTag: string, tab?: string, target?: ChatTarget): string {
  const query = new URLSearchParams();
  if (tab) query.set("tab", tab);
  if (target) query.set(target.kind, target.name);
  const search = query.toString();
  return `/clusters/${encodeURIComponent(clusterTag)}/inference${search ? `?${search}` : ""}`;
}
