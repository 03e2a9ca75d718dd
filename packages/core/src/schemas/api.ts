import { z } from 'zod';

/** The body of every failed `/api` response. */
export const apiErrorBodySchema = z.object({
  success: z.literal(false),
  error: z.object({
    code: z.string(),
    message: z.string(),
    details: z.unknown().optional(),
  }),
});

/** @see apiErrorBodySchema */
export type ApiErrorBody = z.infer<typeof apiErrorBodySchema>;

/** Wraps a data schema in the success envelope `{ success: true, data }`. */
export function apiSuccessSchema<T extends z.ZodType>(data: T) {
  return z.object({ success: z.literal(true), data });
}

/** The success envelope `{ success: true, data }`. */
export interface ApiSuccess<T> {
  success: true;
  data: T;
}

/** An agent as listed by `GET /api/agents`. */
export const agentSummarySchema = z.object({ id: z.string(), name: z.string() });

/** @see agentSummarySchema */
export type AgentSummary = z.infer<typeof agentSummarySchema>;

/** Response data of `GET /api/server/health`. */
export const healthSchema = z.object({ status: z.literal('ok') });
