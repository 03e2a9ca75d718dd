import { h } from '../dom';

/** What the first screen shows of an agent: its name, a few lines about it, and prompts to start with. */
export interface AgentProfile {
  name: string;
  about: string[];
  prompts: string[];
}

/** Prompts shown at most. */
const MAX_PROMPTS = 3;
/** Longest prompt or line taken from a character. */
const MAX_LINE = 160;

function lines(value: unknown): string[] {
  const list: unknown[] = typeof value === 'string' ? [value] : Array.isArray(value) ? value : [];
  return list
    .filter((line): line is string => typeof line === 'string')
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter((line) => line !== '' && line.length <= MAX_LINE);
}

/** elizaOS placeholders: the agent's name for `{{name}}`, nothing for a user's. */
function fill(text: string, name: string): string {
  return text
    .replace(/\{\{(?:name|agentName)\}\}/g, name)
    .replace(/\s*\{\{(?:user\d*|name\d+)\}\}\s*/g, ' ')
    .replace(/\s+([,.!?])/g, '$1')
    .trim();
}

/** The first thing a user says in each of the character's example conversations. */
function exampleOpenings(character: Record<string, unknown>, name: string): string[] {
  const conversations = Array.isArray(character.messageExamples) ? character.messageExamples : [];
  const openings: string[] = [];
  for (const conversation of conversations as unknown[]) {
    const list: unknown = Array.isArray(conversation)
      ? conversation
      : (conversation as { examples?: unknown } | null)?.examples;
    if (!Array.isArray(list)) continue;
    for (const line of list as { name?: unknown; user?: unknown; content?: { text?: unknown } }[]) {
      const speaker = line?.name ?? line?.user;
      const text = line?.content?.text;
      if (typeof text !== 'string' || typeof speaker !== 'string') continue;
      const isAgent = speaker === name || /^\{\{(?:name|agentName)\}\}$/.test(speaker);
      if (!isAgent) openings.push(...lines(fill(text, name)));
      break;
    }
  }
  return openings;
}

/**
 * The profile of an agent from `GET /api/agents/{id}`'s answer (the character, as elizaOS shapes it): its bio,
 * and prompts from its example conversations and its topics, then what anyone may say first.
 */
export function profileFrom(details: unknown, fallbackName: string): AgentProfile {
  const data = (details ?? {}) as Record<string, unknown>;
  const character = (
    data.character && typeof data.character === 'object' ? data.character : data
  ) as Record<string, unknown>;
  const name = typeof data.name === 'string' && data.name !== '' ? data.name : fallbackName;
  const about = lines(character.bio)
    .map((line) => fill(line, name))
    .slice(0, 2);
  const prompts = [
    ...exampleOpenings(character, name),
    ...lines(character.topics).map((topic) => `Tell me about ${topic}`),
    'Hello!',
    'Who are you?',
    'What can you do?',
  ];
  return { name, about, prompts: [...new Set(prompts)].slice(0, MAX_PROMPTS) };
}

/**
 * Fills the first screen of an empty channel: a greeting with the agent's name, what its character says about
 * it, and its prompts as buttons that send them.
 */
export function renderWelcome(
  element: HTMLElement,
  profile: AgentProfile,
  send: (prompt: string) => void,
): void {
  element.replaceChildren(
    h('h3', {}, `Hi, I'm ${profile.name}`),
    ...profile.about.map((line) => h('p', { className: 'about' }, line)),
    h(
      'ul',
      { className: 'prompts', 'aria-label': 'Suggestions' },
      ...profile.prompts.map((prompt) =>
        h('li', {}, h('button', { type: 'button', onclick: () => send(prompt) }, prompt)),
      ),
    ),
  );
  element.hidden = false;
}
