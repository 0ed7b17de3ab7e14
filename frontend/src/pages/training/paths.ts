/** The Training pages' URLs. */
export function jobPath(clusterTag: string, jobName?: string): string {
  const jobs = `/clusters/${encodeURIComponent(clusterTag)}/jobs`;
  return jobName ? `${jobs}/${encodeURIComponent(jobName)}` : jobs;
}
