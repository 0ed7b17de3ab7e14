/** The Inference page's URL: one page per cluster, its tab in `?tab=` (deployments, services, pool, chat, endpoints). */
export function inferencePath(clusterTag: string, tab?: string, service?: string): string {
  const query = new URLSearchParams();
  if (tab) query.set("tab", tab);
  if (service) query.set("service", service);
  const search = query.toString();
  return `/clusters/${encodeURIComponent(clusterTag)}/inference${search ? `?${search}` : ""}`;
}
