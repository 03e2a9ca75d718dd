import { z } from 'zod';
import { MAX_TEXT_LENGTH, refineStorableJson, storableString } from './common';

/** Longest tool call id and tool name, in characters (a tool's name is an action's name). */
export const MAX_TOOL_NAME_LENGTH = 256;

/** Most tool calls one reply records. */
export const MAX_TOOL_CALLS_PER_REPLY = 256;

/** Highest step number a record may name. */
const MAX_STEP = 1024;

/** The model's id of a tool call. */
export const toolCallIdSchema = storableString().max(MAX_TOOL_NAME_LENGTH);

/** The name of the tool called: one of the agent's actions, or whatever name the model made up. */
export const toolNameSchema = storableString().max(MAX_TOOL_NAME_LENGTH);

/** A tool call's arguments or output: any JSON value that can be stored (bounded depth and size). */
export const toolJsonSchema = z.unknown().superRefine(refineStorableJson);

/** Why a tool call failed (an unknown tool, invalid input, a timeout, the tool's own error). */
export const toolErrorSchema = storableString().max(MAX_TEXT_LENGTH);

/**
 * A tool call with its outcome, as a reply records it (`raw_message.toolCalls`, `done`, `agentResponse`,
 * `reply.completed`): the arguments (`input`, the raw text when they were not JSON), then `output`, or `error`
 * when the call failed, and the step that made it when the server records it.
 */
export const toolCallRecordSchema = z.object({
  toolCallId: toolCallIdSchema,
  toolName: toolNameSchema,
  input: toolJsonSchema,
  output: toolJsonSchema.optional(),
  error: toolErrorSchema.optional(),
  /** The model call (from 0) that made it: calls of one step run together. */
  step: z.number().int().nonnegative().max(MAX_STEP).optional(),
});

/** @see toolCallRecordSchema */
export type ToolCallRecord = z.infer<typeof toolCallRecordSchema>;

/** A reply's tool calls with their outcomes, in the order they were made. */
export const toolCallRecordsSchema = z.array(toolCallRecordSchema).max(MAX_TOOL_CALLS_PER_REPLY);
