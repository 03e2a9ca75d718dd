import type { StoredMessage } from '@parley/core';

/** Longest part of the conversation and of the known facts the extraction prompt shows, in characters. */
const MAX_TURN_CHARS = 2_000;
const MAX_KNOWN = 30;
/** Most `<fact>` blocks read from an answer (a runaway answer is not parsed whole). */
const MAX_BLOCKS = 50;

/**
 * elizaOS's reflection prompt, its facts part: the model reads the latest exchange and the facts already known,
 * and answers `<response><facts><fact><claim>…</claim><type>fact|opinion|status</type>
 * <already_known>false</already_known></fact>…</facts></response>`. Only facts about the speaker are asked for.
 */
export function factPrompt(input: {
  agentName: string;
  senderName: string;
  message: StoredMessage;
  reply: StoredMessage;
  known: readonly string[];
}): string {
  const cut = (text: string) =>
    text.length > MAX_TURN_CHARS ? `${text.slice(0, MAX_TURN_CHARS)}…` : text;
  return `# Task: Extract facts about ${input.senderName}

# Current Context:
Agent Name: ${input.agentName}
Message Sender: ${input.senderName}

${input.senderName}: ${cut(input.message.content)}
${input.agentName}: ${cut(input.reply.content)}

# Known Facts about ${input.senderName}:
${
  input.known
    .slice(0, MAX_KNOWN)
    .map((fact) => `- ${fact}`)
    .join('\n') || '(none)'
}

# Instructions:
Extract new, lasting facts that ${input.senderName} stated about themselves (name, home, work, preferences,
plans, constraints). Write each as a short third-person claim ("They live in Lisbon"). Leave out anything about
${input.agentName} or other people, guesses, small talk, and anything already known. No facts: an empty <facts/>.

Answer with only this XML:
<response>
  <facts>
    <fact><claim>factual statement</claim><type>fact|opinion|status</type><already_known>false</already_known></fact>
  </facts>
</response>`;
}

/** The text between the first `<name>` and the `</name>` after it, from `from` on (indexOf: linear, no regex). */
function between(text: string, name: string, from = 0): { inner: string; end: number } | undefined {
  const open = text.indexOf(`<${name}>`, from);
  if (open === -1) return undefined;
  const start = open + name.length + 2;
  const close = text.indexOf(`</${name}>`, start);
  if (close === -1) return undefined;
  return { inner: text.slice(start, close), end: close + name.length + 3 };
}

/** Longest answer read, in characters (a runaway answer is cut, not parsed whole). */
const MAX_ANSWER_CHARS = 16_000;

/**
 * The `<fact>` blocks of a model's answer as plain objects (validated by the caller). Linear in the answer's
 * length whatever it holds (an unclosed tag repeated 100,000 times included); never throws.
 */
export function parseFacts(
  answer: string,
): { claim: string; type: string; already_known: boolean }[] {
  const text = answer.slice(0, MAX_ANSWER_CHARS);
  const facts: { claim: string; type: string; already_known: boolean }[] = [];
  for (let from = 0; facts.length < MAX_BLOCKS;) {
    const block = between(text, 'fact', from);
    if (!block) break;
    from = block.end;
    const field = (name: string) => between(block.inner, name)?.inner.trim() ?? '';
    facts.push({
      claim: field('claim'),
      type: field('type') || 'fact',
      already_known: field('already_known').toLowerCase() === 'true',
    });
  }
  return facts;
}
