/** Defaults of outbound webhooks, for `createServer` and the settings schema alike. */
export const WEBHOOK_DEFAULTS = {
  /** 5 s, 5 min, 30 min, 2 h, 5 h, 10 h: Svix's schedule, about 18 hours over seven attempts. */
  retryDelaysMs: [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000],
  timeoutMs: 10_000,
  pollMs: 250,
  maxInFlight: 16,
  perSubscription: 4,
  maxSubscriptions: 100,
} as const;
