import { z } from 'zod';

/** `user_message` stream event: the stored user message, and the id of the reply that answers it. */
export const userMessageEventSchema = z.object({
  id: z.string(),
  text: z.string(),
  replyId: z.string().optional(),
});

/** `chunk` stream event: one piece of the agent's reply, `index` counting from 0. */
export const chunkEventSchema = z.object({
  messageId: z.string(),
  chunk: z.string(),
  index: z.number().int().nonnegative(),
});

/** `done` stream event: the full reply. */
export const doneEventSchema = z.object({ text: z.string(), actions: z.array(z.string()) });

/** `error` stream event: the reply failed; the stream ends after it. */
export const errorEventSchema = z.object({ code: z.string(), message: z.string() });

/**
 * `gap` stream event: the stream was resumed from a `Last-Event-ID` (`from`) that lies outside what the server
 * retains of the reply; what follows does not continue from it (the client should read the stored reply or
 * the channel's history). Sent once, before the events that follow.
 */
export const gapEventSchema = z.object({
  replyId: z.string(),
  from: z.string(),
  message: z.string(),
});

/** Every server-sent event of the channel `stream` mode, by event name. */
export const streamEventSchemas = {
  user_message: userMessageEventSchema,
  chunk: chunkEventSchema,
  done: doneEventSchema,
  error: errorEventSchema,
  gap: gapEventSchema,
} as const;

/** The name of a server-sent event of the `stream` mode. */
export type StreamEventName = keyof typeof streamEventSchemas;

/** A server-sent event of the `stream` mode, discriminated by `event`. */
export type StreamEvent = {
  [K in StreamEventName]: { event: K; id?: string; data: z.infer<(typeof streamEventSchemas)[K]> };
}[StreamEventName];
