import { ParleyError } from '@parley/core';
import { currentPerson } from './person-scope';

/** How much reply work the server takes on before it says no. */
export interface ReplyLimits {
  /** Model calls running at once, over all channels (default 32); more wait their turn. */
  maxConcurrentModelCalls: number;
  /** Replies waiting or running in one channel (default 16); more are refused with RATE_LIMITED (429). */
  maxQueuedPerChannel: number;
  /** Replies waiting or running in all (default 1000); more are refused with UNAVAILABLE (503). */
  maxQueuedTotal: number;
  /**
   * Replies waiting or running that one signed-in person started, over all channels (default 8); more are
   * refused with RATE_LIMITED (429). The operator and admins are not bounded by it.
   */
  maxQueuedPerPerson: number;
}

export const DEFAULT_REPLY_LIMITS: ReplyLimits = {
  maxConcurrentModelCalls: 32,
  maxQueuedPerChannel: 16,
  maxQueuedTotal: 1000,
  maxQueuedPerPerson: 8,
};

/** A place taken in the reply queue; released once, when the reply ends or the request fails before it. */
export interface ReplyTicket {
  readonly channelId: string;
  release(): void;
  /** Whether a place taken earlier in the same channel is still held (a reply waiting or running before this). */
  behindAnother(): boolean;
}

/**
 * Counts replies waiting or running, per channel and in all, and refuses more than the limits allow. A place is
 * taken synchronously when the request is admitted, before anything is awaited, so requests arriving together
 * cannot all pass a check that none of them has been counted in yet.
 */
export class ReplyAdmission {
  readonly #limits: ReplyLimits;
  /** The places held per channel, in the order they were taken (their count is the channel's load). */
  readonly #held = new Map<string, Set<number>>();
  /** Replies waiting or running per signed-in person (see `person-scope.ts`). */
  readonly #perPerson = new Map<string, number>();
  #taken = 0;
  #total = 0;

  constructor(limits: ReplyLimits) {
    this.#limits = limits;
  }

  /**
   * Takes a place for a reply in `channelId`, or throws UNAVAILABLE (server full) or RATE_LIMITED (channel full,
   * or the person it is for has their most replies waiting or running).
   */
  admit(channelId: string): ReplyTicket {
    const person = currentPerson();
    if (this.#total >= this.#limits.maxQueuedTotal) {
      throw new ParleyError(
        'UNAVAILABLE',
        'The server has too many replies in progress; retry later',
        {
          details: { retryAfterSeconds: 5 },
        },
      );
    }
    if ((this.#held.get(channelId)?.size ?? 0) >= this.#limits.maxQueuedPerChannel) {
      throw new ParleyError(
        'RATE_LIMITED',
        `This channel already has ${this.#limits.maxQueuedPerChannel} messages waiting for a reply; retry later`,
        { details: { retryAfterSeconds: 2 } },
      );
    }
    const byPerson = person === undefined ? 0 : (this.#perPerson.get(person) ?? 0);
    if (byPerson >= this.#limits.maxQueuedPerPerson) {
      throw new ParleyError(
        'RATE_LIMITED',
        `You already have ${this.#limits.maxQueuedPerPerson} replies waiting or running; retry when one ends`,
        { details: { retryAfterSeconds: 2 } },
      );
    }
    if (person !== undefined) this.#perPerson.set(person, byPerson + 1);
    this.#total += 1;
    const place = (this.#taken += 1);
    let places = this.#held.get(channelId);
    if (!places) this.#held.set(channelId, (places = new Set()));
    places.add(place);
    let held = true;
    return {
      channelId,
      release: () => {
        if (!held) return;
        held = false;
        this.#total -= 1;
        if (person !== undefined) {
          const left = this.#perPerson.get(person)! - 1;
          if (left === 0) this.#perPerson.delete(person);
          else this.#perPerson.set(person, left);
        }
        places.delete(place);
        if (places.size === 0 && this.#held.get(channelId) === places) this.#held.delete(channelId);
      },
      // Sets iterate in insertion order: the first place is the oldest still held.
      behindAnother: () => places.values().next().value !== place,
    };
  }

  /** Whether a reply of `channelId` is waiting or running in this process. */
  busy(channelId: string): boolean {
    return this.#held.has(channelId);
  }

  /** Replies waiting or running, in all. */
  get pending(): number {
    return this.#total;
  }
}
