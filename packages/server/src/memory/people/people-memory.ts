import type { StoredMessage } from '@parley/core';
import type { Logger } from 'pino';
import type { AgentProfile } from '../../agents/agent-profile';
import type { ModelProvider } from '../../models/model-provider';
import { modelText } from '../../models/stream-model';
import type { Recaller } from '../recall';
import { BoundedWork } from './bounded-work';
import { factPrompt, parseFacts } from './fact-prompt';
import { factsByRules } from './fact-rules';
import type { FactSettings } from './fact-settings';
import type { FactStore } from './fact-store';
import { factKey, validFacts } from './fact-validation';

/** Longest answer read from the model when extracting facts, in characters. */
const MAX_ANSWER = 16_000;

/**
 * Long-term memory of people: after a reply, facts the speaker stated about themselves are extracted (the
 * model, with elizaOS reflection's facts prompt, or rules for the offline model), validated and stored as `facts`
 * memories of the speaker's entity; a recaller puts that entity's facts, and only that entity's, into the context
 * of later replies in any channel of the agent.
 */
export class PeopleMemory {
  readonly #settings: FactSettings;
  readonly #facts: FactStore;
  readonly #model: ModelProvider;
  readonly #logger: Logger;
  readonly #work: BoundedWork;
  readonly #byModel: boolean;

  constructor(options: {
    settings: FactSettings;
    facts: FactStore;
    model: ModelProvider;
    logger: Logger;
  }) {
    this.#settings = options.settings;
    this.#facts = options.facts;
    this.#model = options.model;
    this.#logger = options.logger;
    const { extraction } = options.settings;
    // The offline model cannot extract anything: with it, facts are always read by rules.
    this.#byModel = extraction === 'model' && options.model.name !== 'eliza';
    this.#work = new BoundedWork({
      maxConcurrent: options.settings.maxConcurrent,
      maxQueued: options.settings.maxQueued,
      logger: options.logger,
      what: 'fact extraction',
    });
  }

  /** Whether facts are extracted at all (`FACT_EXTRACTION` is not `off`). */
  get enabled(): boolean {
    return this.#settings.extraction !== 'off';
  }

  /**
   * After `reply` to `message` is stored: queues the extraction of facts about the message's author, off the
   * reply's path. Messages by agents, and empty ones, teach nothing.
   */
  afterReply(agent: AgentProfile, message: StoredMessage, reply: StoredMessage): void {
    if (!this.enabled || message.author_id === agent.agentId) return;
    if (message.source_type === 'agent_response' || message.content.trim() === '') return;
    this.#work.add(`${agent.agentId}:${message.id}`, () => this.#extract(agent, message, reply));
  }

  /** Resolves once no extraction runs or waits. */
  idle(): Promise<void> {
    return this.#work.idle();
  }

  async #extract(agent: AgentProfile, message: StoredMessage, reply: StoredMessage): Promise<void> {
    const entityId = message.author_id;
    // By rules, most messages state nothing: then nothing is read either (one query less per reply).
    const byRules = this.#byModel ? [] : factsByRules(message.content);
    if (!this.#byModel && byRules.length === 0) return;
    const known = await this.#facts.list(agent.agentId, entityId, this.#settings.maxPerEntity);
    const knownTexts = known.map((fact) => fact.text);
    const candidates = this.#byModel
      ? await this.#byModelOrRules(agent, message, reply, knownTexts)
      : byRules.map((claim) => ({ claim }));
    const facts = validFacts(candidates, new Set(knownTexts.map(factKey)), this.#settings);
    if (facts.length === 0) return;
    await this.#facts.add(agent.agentId, entityId, message.channel_id, facts);
    // Bounded per person: the oldest beyond the bound are forgotten.
    const overflow = known.length + facts.length - this.#settings.maxPerEntity;
    if (overflow > 0) {
      await this.#facts.remove(
        agent.agentId,
        known.slice(-overflow).map((fact) => fact.id),
      );
    }
    this.#logger.debug(
      { agentId: agent.agentId, entityId, count: facts.length },
      'facts remembered',
    );
  }

  async #byModelOrRules(
    agent: AgentProfile,
    message: StoredMessage,
    reply: StoredMessage,
    known: readonly string[],
  ): Promise<unknown[]> {
    const prompt = factPrompt({
      agentName: agent.character.name,
      senderName: message.author_name,
      message,
      reply,
      known,
    });
    try {
      const answer = await modelText(
        this.#model,
        { messages: [{ role: 'user', content: prompt }], agentName: agent.character.name },
        MAX_ANSWER,
      );
      return parseFacts(answer);
    } catch (error) {
      this.#logger.warn({ err: error }, 'the model did not extract facts; read them by rules');
      return factsByRules(message.content).map((claim) => ({ claim }));
    }
  }

  /**
   * The recaller: the facts about the message's author that this agent remembers, from any channel; never
   * another entity's. Nothing for a message by an agent.
   */
  readonly recaller: Recaller = async ({ agentId, message }) => {
    if (message.author_id === agentId) return undefined;
    const facts = await this.#facts.list(agentId, message.author_id, this.#settings.recallCount);
    if (facts.length === 0) return undefined;
    return {
      title: `What you remember about ${message.author_name} (the person you are answering)`,
      text: facts.map((fact) => `- ${fact.text}`).join('\n'),
    };
  };
}
