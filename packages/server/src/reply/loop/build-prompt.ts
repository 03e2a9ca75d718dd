import type { StoredMessage } from '@parley/core';
import type { Character } from '@parley/plugin-sdk';
import type { AgentAction } from '../../agents/agent-abilities';
import type { CharacterExampleLine, CharacterPromptParts } from '../../agents/character';
import { characterLines } from '../../models/character-lines';
import type { ModelMessage } from '../../models/model-provider';
import type { ToolCallRecord } from '../parts/reply-part';
import { toModelContent } from '../tools/tool-output';
import { storedToolCalls } from '../parts/reply-stream';

/** How the model is asked to answer, so the action-aware extractor can stream its text. */
const RESPONSE_FORMAT =
  'Answer in exactly this format and nothing else:\n' +
  '<response><thought>your private reasoning</thought><actions>REPLY</actions><text>your reply</text></response>';

/** elizaOS placeholders: `{{name}}` and `{{agentName}}` are the agent, `{{user1}}` and `{{name1}}` a user. */
function fillPlaceholders(text: string, name: string): string {
  return text.replace(/\{\{(name|agentName|user\d*|name\d+)\}\}/g, (_, key: string) =>
    key === 'name' || key === 'agentName' ? name : 'User',
  );
}

function section(title: string, items: readonly string[]): string {
  return items.length === 0 ? '' : `${title}\n${items.map((item) => `- ${item}`).join('\n')}`;
}

/** The example conversations, one block each, the agent's lines under its name and everyone else's as User. */
function examples(character: Readonly<Character> & CharacterPromptParts): string {
  const blocks: string[] = [];
  const conversations: unknown = character.messageExamples;
  for (const conversation of Array.isArray(conversations) ? conversations : []) {
    const list: unknown = Array.isArray(conversation)
      ? conversation
      : (conversation as { examples?: unknown } | null)?.examples;
    if (!Array.isArray(list)) continue;
    const turns: string[] = [];
    for (const line of list as CharacterExampleLine[]) {
      const text = line?.content?.text;
      if (typeof text !== 'string' || text.trim() === '') continue;
      const said = line.name ?? line.user;
      const speaker = fillPlaceholders(typeof said === 'string' ? said.trim() : '', character.name);
      const who = speaker.toLowerCase() === character.name.toLowerCase() ? character.name : 'User';
      turns.push(`${who}: ${fillPlaceholders(text.trim(), character.name)}`);
    }
    if (turns.length > 0) blocks.push(turns.join('\n'));
  }
  return blocks.length === 0
    ? ''
    : `Examples of how ${character.name} talks:\n\n${blocks.join('\n\n')}`;
}

/**
 * The system prompt a character gives: its system prompt, bio and lore, the chat style (elizaOS `style.all` and
 * `style.chat`), example conversations (elizaOS `messageExamples`, `user` or `name` form), then the response format.
 * elizaOS placeholders are filled in with the agent's name.
 */
export function buildSystemPrompt(character: Readonly<Character> & CharacterPromptParts): string {
  const name = character.name;
  const about = [...characterLines(character.bio), ...characterLines(character.lore)].map((line) =>
    fillPlaceholders(line, name),
  );
  const style = [
    ...characterLines(character.style?.all),
    ...characterLines(character.style?.chat),
  ].map((line) => fillPlaceholders(line, name));
  return [
    fillPlaceholders(
      typeof character.system === 'string' ? character.system : `You are ${name}.`,
      name,
    ),
    section(`About ${name}:`, about),
    section('How to write:', style),
    examples(character),
    RESPONSE_FORMAT,
  ]
    .filter((part) => part.trim() !== '')
    .join('\n\n');
}

/** What a step of the agent loop adds to the prompt. */
export interface PromptExtras {
  /** What the providers composed (their texts), for this model call. */
  context?: string;
  /** The running summary of the channel's turns older than the history given (docs/memory.md). */
  summary?: string;
  /** Whether the model calls tools natively; if not, tool calls and results are written out as text. */
  callsTools?: boolean;
  /** Actions described in the prompt, for a model that does not call tools natively (the XML protocol). */
  actions?: readonly AgentAction[];
  /** This reply's earlier steps: the model's calls and their results. */
  steps?: readonly ModelMessage[];
  /** The step bound is reached: the model is told to answer now, without actions. */
  lastStep?: boolean;
}

/**
 * The model's messages: the character's system prompt ({@link buildSystemPrompt}) with the providers' context
 * and, for a model without native tool calling, the actions it may name; then the channel history (oldest first)
 * with the agent's own messages as `assistant` and the tool calls of its earlier replies, then this reply's steps.
 */
export function buildPrompt(
  character: Readonly<Character>,
  agentId: string,
  history: readonly StoredMessage[],
  extras: PromptExtras = {},
): ModelMessage[] {
  const system = [buildSystemPrompt(character)];
  if (extras.context) system.push(`# Context\n${extras.context}`);
  if (extras.summary) {
    system.push(
      `# Earlier in this conversation (a summary of the turns before those below)\n${extras.summary}`,
    );
  }
  if (!extras.callsTools && extras.actions && extras.actions.length > 0 && !extras.lastStep) {
    system.push(describeActions(extras.actions));
  }
  if (extras.lastStep) system.push(LAST_STEP);
  const messages: ModelMessage[] = [{ role: 'system', content: system.join('\n\n') }];
  for (const message of history) {
    if (message.author_id !== agentId) {
      messages.push({ role: 'user', content: message.content });
      continue;
    }
    const calls = storedToolCalls(message.raw_message?.toolCalls);
    if (calls.length > 0) messages.push(...toolTurns(calls));
    if (message.content !== '' || calls.length === 0) {
      messages.push({ role: 'assistant', content: message.content });
    }
  }
  messages.push(...(extras.steps ?? []));
  return extras.callsTools ? messages : messages.flatMap(toTextProtocol);
}

const LAST_STEP =
  'You have used every step this reply may take: do not call or name any more actions; answer the user now ' +
  'from what you have.';

/** The actions a model without native tool calling may name, and how (elizaOS's XML protocol). */
function describeActions(actions: readonly AgentAction[]): string {
  const list = actions.map(({ toolName, action, input }) => {
    const properties = (input.jsonSchema.properties ?? {}) as Record<string, unknown>;
    const takes =
      Object.keys(properties).length > 0 ? ` Parameters: ${JSON.stringify(input.jsonSchema)}` : '';
    return `- ${toolName}: ${action.description}${takes}`;
  });
  return [
    '# Actions',
    'Besides REPLY, you may take these actions:',
    ...list,
    'To take actions, name them in <actions> (comma-separated) and give their parameters in <params>, e.g.',
    '<response><thought>…</thought><actions>REPLY,NAME</actions><params><NAME><param>value</param></NAME></params><text>…</text></response>',
    'You will then see their results and may answer from them.',
  ].join('\n');
}

/** An earlier reply's calls as a model that calls tools sees them: its call turn, then each result. */
function toolTurns(calls: readonly ToolCallRecord[]): ModelMessage[] {
  return [
    {
      role: 'assistant',
      content: '',
      toolCalls: calls.map((call) => ({
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        input: JSON.stringify(call.input ?? {}),
      })),
    },
    ...calls.map((call): ModelMessage => ({
      role: 'tool',
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      content: toModelContent(call),
    })),
  ];
}

/** A turn as a model without native tool calling reads it: calls and results written out as text. */
function toTextProtocol(message: ModelMessage): ModelMessage[] {
  if (message.role === 'tool') {
    return [
      { role: 'user', content: `[Result of action ${message.toolName}]: ${message.content}` },
    ];
  }
  if (message.role === 'assistant' && message.toolCalls && message.toolCalls.length > 0) {
    const named = message.toolCalls.map((call) => `${call.toolName} ${call.input}`).join('; ');
    const said = message.content === '' ? '' : `${message.content}\n`;
    return [{ role: 'assistant', content: `${said}[I took the actions: ${named}]` }];
  }
  return [message];
}
