import { ParleyError } from '@parley/core';
import { type Kysely, sql } from 'kysely';
import { currentPerson } from '../messaging/person-scope';
import type {
  ModelProvider,
  ModelProviderV2,
  ModelRequest,
  ModelStreamPartV2,
} from '../models/model-provider';
import { streamModel } from '../models/stream-model';
import { estimateTokens } from '../memory/summary/token-estimate';
import type { DatabaseSchema } from '../storage/schema';
import { storageCall } from '../storage/to-storage-error';

/** Today's day (UTC) as stored. */
const today = (now: Date) => now.toISOString().slice(0, 10);

/**
 * Each signed-in person's daily budget of model tokens (`PERSON_DAILY_TOKENS`), kept in the database so that every
 * process and a restart count the same day. A model call made for a person (see `person-scope.ts`) is refused once
 * the person's tokens of the day reach the budget; what a call costs is the model's reported usage, or an upper
 * estimate of its prompt and answer when the model reports none (the offline model).
 */
export class DailyTokenBudget {
  readonly #db: Kysely<DatabaseSchema>;
  readonly #sync: () => Promise<void>;
  readonly #now: () => Date;
  readonly limit: number;

  constructor(options: {
    db: Kysely<DatabaseSchema>;
    sync: () => Promise<void>;
    limit: number;
    now?: () => Date;
  }) {
    this.#db = options.db;
    this.#sync = options.sync;
    this.limit = options.limit;
    this.#now = options.now ?? (() => new Date());
  }

  /** The tokens `entityId` spent today. */
  async spent(entityId: string): Promise<number> {
    const row = await storageCall('token usage', () =>
      this.#db
        .selectFrom('person_token_usage')
        .select('tokens')
        .where('entity_id', '=', entityId)
        .where('day', '=', today(this.#now()))
        .executeTakeFirst(),
    );
    return row ? Number(row.tokens) : 0;
  }

  /** Adds `tokens` to what `entityId` spent today (one statement: concurrent calls add up). */
  async add(entityId: string, tokens: number): Promise<void> {
    if (tokens <= 0) return;
    await storageCall('token usage', () =>
      this.#db
        .insertInto('person_token_usage')
        .values({ entity_id: entityId, day: today(this.#now()), tokens })
        .onConflict((conflict) =>
          conflict
            .columns(['entity_id', 'day'])
            .doUpdateSet({ tokens: sql`person_token_usage.tokens + excluded.tokens` }),
        )
        .execute(),
    );
    await this.#sync();
  }

  /** Throws RATE_LIMITED when `entityId` has spent today's budget. */
  async assertLeft(entityId: string): Promise<void> {
    if ((await this.spent(entityId)) < this.limit) return;
    throw new ParleyError(
      'RATE_LIMITED',
      `Your daily budget of ${this.limit} model tokens is spent; it renews at 00:00 UTC`,
      { details: { retryAfterSeconds: secondsToMidnight(this.#now()) } },
    );
  }

  /**
   * `model`, whose calls for a signed-in person are refused once their day's budget is spent and are counted
   * against it when they end (also when they fail or are cancelled half-way: what was streamed was spent).
   */
  guard(model: ModelProvider): ModelProviderV2 {
    const stream = (request: ModelRequest) => this.#stream(model, request);
    return { specificationVersion: 'v2', name: model.name, callsTools: model.callsTools, stream };
  }

  async *#stream(model: ModelProvider, request: ModelRequest): AsyncIterable<ModelStreamPartV2> {
    const person = currentPerson();
    if (person === undefined) {
      yield* streamModel(model, request);
      return;
    }
    await this.assertLeft(person);
    let reported: number | undefined;
    let answered = 0;
    try {
      for await (const part of streamModel(model, request)) {
        switch (part.type) {
          // Reasoning is answered tokens too (a service that reports usage counts it among them).
          case 'text-delta':
          case 'reasoning-delta':
            answered += part.delta.length;
            break;
          case 'finish': {
            const { inputTokens, outputTokens } = part.usage;
            if (inputTokens !== undefined || outputTokens !== undefined)
              reported = (inputTokens ?? 0) + (outputTokens ?? 0);
            break;
          }
          case 'tool-input-start':
          case 'tool-input-delta':
          case 'tool-input-end':
          case 'tool-call':
          case 'error':
            break;
          default:
            part satisfies never;
        }
        yield part;
      }
    } finally {
      const cost =
        reported ?? estimateTokens(JSON.stringify(request.messages)) + Math.ceil(answered / 3.5);
      // A database gone fails the reply on its own path; the cost of this call is then not counted.
      await this.add(person, cost).catch(() => undefined);
    }
  }
}

/** Seconds until the next 00:00 UTC (at least 1). */
function secondsToMidnight(now: Date): number {
  const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return Math.max(1, Math.ceil((midnight - now.getTime()) / 1000));
}
