import type { ModelMessage } from '../model-provider';
import type { ElizaReply } from './eliza-reply';

/**
 * What the offline model says once in a conversation when it is asked for more than it can do, with the
 * settings that change it. Plain words only: it goes into the XML reply and the chat page as it is.
 */
export const OFFLINE_NOTE =
  "(I am Parley's offline demo model: I reflect what you say, do arithmetic with a calculator tool and run " +
  'a tool you name, nothing more. For real answers, point Parley at a model: MODEL_PROVIDER=openai with ' +
  'OPENAI_BASE_URL and MODEL, as the README shows for Ollama, vLLM, LM Studio and OpenAI.)';

// Requests for work or knowledge: "write …", "summarise …", "can you translate …", "what is …", "how do I …".
const LEAD = String.raw`^(?:(?:please|hey|ok|okay|so)[,!\s]+)*(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?)?`;
const TASK = String.raw`(?:write|draft|compose|summari[sz]e|translate|explain|describe|list|find|search|look\s+up|fetch|show|give\s+me|make|create|generate|build|code|fix|debug|plan|book|send|email|schedule|remind|recommend|suggest|calculate|compute|run|use|call|tell\s+me\s+(?:about|how|why|what|when|where|who)|what(?:'s|\s+is|\s+are|\s+was|\s+were)|who(?:'s|\s+is|\s+was)|when\s+(?:is|was|did|does|will)|where\s+(?:is|are|can|do)|how\s+(?:do|does|can|to|much|many|long|far|old|big)|why\s+(?:is|are|does|do))`;
// …unless it is about the two speakers, which is ELIZA's whole subject: "what is your name", "tell me about my
// mother", "explain yourself".
const ABOUT_US = String.raw`(?!\s+(?:you|your|yours|yourself|me|my|mine|myself)\b)`;
const REQUEST = new RegExp(`${LEAD}${TASK}\\b(?:\\s+me\\b)?${ABOUT_US}`, 'iu');

/**
 * Whether a user message asks for more than the offline model can do: a request for work or knowledge (the
 * shapes above), not about the speakers. Called only once the model has found no tool call for it (arithmetic
 * with `CALCULATE` offered, or "run NAME" of an offered tool), which it can do.
 */
export function asksForMore(text: string): boolean {
  return REQUEST.test(text.trim().replace(/[\u2018\u2019]/g, "'"));
}

/**
 * The reply with the offline note after it, when the last user message asks for more than the model can do
 * and the note is not among the agent's earlier turns of the conversation: so once per channel, as far back as
 * the history the model is given reaches (the note is stored with the reply, so every process sees it).
 */
export function withOfflineNote(reply: ElizaReply, messages: readonly ModelMessage[]): ElizaReply {
  const last = messages.at(-1);
  if (last?.role !== 'user' || !asksForMore(last.content) || reply.text.includes(OFFLINE_NOTE)) {
    return reply;
  }
  const told = messages.some(
    (message) => message.role === 'assistant' && message.content.includes(OFFLINE_NOTE),
  );
  if (told) return reply;
  return {
    thought: `${reply.thought} They want more than I can do: say what I am, once.`,
    text: reply.text === '' ? OFFLINE_NOTE : `${reply.text} ${OFFLINE_NOTE}`,
  };
}
