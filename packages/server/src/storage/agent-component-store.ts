import { isRecord, isUuid, ParleyError } from '@parley/core';
import type { Component } from '@parley/plugin-sdk';
import { type Kysely, type Selectable, sql } from 'kysely';
import type { AgentComponentTable, DatabaseSchema } from './schema';
import { assertStorable, storageCall } from './to-storage-error';

/** The bounds of {@link AgentComponentStore}. */
export interface AgentComponentLimits {
  /** Largest `data` of one component, in bytes of JSON. */
  maxDataBytes: number;
  /** Most components one agent may hold. */
  maxPerAgent: number;
}

/** The optional id fields of a component: empty or absent is null, anything else must be a UUID. */
const OPTIONAL_IDS = ['roomId', 'worldId', 'sourceEntityId'] as const;
/** Longest component type. */
const MAX_TYPE_LENGTH = 256;

/** A row of `agent_components`, as read and as written (its data an object, not yet JSON text). */
type Row = Selectable<AgentComponentTable>;

/**
 * elizaOS components, stored per agent in `agent_components`: what `runtime.getComponent`, `createComponent`…
 * read and write. Every call is scoped to one agent (an agent never sees another's components, whatever ids a
 * plugin passes), and bounded: a component's `data` by size, an agent's components by count; either bound is a
 * clear error, not a silent drop.
 */
export class AgentComponentStore {
  readonly #db: Kysely<DatabaseSchema>;
  readonly #limits: AgentComponentLimits;
  readonly #sync: () => Promise<void>;

  /**
   * @param db the database.
   * @param limits the bounds.
   * @param sync makes a write durable before it resolves (see `Database.sync`).
   */
  constructor(
    db: Kysely<DatabaseSchema>,
    limits: AgentComponentLimits,
    sync: () => Promise<void> = () => Promise.resolve(),
  ) {
    this.#db = db;
    this.#limits = limits;
    this.#sync = sync;
  }

  /** The agent's first component (oldest) of `type` for `entityId`, narrowed by `worldId` and `sourceEntityId`. */
  async get(
    agentId: string,
    entityId: string,
    type: string,
    worldId?: string,
    sourceEntityId?: string,
  ): Promise<Component | null> {
    if (!isUuid(entityId)) return null;
    const rows = await this.#select(agentId, entityId, { type, worldId, sourceEntityId }, 1);
    return rows[0] ?? null;
  }

  /** The agent's components for `entityId`, oldest first, narrowed by `worldId` and `sourceEntityId`. */
  async list(
    agentId: string,
    entityId: string,
    worldId?: string,
    sourceEntityId?: string,
  ): Promise<Component[]> {
    if (!isUuid(entityId)) return [];
    return this.#select(agentId, entityId, { worldId, sourceEntityId }, this.#limits.maxPerAgent);
  }

  /**
   * Stores a new component for the agent (its `agentId` field is ignored: the agent is `agentId`). The count
   * check and the insert run under a lock on the agent, so the bound holds for creates released together.
   *
   * @throws ParleyError `BAD_REQUEST` for a field that is not a UUID, a bad type or data that is not a JSON
   * object; `PAYLOAD_TOO_LARGE` for data beyond the bound; `CONFLICT` for an id already taken or an agent that
   * holds as many components as allowed.
   */
  async create(agentId: string, component: Component): Promise<true> {
    const row = this.#toRow(agentId, component);
    const { maxPerAgent } = this.#limits;
    const inserted = await storageCall('component', () =>
      // One agent's creates take turns (a transaction lock on the agent): creates released together cannot
      // each count the others out and pass the bound together.
      this.#db.transaction().execute(async (trx) => {
        await sql`SELECT pg_advisory_xact_lock(hashtextextended(${agentId}, 0))`.execute(trx);
        const result = await sql<{ id: string }>`
        INSERT INTO agent_components
          (id, agent_id, entity_id, type, world_id, room_id, source_entity_id, data, created_at)
        SELECT ${row.id}::uuid, ${row.agent_id}::uuid, ${row.entity_id}::uuid, ${row.type}::text,
               ${row.world_id}::uuid, ${row.room_id}::uuid, ${row.source_entity_id}::uuid,
               ${JSON.stringify(row.data)}::jsonb, ${row.created_at}::timestamptz
        WHERE (SELECT count(*) FROM agent_components WHERE agent_id = ${agentId}::uuid) < ${maxPerAgent}
        ON CONFLICT (id) DO NOTHING
        RETURNING id`.execute(trx);
        return result.rows.length > 0;
      }),
    );
    if (!inserted) {
      const taken = await storageCall('component', () =>
        this.#db
          .selectFrom('agent_components')
          .select('id')
          .where('id', '=', row.id)
          .executeTakeFirst(),
      );
      throw new ParleyError(
        'CONFLICT',
        taken
          ? `A component with id ${row.id} exists already`
          : `The agent holds ${maxPerAgent} components, the most allowed: delete some before creating more`,
      );
    }
    await this.#sync();
    return true;
  }

  /**
   * Replaces the entity, type, room, world, source and data of the agent's component with the same id. As in
   * elizaOS, a component that does not exist is no error: nothing changes.
   *
   * @throws ParleyError as {@link create} does for the component's fields.
   */
  async update(agentId: string, component: Component): Promise<void> {
    const row = this.#toRow(agentId, component);
    await storageCall('component', () =>
      this.#db
        .updateTable('agent_components')
        .set({
          entity_id: row.entity_id,
          type: row.type,
          world_id: row.world_id,
          room_id: row.room_id,
          source_entity_id: row.source_entity_id,
          data: JSON.stringify(row.data),
        })
        .where('agent_id', '=', agentId)
        .where('id', '=', row.id)
        .execute(),
    );
    await this.#sync();
  }

  /** Deletes the agent's component `id`; an unknown id is no error. */
  async delete(agentId: string, id: string): Promise<void> {
    if (!isUuid(id)) return;
    await storageCall('component', () =>
      this.#db
        .deleteFrom('agent_components')
        .where('agent_id', '=', agentId)
        .where('id', '=', id)
        .execute(),
    );
    await this.#sync();
  }

  async #select(
    agentId: string,
    entityId: string,
    filter: { type?: string; worldId?: string; sourceEntityId?: string },
    limit: number,
  ): Promise<Component[]> {
    // An id that is not a UUID matches nothing (PostgreSQL would refuse it as uuid input).
    for (const id of [filter.worldId, filter.sourceEntityId]) {
      if (id !== undefined && id !== null && id !== '' && !isUuid(id)) return [];
    }
    const rows = await storageCall('component', () => {
      let query = this.#db
        .selectFrom('agent_components')
        .selectAll()
        .where('agent_id', '=', agentId)
        .where('entity_id', '=', entityId);
      if (filter.type !== undefined) query = query.where('type', '=', filter.type);
      if (filter.worldId) query = query.where('world_id', '=', filter.worldId);
      if (filter.sourceEntityId) {
        query = query.where('source_entity_id', '=', filter.sourceEntityId);
      }
      return query.orderBy('created_at').orderBy('id').limit(limit).execute();
    });
    return rows.map(toComponent);
  }

  /** Checks a component and turns it into a row of `agentId`. */
  #toRow(agentId: string, component: Component): Row {
    if (!isRecord(component)) throw new ParleyError('BAD_REQUEST', 'A component must be an object');
    for (const field of ['id', 'entityId'] as const) {
      if (!isUuid(component[field])) {
        throw new ParleyError('BAD_REQUEST', `The component's ${field} must be a UUID`);
      }
    }
    const optional: Record<(typeof OPTIONAL_IDS)[number], string | null> = {
      roomId: null,
      worldId: null,
      sourceEntityId: null,
    };
    for (const field of OPTIONAL_IDS) {
      const value = component[field];
      if (value === undefined || value === null || value === '') continue;
      if (!isUuid(value)) {
        throw new ParleyError('BAD_REQUEST', `The component's ${field} must be a UUID or empty`);
      }
      optional[field] = value;
    }
    const { type, data } = component;
    if (typeof type !== 'string' || type === '' || type.length > MAX_TYPE_LENGTH) {
      throw new ParleyError(
        'BAD_REQUEST',
        `The component's type must be text of 1 to ${MAX_TYPE_LENGTH} characters`,
      );
    }
    if (!isRecord(data)) {
      throw new ParleyError('BAD_REQUEST', "The component's data must be a JSON object");
    }
    assertStorable({ texts: { type }, json: { data } });
    const bytes = Buffer.byteLength(JSON.stringify(data));
    if (bytes > this.#limits.maxDataBytes) {
      throw new ParleyError(
        'PAYLOAD_TOO_LARGE',
        `The component's data is ${bytes} bytes of JSON; the most allowed is ${this.#limits.maxDataBytes}`,
      );
    }
    const createdAt =
      typeof component.createdAt === 'number' && Number.isFinite(component.createdAt)
        ? new Date(component.createdAt)
        : new Date();
    assertStorable({ dates: { createdAt } });
    return {
      id: component.id.toLowerCase(),
      agent_id: agentId,
      entity_id: component.entityId,
      type,
      world_id: optional.worldId,
      room_id: optional.roomId,
      source_entity_id: optional.sourceEntityId,
      data,
      created_at: createdAt,
    };
  }
}

function toComponent(row: Row): Component {
  return {
    id: row.id,
    entityId: row.entity_id,
    agentId: row.agent_id,
    ...(row.room_id ? { roomId: row.room_id } : {}),
    ...(row.world_id ? { worldId: row.world_id } : {}),
    ...(row.source_entity_id ? { sourceEntityId: row.source_entity_id } : {}),
    type: row.type,
    createdAt: new Date(row.created_at).getTime(),
    data: row.data,
  };
}
