import type { StoredMessage } from '@parley/core';
import type { Logger } from 'pino';
import type { AgentProfile } from '../../agents/agent-profile';
import type { ModelProvider } from '../../models/model-provider';
import type { MessageStore } from '../../storage/message-store';
import type { ChannelSummary, ChannelSummaryStore } from './channel-summary-store';
import { BoundedWork } from '../people/bounded-work';
import { fitWindow } from './history-window';
import {
  extractiveSummarizer,
  modelSummarizer,
  type Summarizer,
  type SummaryTurn,
} from './summarize-turns';
import { estimateTokens, messageTokens } from './token-estimate';

/** How long conversations are kept to a budget (`DEFAULTS.conversation`). */
export interface ConversationSettings {
  /** The prompt's bound in tokens (estimated): system prompt, context, summary and history together. */
  promptTokenBudget: number;
  /** `auto`: the model summarises, the offline model extractively; `off`: older turns are cut, not summarised. */
  summary: 'auto' | 'model' | 'extractive' | 'off';
  /** Most turns one reply summarises before it answers; the rest is summarised after it. */
  maxInlineTurns: number;
  /** Background summary updates running at once in this process; more wait, beyond `maxQueued` are dropped. */
  maxConcurrent: number;
  maxQueued: number;
}

/** What a reply's prompt holds of its channel: the turns in its window, and the summary of those before. */
export interface ConversationWindow {
  history: StoredMessage[];
  summary?: string;
}

/** The shares of the prompt budget: the summary's bound, and what is kept for providers' and recall's context. */
const SUMMARY_SHARE = 0.15;
const CONTEXT_SHARE = 0.2;
/** After a reply, the summary catches up so that the window is this full: the next replies find nothing to do. */
const LOW_WATER = 0.6;
/**
 * ... and it does so only once the turns after the summary fill the window this much: between the two marks a
 * reply costs no summary work and no query (the summary is remembered), only every few replies one catch-up.
 */
const HIGH_WATER = 0.85;
/** Turns read from storage at once while catching up. */
const PAGE = 200;

/**
 * One catch-up of the agent's summary of a channel: the turns before `beforeId` folded in, in summaries of at
 * most `maxTokens`, at most `maxTurns` turns.
 */
interface CatchUp {
  agent: AgentProfile;
  channelId: string;
  beforeId: string;
  maxTokens: number;
  maxTurns: number;
  signal?: AbortSignal;
  /** The stored summary and every turn after it before `beforeId`, when this process knows them without a read. */
  known?: { stored: ChannelSummary; turns: readonly SummaryTurn[] };
}

/** A character's own budget (`settings.PROMPT_TOKEN_BUDGET`), else the server's. */
export function promptBudgetOf(agent: AgentProfile, fallback: number): number {
  const settings = (agent.character as { settings?: Record<string, unknown> }).settings;
  const raw = Number(settings?.PROMPT_TOKEN_BUDGET);
  return Number.isInteger(raw) && raw >= 500 && raw <= 10_000_000 ? raw : fallback;
}

/**
 * Keeps each reply's prompt within its token budget: the newest turns that fit go in whole, and the turns before
 * them are folded into a running summary stored with the channel (`channel_summaries`), updated incrementally
 * (the previous summary and only the turns that fell out since). After a reply the summary is brought forward in
 * the background, a few turns past the window's start, so most replies find it ready and pay nothing.
 */
export class ConversationWindows {
  readonly #settings: ConversationSettings;
  readonly #summaries: ChannelSummaryStore;
  readonly #messages: MessageStore;
  readonly #logger: Logger;
  readonly #summarize: Summarizer;
  readonly #running = new Map<string, Promise<string | undefined>>();
  readonly #later: BoundedWork;

  constructor(options: {
    settings: ConversationSettings;
    summaries: ChannelSummaryStore;
    messages: MessageStore;
    model: ModelProvider;
    logger: Logger;
  }) {
    this.#settings = options.settings;
    this.#summaries = options.summaries;
    this.#messages = options.messages;
    this.#logger = options.logger;
    this.#later = new BoundedWork({
      maxConcurrent: options.settings.maxConcurrent,
      maxQueued: options.settings.maxQueued,
      logger: options.logger,
      what: 'a channel summary update',
    });
    const { summary } = options.settings;
    const useModel = summary === 'model' || (summary === 'auto' && options.model.name !== 'eliza');
    const model = useModel ? modelSummarizer(options.model) : undefined;
    this.#summarize = model
      ? async (input) => {
          try {
            return await model(input);
          } catch (error) {
            this.#logger.warn(
              { err: error },
              'the model did not summarise; kept an extractive summary',
            );
            return extractiveSummarizer(input);
          }
        }
      : extractiveSummarizer;
  }

  /** The turns of `recent` after the one `summary` covers up to; undefined when that one is not among them. */
  static #after(recent: StoredMessage[], summary: ChannelSummary | undefined) {
    const coveredAt = summary
      ? recent.findIndex((message) => message.id === summary.coveredUntil)
      : -1;
    if (coveredAt < 0) return undefined;
    const after = recent.slice(coveredAt + 1);
    return { after, tokens: after.reduce((sum, message) => sum + messageTokens(message), 0) };
  }

  /** The bounds of a prompt for `agent` whose system prompt takes `systemTokens`. */
  #bounds(agent: AgentProfile, systemTokens: number) {
    const budget = promptBudgetOf(agent, this.#settings.promptTokenBudget);
    const summaryTokens = Math.max(64, Math.floor(budget * SUMMARY_SHARE));
    const history = Math.max(
      0,
      budget - systemTokens - summaryTokens - Math.floor(budget * CONTEXT_SHARE),
    );
    return { budget, summaryTokens, history };
  }

  /**
   * The window of `recent` (the channel's last messages, oldest first, the one answered last) for a prompt whose
   * system prompt is `systemPrompt`, and the summary of the turns before it, brought up to date first when the
   * background has not (at most `maxInlineTurns` turns).
   */
  async window(
    agent: AgentProfile,
    recent: StoredMessage[],
    complete: boolean,
    systemPrompt: string,
    signal?: AbortSignal,
  ): Promise<ConversationWindow> {
    const channelId = recent.at(-1)?.channel_id;
    const bounds = this.#bounds(agent, estimateTokens(systemPrompt));
    const fit = fitWindow(recent, bounds.history);
    // The whole channel fits: nothing fell out, nothing to summarise.
    if (channelId === undefined || (complete && fit.length === recent.length))
      return { history: fit };
    if (this.#settings.summary === 'off') return { history: fit };
    const stored = await this.#summaries.remembered(channelId, agent.agentId);
    const since = ConversationWindows.#after(recent, stored);
    if (since && since.after.length > 0 && since.tokens <= bounds.history)
      return { history: since.after, summary: stored!.summary };
    const summary = await this.#catchUp({
      agent,
      channelId,
      beforeId: fit[0]!.id,
      maxTokens: bounds.summaryTokens,
      maxTurns: this.#settings.maxInlineTurns,
      signal,
    });
    return summary === undefined ? { history: fit } : { history: fit, summary };
  }

  /**
   * After a reply in `channelId`: once the turns after its summary fill `HIGH_WATER` of the window, brings the
   * summary forward in the background, so that the window the next replies see is only `LOW_WATER` full. Bounded: `maxConcurrent` at once, one pending per channel and agent,
   * at most `maxQueued` pending. Never rejects.
   */
  refreshLater(
    agent: AgentProfile,
    channelId: string,
    historyLimit: number,
    systemPrompt: string,
  ): void {
    if (this.#settings.summary === 'off') return;
    this.#later.add(`${channelId}:${agent.agentId}`, async () => {
      const bounds = this.#bounds(agent, estimateTokens(systemPrompt));
      const recent = await this.#messages.recent(channelId, historyLimit);
      const low = fitWindow(recent, Math.floor(bounds.history * LOW_WATER)).slice(
        -Math.max(1, Math.floor(historyLimit * LOW_WATER)),
      );
      const complete = recent.length < historyLimit && low.length === recent.length;
      if (complete || low.length === 0) return;
      const stored = await this.#summaries.remembered(channelId, agent.agentId);
      const since = ConversationWindows.#after(recent, stored);
      if (
        since &&
        since.tokens <= bounds.history * HIGH_WATER &&
        since.after.length <= historyLimit * HIGH_WATER
      )
        return;
      const beforeId = low[0]!.id;
      const missed = since?.after.findIndex((message) => message.id === beforeId) ?? -1;
      await this.#catchUp({
        agent,
        channelId,
        beforeId,
        maxTokens: bounds.summaryTokens,
        maxTurns: Infinity,
        // Where only this process writes, the summary remembered is the stored one, and the turns it misses are
        // among the recent messages: the catch-up reads nothing.
        known:
          this.#summaries.exclusive && missed >= 0
            ? { stored: stored!, turns: since!.after.slice(0, missed) }
            : undefined,
      });
    });
  }

  /**
   * Folds the turns between the stored summary and `beforeId` into it, a page at a time, storing each step (so
   * work done survives a cancel). One catch-up per channel and agent at once in this process; across processes
   * the first to store a step wins and the other starts again from it. Resolves with the summary (undefined:
   * nothing to summarise).
   */
  async #catchUp(job: CatchUp): Promise<string | undefined> {
    const key = `${job.channelId}:${job.agent.agentId}`;
    for (;;) {
      const running = this.#running.get(key);
      if (!running) break;
      await running.catch(() => undefined);
    }
    const work = this.#fold(job);
    this.#running.set(key, work);
    try {
      return await work;
    } finally {
      if (this.#running.get(key) === work) this.#running.delete(key);
    }
  }

  async #fold({
    agent,
    channelId,
    beforeId,
    maxTokens,
    maxTurns,
    signal,
    known,
  }: CatchUp): Promise<string | undefined> {
    let done = 0;
    // The stored one, not the remembered: another process may have moved it on (unless it is known).
    let stored = known ? known.stored : await this.#summaries.get(channelId, agent.agentId);
    let given = known?.turns;
    while (done < maxTurns) {
      signal?.throwIfAborted();
      const page = Math.min(PAGE, maxTurns - done);
      const turns =
        given?.slice(0, page) ??
        (await this.#summaries.turnsBetween(channelId, stored?.coveredUntil, beforeId, page));
      given = undefined;
      if (turns.length === 0) break;
      let overtaken = false;
      for (const chunk of chunks(turns, maxTokens * 2)) {
        const summary = await this.#summarize({
          previous: stored?.summary ?? '',
          turns: chunk,
          maxTokens,
          agentName: agent.character.name,
          signal,
        });
        const next = {
          summary,
          coveredUntil: chunk.at(-1)!.id,
          coveredCount: (stored?.coveredCount ?? 0) + chunk.length,
        };
        const saved = await this.#summaries.save(
          channelId,
          agent.agentId,
          next,
          stored?.coveredUntil,
        );
        // Another process stored a step first: go on from what it stored.
        stored = saved ? next : await this.#summaries.get(channelId, agent.agentId);
        overtaken = !saved;
        if (overtaken) break;
      }
      done += turns.length;
      // A page not full was the last (unless another process moved the summary): no need to ask for more.
      if (!overtaken && turns.length < page) break;
    }
    return stored?.summary;
  }
}

/** Turns in runs of at most `maxTokens` (each run at least one turn), for one summary step each. */
function chunks(turns: readonly SummaryTurn[], maxTokens: number): SummaryTurn[][] {
  const runs: SummaryTurn[][] = [];
  let run: SummaryTurn[] = [];
  let used = 0;
  for (const turn of turns) {
    const cost = estimateTokens(turn.content) + 4;
    if (run.length > 0 && used + cost > maxTokens) {
      runs.push(run);
      run = [];
      used = 0;
    }
    run.push(turn);
    used += cost;
  }
  if (run.length > 0) runs.push(run);
  return runs;
}
