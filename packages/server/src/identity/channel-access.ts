import { ParleyError } from '@parley/core';
import { assertSameEntity } from './guard';
import { type Identity, isAdmin } from './identity';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import { LRUCache } from 'lru-cache';
import type { DatabaseSchema } from '../storage/schema';
import { storageCall } from '../storage/to-storage-error';

/**
 * Who asks, as channel access needs it: the fields of `Identity` (identity.ts) it reads. `admin` sees and does
 * everything (and is what every request is when no auth is configured: today's behaviour); a `user` or `guest`
 * only what their channels allow.
 */
export type ChannelAsker = Pick<Identity, 'kind' | 'entityId' | 'roles'>;

/** The role that may decide any approval in a channel it can read. */
export const APPROVER_ROLE = 'approver';

/** Most memberships a process remembers (see {@link ChannelAccessOptions.remember}). */
const REMEMBERED_MEMBERSHIPS = 10_000;

type Role = 'owner' | 'member';

const membershipKey = (channelId: string, entityId: string) =>
  `${channelId.toLowerCase()}\u0000${entityId}`;

/**
 * The channel a post's access check read with the person's role: its agent (null: none set), or null when no
 * channel has the id yet. The post uses it instead of reading the channel again.
 */
export type ChannelSeen = { agentId: string | null } | null;

/** Options of {@link ChannelAccess}. */
export interface ChannelAccessOptions {
  /**
   * Only this process writes the database (the embedded PGlite): the memberships it read or wrote are remembered
   * (at most 10,000, least recently used forgotten first), so a member's every post and read costs no statement.
   * It is told of every way one ends (a member removed here, a channel deleted: {@link forgetChannel}); with
   * PostgreSQL another process may remove a member, so each check asks the database.
   */
  remember?: boolean;
}

const notYours = (channelId: string) =>
  new ParleyError('FORBIDDEN', `You are not a member of channel ${channelId}`);

/** SQL: no channel has the id `channelId` (yet). */
const isNew = (channelId: string) =>
  sql<boolean>`not exists (select 1 from channels where id = ${channelId}::uuid)`;

/**
 * SQL: the insert that makes `entityId` the owner of `channelId` when `when` holds, returning the role taken (no
 * row: `when` did not hold, the person is in the channel already, or the channel has an owner already).
 */
const ownerClaim = (channelId: string, entityId: string, when: RawBuilder<boolean>) =>
  sql<{ role: string }>`
        insert into channel_members (channel_id, entity_id, role)
        select ${channelId}::uuid, ${entityId}::text, 'owner'
        where ${when}
        on conflict do nothing
        returning role`;

/**
 * The one place that decides who may see and do what in a channel (routes, the socket and every other face ask
 * it; none decides for itself). Membership lives in `channel_members` (migration 0025): the channel's owner
 * (who created it: REST create, the first message into a new id, a DM asked for) and the people an owner or an
 * admin added. Refusals are FORBIDDEN whether or not the channel exists, so a refusal tells nothing about
 * another person's channels.
 */
export class ChannelAccess {
  /** Memberships known to hold, by {@link membershipKey}; only when this process is the database's one writer. */
  readonly #members: LRUCache<string, Role> | undefined;

  constructor(
    private readonly db: Kysely<DatabaseSchema>,
    options: ChannelAccessOptions = {},
  ) {
    this.#members = options.remember ? new LRUCache({ max: REMEMBERED_MEMBERSHIPS }) : undefined;
  }

  /** Forgets what this process remembers of a channel's members: call it once the channel is deleted. */
  forgetChannel(channelId: string): void {
    if (!this.#members) return;
    const prefix = membershipKey(channelId, '');
    for (const key of [...this.#members.keys()])
      if (key.startsWith(prefix)) this.#members.delete(key);
  }

  /** Whether `who` sees everything. */
  static isAdmin(who: ChannelAsker | undefined): boolean {
    return isAdmin(who as Identity | undefined);
  }

  /** The entity whose channels a listing is limited to; undefined for an admin (all channels). */
  listScope(who: ChannelAsker | undefined): string | undefined {
    return ChannelAccess.isAdmin(who) ? undefined : who!.entityId;
  }

  /** Whether `who` may read the channel (its history, events and replies). */
  async canRead(who: ChannelAsker | undefined, channelId: string): Promise<boolean> {
    if (ChannelAccess.isAdmin(who)) return true;
    return (await this.#role(channelId, who!.entityId)) !== undefined;
  }

  /** FORBIDDEN unless `who` may read the channel. */
  async assertRead(who: ChannelAsker | undefined, channelId: string): Promise<void> {
    if (!(await this.canRead(who, channelId))) throw notYours(channelId);
  }

  /** FORBIDDEN unless `who` is a member of the channel (rename, leave). */
  assertMember(who: ChannelAsker | undefined, channelId: string): Promise<void> {
    return this.assertRead(who, channelId);
  }

  /** FORBIDDEN unless `who` owns the channel (delete it, clear it, add or remove people and agents). */
  async assertOwner(who: ChannelAsker | undefined, channelId: string): Promise<void> {
    if (ChannelAccess.isAdmin(who)) return;
    if ((await this.#role(channelId, who!.entityId)) !== 'owner') {
      throw new ParleyError('FORBIDDEN', `Only the owner of channel ${channelId} may do this`);
    }
  }

  /**
   * FORBIDDEN unless `who` may post into the channel: a member, or the first to post into an id no channel has
   * and nobody claimed (created on first use: they become its owner, in one statement, so that of people
   * posting into the same new id together exactly one owns it).
   */
  async assertPost(
    who: ChannelAsker | undefined,
    channelId: string,
  ): Promise<ChannelSeen | undefined> {
    if (ChannelAccess.isAdmin(who)) return undefined;
    const entityId = who!.entityId;
    if (this.#members?.get(membershipKey(channelId, entityId))) return undefined;
    // One statement on the common paths (a member posts; someone starts a new channel): their role, or the
    // owner's row taken when the channel does not exist yet. No row: someone else's channel, or a claim that lost a
    // race, maybe to this person's own request released beside it, so the role is read once more.
    // The channel's agent comes with it (as it was before the statement), so that the post does not read it again.
    const result = await storageCall('channel members', () =>
      sql<{ role: string; channel_id: string | null; agent_id: string | null }>`
        with mine as (
          select role from channel_members where channel_id = ${channelId}::uuid and entity_id = ${entityId}::text
        ), claimed as (
          ${ownerClaim(channelId, entityId, sql`not exists (select 1 from mine) and ${isNew(channelId)}`)}
        )
        select r.role, c.id as channel_id, c.agent_id
        from (select role from mine union all select role from claimed) r
        left join channels c on c.id = ${channelId}::uuid`.execute(this.db),
    );
    const row = result.rows[0];
    if (row?.role === 'owner' || row?.role === 'member') {
      this.#members?.set(membershipKey(channelId, entityId), row.role);
      return row.channel_id === null ? null : { agentId: row.agent_id };
    }
    if ((await this.#role(channelId, entityId)) !== undefined) return undefined;
    throw notYours(channelId);
  }

  /**
   * Makes `entityId` the owner of a channel nobody owns and that does not exist yet (or, with `exists`, that was
   * just created by them); true when they own it now.
   */
  async claim(channelId: string, entityId: string, options: { created?: boolean } = {}) {
    const result = await storageCall('channel members', () =>
      ownerClaim(
        channelId,
        entityId,
        sql`${options.created === true} or ${isNew(channelId)}`,
      ).execute(this.db),
    );
    if (result.rows.length > 0) {
      this.#members?.set(membershipKey(channelId, entityId), 'owner');
      return true;
    }
    return (await this.#role(channelId, entityId)) === 'owner';
  }

  /** Records the creator of a channel as its owner (REST create, a DM asked for). */
  async recordOwner(who: ChannelAsker | undefined, channelId: string): Promise<void> {
    if (who === undefined) return;
    await this.claim(channelId, who.entityId, { created: true });
  }

  /** The owner of a channel, if it has one. */
  async ownerOf(channelId: string): Promise<string | undefined> {
    const row = await storageCall('channel members', () =>
      this.db
        .selectFrom('channel_members')
        .select('entity_id')
        .where('channel_id', '=', channelId)
        .where('role', '=', 'owner')
        .executeTakeFirst(),
    );
    return row?.entity_id;
  }

  /**
   * FORBIDDEN unless `who` may have the DM channel `channelId` of them and `otherId`: theirs when nobody owns it
   * yet, or when its owner is the other person (then they become a member). A DM id claimed by a third person
   * (ids are derived from the pair, so anyone can compute one) is refused rather than joined.
   */
  async assertDm(who: ChannelAsker | undefined, channelId: string, otherId: string): Promise<void> {
    if (ChannelAccess.isAdmin(who)) return;
    const entityId = who!.entityId;
    if (await this.claim(channelId, entityId, { created: true })) return;
    const owner = await this.ownerOf(channelId);
    if (owner === otherId) return this.addMember(channelId, entityId);
    throw notYours(channelId);
  }

  /** Adds a person to a channel as a member (no change when already in). */
  async addMember(channelId: string, entityId: string): Promise<void> {
    await storageCall('channel members', () =>
      this.db
        .insertInto('channel_members')
        .values({ channel_id: channelId, entity_id: entityId.toLowerCase(), role: 'member' })
        .onConflict((conflict) => conflict.columns(['channel_id', 'entity_id']).doNothing())
        .execute(),
    );
  }

  /** Removes a person from a channel's members (an owner leaving leaves it ownerless: admins still see it). */
  async removeMember(channelId: string, entityId: string): Promise<void> {
    await storageCall('channel members', () =>
      this.db
        .deleteFrom('channel_members')
        .where('channel_id', '=', channelId)
        .where('entity_id', '=', entityId.toLowerCase())
        .execute(),
    );
    this.#members?.delete(membershipKey(channelId, entityId));
    this.#members?.delete(membershipKey(channelId, entityId.toLowerCase()));
  }

  /**
   * FORBIDDEN unless `who` may decide the approvals of a paused reply: an admin; an `approver` who can read its
   * channel; or the person whose message started the reply. NOT_FOUND for a reply that is not paused.
   */
  async assertDecide(who: ChannelAsker | undefined, replyId: string): Promise<void> {
    if (ChannelAccess.isAdmin(who)) return;
    const row = await storageCall('approvals', () =>
      this.db
        .selectFrom('paused_replies')
        .leftJoin('messages', 'messages.id', 'paused_replies.in_reply_to')
        .select([
          'paused_replies.channel_id as channelId',
          'paused_replies.parts as parts',
          'messages.author_id as authorId',
        ])
        .where('paused_replies.reply_id', '=', replyId)
        .executeTakeFirst(),
    );
    if (!row) throw new ParleyError('NOT_FOUND', `No approval request in reply ${replyId}`);
    if (!(await this.canRead(who, row.channelId))) throw notYours(row.channelId);
    if (who!.roles.has(APPROVER_ROLE)) return;
    if (approversOnly(row.parts)) {
      throw new ParleyError(
        'FORBIDDEN',
        'This reply waits on an action only an approver may approve: it needs the role approver',
      );
    }
    if (row.authorId === who!.entityId) return;
    throw new ParleyError(
      'FORBIDDEN',
      'Only the person whose message started this reply (or an approver) may decide its tool calls',
    );
  }

  /** The person's role in the channel, remembered once read (see {@link ChannelAccessOptions.remember}). */
  async #role(channelId: string, entityId: string): Promise<Role | undefined> {
    const key = membershipKey(channelId, entityId);
    const known = this.#members?.get(key);
    if (known) return known;
    const row = await storageCall('channel members', () =>
      this.db
        .selectFrom('channel_members')
        .select('role')
        .where('channel_id', '=', channelId)
        .where('entity_id', '=', entityId)
        .executeTakeFirst(),
    );
    if (row) this.#members?.set(key, row.role);
    return row?.role;
  }
}

/** The entity a person posts as: their own; naming another is FORBIDDEN (an admin may name anyone). */
export function postingEntity<T extends string | undefined>(
  who: ChannelAsker | undefined,
  claimed: T,
): T | string {
  return assertSameEntity(who as Identity | undefined, claimed) as T | string;
}

/** Who asks, on a request: the identity the identity middleware set (none: no auth, an admin as today). */
export function askerOf(c: { get(key: never): unknown }): ChannelAsker | undefined {
  return (c.get as (key: string) => ChannelAsker | undefined)('identity');
}

/** Who asks, on a socket: the identity its handshake resolved (none: no auth, an admin as today). */
export function socketAskerOf(socket: { data: unknown }): ChannelAsker | undefined {
  return (socket.data as { identity?: ChannelAsker } | undefined)?.identity;
}

const ACCESS_KEY = 'channelAccess';

/**
 * hono middleware that hands `access` to every route (`channelAccessOf`), so the faces mounted by others (the
 * sessions, OpenAI, UI chat, A2A and MCP routes) ask the same module without a new constructor argument each.
 */
export function provideChannelAccess(access: ChannelAccess) {
  return async (c: { set(key: never, value: never): void }, next: () => Promise<void>) => {
    (c.set as (key: string, value: ChannelAccess) => void)(ACCESS_KEY, access);
    await next();
  };
}

type RequestContext = { get(key: never): unknown };

/**
 * FORBIDDEN unless the request's identity may read `channelId` (an admin always may). A request that reaches a
 * route without the access module (not wired) is refused to anyone but an admin: closed, not open.
 */
export async function assertReadOnRequest(c: RequestContext, channelId: string): Promise<void> {
  const who = askerOf(c);
  if (ChannelAccess.isAdmin(who)) return;
  await accessOf(c).assertRead(who, channelId);
}

/** FORBIDDEN unless the request's identity may post into `channelId` (a new id becomes theirs). */
export async function assertPostOnRequest(
  c: RequestContext,
  channelId: string,
): Promise<ChannelSeen | undefined> {
  const who = askerOf(c);
  if (ChannelAccess.isAdmin(who)) return undefined;
  return accessOf(c).assertPost(who, channelId);
}

/** Makes the request's person the owner of a channel just created for them (no-op for an admin). */
export async function recordOwnerOnRequest(c: RequestContext, channelId: string): Promise<void> {
  const who = askerOf(c);
  if (ChannelAccess.isAdmin(who)) return;
  await accessOf(c).recordOwner(who, channelId);
}

function accessOf(c: RequestContext): ChannelAccess {
  const access = (c.get as (key: string) => ChannelAccess | undefined)(ACCESS_KEY);
  if (!access) throw new ParleyError('FORBIDDEN', 'Channel access is not available here');
  return access;
}

/** A person on a request, for the faces that post on their behalf; undefined for an admin. */
export interface RequestPerson {
  entityId: string;
  /** FORBIDDEN unless they may post into the channel (a new id becomes theirs). */
  authorize(channelId: string): Promise<void>;
}

/** The request's person (their entity and a check of a channel), or undefined for an admin. */
export function requestPerson(c: RequestContext): RequestPerson | undefined {
  const who = askerOf(c);
  if (ChannelAccess.isAdmin(who)) return undefined;
  return {
    entityId: who!.entityId,
    authorize: async (channelId) => {
      await assertPostOnRequest(c, channelId);
    },
  };
}

/** FORBIDDEN unless the request's identity may decide the paused reply's approvals (see `assertDecide`). */
export async function assertDecideOnRequest(c: RequestContext, replyId: string): Promise<void> {
  const who = askerOf(c);
  if (ChannelAccess.isAdmin(who)) return;
  await accessOf(c).assertDecide(who, replyId);
}

/**
 * Whether a paused reply's parts hold an approval request only an approver may decide (an action with
 * `approvalBy: 'approver'`): then every call of the reply is decided by approvers (decisions name the reply,
 * and the person who started it must not approve the restricted call through another of its requests).
 */
function approversOnly(parts: unknown): boolean {
  return (
    Array.isArray(parts) &&
    parts.some(
      (part) =>
        typeof part === 'object' &&
        part !== null &&
        (part as { type?: unknown }).type === 'approval-request' &&
        (part as { approverOnly?: unknown }).approverOnly === true,
    )
  );
}
