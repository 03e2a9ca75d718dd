const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** The retry schedule of Svix and Standard Webhooks' guidance: about a day and a half over seven attempts. */
export const DEFAULT_RETRY_DELAYS = '5s,5m,30m,2h,5h,10h';

/**
 * Parses a comma-separated list of durations (`5s,5m,30m,2h`; units ms, s, m, h, d) into milliseconds, or
 * returns the first entry that is not a duration. An empty list is valid: one attempt, no retry.
 */
export function parseDurations(text: string): { ms: number[] } | { invalid: string } {
  const ms: number[] = [];
  for (const raw of text.split(',')) {
    const entry = raw.trim();
    if (entry === '') continue;
    const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(entry);
    if (!match) return { invalid: entry };
    const value = Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
    if (!Number.isFinite(value) || value > 7 * UNIT_MS.d) return { invalid: entry };
    ms.push(Math.round(value));
  }
  return { ms };
}
