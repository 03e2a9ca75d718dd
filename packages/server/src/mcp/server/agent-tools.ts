import { messageTextSchema, uuidSchema } from '@parley/core';
import { z } from 'zod';
import type { AgentProfile } from '../../agents/agent-profile';

/** Longest tool name: what the strictest model interfaces accept (`^[a-zA-Z0-9_-]{1,64}$`). */
export const MAX_TOOL_NAME_LENGTH = 64;

/** Longest tool description, in characters: a long bio is cut, so a list of many agents stays readable. */
export const MAX_TOOL_DESCRIPTION_LENGTH = 1024;

/** An agent as an MCP tool. */
export interface AgentTool {
  /** Model-safe and unique among the server's tools. */
  readonly name: string;
  /** The agent's own name. */
  readonly title: string;
  readonly description: string;
  readonly agent: AgentProfile;
}

/** What a call of an agent's tool takes. */
export const agentToolInputSchema = z.object({
  message: messageTextSchema.min(1, 'must not be empty').describe('What to say to the agent.'),
  channelId: uuidSchema
    .optional()
    .describe(
      'The conversation to continue: the `channelId` of an earlier answer (any UUID names a channel). ' +
        'Without it, the message starts a new conversation.',
    ),
});

/** A call of an agent's tool, once checked. */
export type AgentToolInput = z.output<typeof agentToolInputSchema>;

/** A tool call the agent made while answering, with its outcome. */
const toolCallSchema = z.object({
  toolCallId: z.string(),
  toolName: z.string(),
  input: z.unknown(),
  output: z.unknown().optional(),
  error: z.string().optional(),
});

/** A call waiting for a person's approval (the reply paused). */
const awaitingApprovalSchema = z.object({
  toolCallId: z.string(),
  toolName: z.string(),
  input: z.unknown(),
  expiresAt: z.string(),
});

/** What a call of an agent's tool answers, as `structuredContent`. */
export const agentToolOutputSchema = z.object({
  replyId: z
    .string()
    .describe("The reply's id (`GET /api/messaging/replies/{replyId}/events` reads it)."),
  channelId: z.string().describe('The conversation: pass it again to continue it.'),
  text: z.string().describe("The agent's reply."),
  toolCalls: z
    .array(toolCallSchema)
    .describe('The tools the agent called, in order, with outcomes.'),
  awaitingApproval: z
    .array(awaitingApprovalSchema)
    .optional()
    .describe('Present when the reply paused for approval: the calls waiting for a decision.'),
});

/** @see agentToolOutputSchema */
export type AgentToolOutput = z.output<typeof agentToolOutputSchema>;

/**
 * A model-safe form of an agent's name: accents dropped, letters, digits, `_` and `-` kept, every other run of
 * characters one `_`, at most {@link MAX_TOOL_NAME_LENGTH} characters; `agent` when nothing is left.
 */
export function toolNameOf(agentName: string): string {
  const safe = agentName
    .normalize('NFKD')
    .replace(/\p{Mn}+/gu, '')
    .replace(/[^A-Za-z0-9_-]+/g, '_')
    .replace(/^[_-]+|[_-]+$/g, '')
    .slice(0, MAX_TOOL_NAME_LENGTH);
  return safe || 'agent';
}

/** The description of an agent's tool: what it does, then the character's bio (cut to the bound). */
export function toolDescriptionOf(agent: AgentProfile): string {
  const { name, bio } = agent.character;
  const about = (Array.isArray(bio) ? bio.join(' ') : (bio ?? '')).replace(/\s+/g, ' ').trim();
  const lead = `Send a message to the agent ${name} and get its reply.`;
  const description = about ? `${lead} ${about}` : lead;
  return description.length <= MAX_TOOL_DESCRIPTION_LENGTH
    ? description
    : `${description.slice(0, MAX_TOOL_DESCRIPTION_LENGTH - 1)}…`;
}

/**
 * Each agent as a tool, in the server's order. Names are unique without regard to case (some clients fold it):
 * a later agent whose name is taken gets `_2`, `_3`… Every process with the same agents gives the same names.
 */
export function agentToolsOf(agents: readonly AgentProfile[]): AgentTool[] {
  const taken = new Set<string>();
  return agents.map((agent) => {
    const base = toolNameOf(agent.character.name);
    let name = base;
    for (let n = 2; taken.has(name.toLowerCase()); n += 1) {
      const suffix = `_${n}`;
      name = `${base.slice(0, MAX_TOOL_NAME_LENGTH - suffix.length)}${suffix}`;
    }
    taken.add(name.toLowerCase());
    return { name, title: agent.character.name, description: toolDescriptionOf(agent), agent };
  });
}

/** Where the live agents are read from: the server's agent registry. */
export interface AgentSource {
  list(): readonly AgentProfile[];
  isStopped(agentId: string): boolean;
}

/**
 * The tools of the agents that answer now, read from `source` at each call: an agent created at run time (in
 * this process or, once it has heard, another) is listed, a stopped or deleted one is not. Names are given over
 * every agent, stopped ones included, so that stopping one never renames another. The tools are made again
 * only when an agent, or whether it is stopped, changed.
 */
export function liveAgentTools(source: AgentSource): () => readonly AgentTool[] {
  let seen: readonly AgentProfile[] = [];
  let stopped: readonly boolean[] = [];
  let tools: readonly AgentTool[] = [];
  return () => {
    const agents = source.list();
    const nowStopped = agents.map((agent) => source.isStopped(agent.agentId));
    const same =
      agents.length === seen.length &&
      agents.every((agent, index) => agent === seen[index] && nowStopped[index] === stopped[index]);
    if (!same) {
      seen = agents;
      stopped = nowStopped;
      tools = agentToolsOf(agents).filter((_tool, index) => !nowStopped[index]);
    }
    return tools;
  };
}
