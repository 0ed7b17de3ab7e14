/** The Monitoring page's chart data, from the overview the server aggregated (pure functions, tested alone). */
import type { Schemas } from "../../api/client";

export type Overview = Schemas["ClusterOverview"];

export interface Slice {
  title: string;
  value: number;
}

/** GPUs used and available per instance group, as the two series of a stacked bar chart. */
export function gpuSeries(overview: Overview): { used: { x: string; y: number }[]; available: { x: string; y: number }[] } {
  return {
    used: overview.groups.map((group) => ({ x: group.name, y: group.gpus.used })),
    available: overview.groups.map((group) => ({ x: group.name, y: group.gpus.available })),
  };
}

/**
 * The GPU bars' colours: Cloudscape's first categorical chart colour for used GPUs and its neutral status colour
 * (`colorChartsStatusNeutral`) for available ones, which are spare capacity, not an error (left to the palette,
 * the second series is drawn in its red-pink).
 */
export const GPU_COLORS = { used: "#688ae8", available: "#8c8c94" } as const;

/** A count map (`{"Running": 3}`) as pie slices, largest first, without empty ones. */
export function slices(counts: Record<string, number>): Slice[] {
  return Object.entries(counts)
    .filter(([, value]) => value > 0)
    .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
    .map(([title, value]) => ({ title, value }));
}
