import { ParleyError } from '@parley/core';
import type { Logger } from 'pino';
import type { ManagedAgentRow, ManagedAgentStore } from '../storage/managed-agent-store';
import { agentIdOf } from './agent-id';
import { toAgentProfile, type AgentProfile } from './agent-profile';
import type { AgentRegistry } from './agent-registry';
import type { ParleyAgentRuntime } from './agent-runtime';
import { checkCharacter } from './character';
import { agentDetails, agentListItem, type AgentFacts } from './agent-view';

/** Bounds and switches of {@link AgentManager}. */
export interface AgentManagementOptions {
  /** Whether agents may be created, changed, started, stopped and deleted over HTTP (`AGENT_MANAGEMENT`). */
  enabled: boolean;
  /** Most agents created at run time, all processes together. */
  maxAgents: number;
  /** Largest character of an agent created at run time, in bytes of JSON. */
  maxCharacterBytes: number;
}

/** What the manager works on: both registries, how a runtime is made, where agents are stored. */
export interface AgentManagerContext {
  profiles: AgentRegistry;
  runtimes: AgentRegistry<ParleyAgentRuntime>;
  makeRuntime: (profile: AgentProfile) => ParleyAgentRuntime;
  store: ManagedAgentStore;
  logger: Logger;
  /** Tells the other processes that agents changed (none: they learn it at their next poll). */
  notify?: () => void;
}

/** The setting that allows managing agents over HTTP. */
export const AGENT_MANAGEMENT_SETTING = 'AGENT_MANAGEMENT';

interface Known {
  stamp: string;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * The agents as a resource: lists and details for everyone; with `AGENT_MANAGEMENT` on, agents created from a
 * character JSON at run time (checked exactly as character files are), changed, stopped, started and deleted.
 * Every change is written to `managed_agents` first and then applied here; other processes apply it when told
 * (`notify`) or at their next {@link refresh}, so an agent made on one process answers on all of them and
 * survives restarts. Agents of the configuration can be stopped and started, not changed or deleted.
 */
export class AgentManager {
  readonly #context: AgentManagerContext;
  readonly #options: AgentManagementOptions;
  readonly #configured: ReadonlySet<string>;
  readonly #known = new Map<string, Known>();
  readonly #startedAt = new Date();
  #refreshing: Promise<void> | undefined;
  #following: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(context: AgentManagerContext, options: AgentManagementOptions) {
    this.#context = context;
    this.#options = options;
    this.#configured = new Set(context.profiles.list().map((agent) => agent.agentId));
  }

  /** Whether management is allowed. */
  get enabled(): boolean {
    return this.#options.enabled;
  }

  /** `GET /api/agents`: every agent, default first. */
  list() {
    return this.#context.profiles.list().map((profile) => agentListItem(this.#facts(profile)));
  }

  /** `GET /api/agents/{agentId}`: NOT_FOUND for an unknown id (after looking at the database once). */
  async details(agentId: string) {
    return agentDetails(this.#facts(await this.#find(agentId)));
  }

  /**
   * Creates an agent from a character: BAD_REQUEST for a bad one, CONFLICT when its id is taken or the bound is
   * reached. The bound is held by the database (see {@link ManagedAgentStore.insertWithin}), never by a count
   * here then an insert. The answer is a success only once the agent is stored and loaded; one that cannot be
   * loaded is removed again, so nothing is kept that no process serves.
   */
  async create(json: unknown) {
    this.#allowed();
    const character = this.#check(json);
    const agentId = agentIdOf(character);
    if (this.#configured.has(agentId) || this.#context.profiles.find(agentId)) {
      throw new ParleyError('CONFLICT', `An agent with id ${agentId} exists already`);
    }
    const outcome = await this.#context.store.insertWithin(
      agentId,
      { ...character, id: agentId },
      this.#options.maxAgents,
    );
    if (outcome === 'taken') {
      throw new ParleyError('CONFLICT', `An agent with id ${agentId} exists already`);
    }
    if (outcome === 'full') {
      throw new ParleyError(
        'CONFLICT',
        `At most ${this.#options.maxAgents} agents can be created; delete one first`,
      );
    }
    try {
      await this.#fresh();
      if (!this.#context.profiles.find(agentId)) {
        throw new ParleyError('UNAVAILABLE', 'The agent was stored but could not be loaded');
      }
    } catch (error) {
      await this.#context.store.delete(agentId).catch((cause: unknown) => {
        this.#context.logger.warn({ agentId, err: cause }, 'could not remove an agent not loaded');
      });
      throw error;
    }
    this.#context.notify?.();
    return this.details(agentId);
  }

  /** Changes an agent created at run time: its character with `patch`'s keys replaced, checked again. */
  async update(agentId: string, patch: unknown) {
    this.#allowed();
    const profile = await this.#find(agentId);
    this.#refuseConfigured(profile, 'changed');
    if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) {
      throw new ParleyError('BAD_REQUEST', 'The body must be an object of character fields');
    }
    const id = (patch as { id?: unknown }).id;
    if (id !== undefined && (typeof id !== 'string' || id.toLowerCase() !== profile.agentId)) {
      throw new ParleyError('BAD_REQUEST', "An agent's id cannot be changed");
    }
    const character = this.#check({ ...profile.character, ...patch, id: profile.agentId });
    if (!(await this.#context.store.updateCharacter(profile.agentId, { ...character }))) {
      throw new ParleyError('NOT_FOUND', `Unknown agent ${agentId}`);
    }
    await this.#changed();
    return this.details(profile.agentId);
  }

  /** Starts (`true`) or stops an agent; a stopped agent answers no message (CONFLICT) until started. */
  async setRunning(agentId: string, running: boolean) {
    this.#allowed();
    const profile = await this.#find(agentId);
    await this.#context.store.setEnabled(profile.agentId, running);
    await this.#changed();
    const stopped = this.#context.profiles.isStopped(profile.agentId);
    return {
      id: profile.agentId,
      name: profile.character.name,
      status: stopped ? 'inactive' : 'active',
    };
  }

  /** Deletes an agent created at run time (its channels and messages stay). */
  async delete(agentId: string): Promise<void> {
    this.#allowed();
    const profile = await this.#find(agentId);
    this.#refuseConfigured(profile, 'deleted');
    await this.#context.store.delete(profile.agentId);
    await this.#changed();
  }

  /**
   * Brings this process's agents up to the database: new and changed rows applied, removed ones dropped. Calls
   * made while one runs share it.
   */
  refresh(): Promise<void> {
    this.#refreshing ??= this.#refresh().finally(() => {
      this.#refreshing = undefined;
    });
    return this.#refreshing;
  }

  /**
   * A refresh that starts after this call: one under way may have read the rows before the caller's write (or
   * another process's), and sharing it would answer from before that write. Calls made while one waits share
   * the one that follows.
   */
  #fresh(): Promise<void> {
    const running = this.#refreshing;
    if (!running) return this.refresh();
    this.#following ??= running
      .catch(() => undefined)
      .then(() => {
        this.#following = undefined;
        return this.refresh();
      });
    return this.#following;
  }

  /**
   * Reads the stored agents now (at start, before the port opens: agents created before a restart answer at
   * once) and then every `intervalMs`, the fallback for a change whose notice did not arrive.
   */
  async start(intervalMs: number): Promise<void> {
    await this.refresh();
    this.#timer = setInterval(() => {
      this.refresh().catch((error: unknown) => {
        this.#context.logger.warn({ err: error }, 'could not read the stored agents');
      });
    }, intervalMs);
    this.#timer.unref();
  }

  /** Stops polling. */
  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  async #refresh(): Promise<void> {
    const limit = this.#options.maxAgents + this.#configured.size + 1;
    const versions = await this.#context.store.versions(limit);
    const present = new Set(versions.map((row) => row.id));
    for (const id of [...this.#known.keys()]) if (!present.has(id)) this.#drop(id);
    const changed = versions.filter((row) => this.#known.get(row.id)?.stamp !== row.stamp);
    for (const row of await this.#context.store.read(changed.map((row) => row.id))) {
      this.#apply(row);
    }
  }

  #apply(row: ManagedAgentRow): void {
    const { profiles, runtimes, logger } = this.#context;
    this.#known.set(row.id, {
      stamp: row.stamp,
      createdAt: row.createdAt,
      updatedAt: row.updatedAt,
    });
    if (row.character !== null && !this.#configured.has(row.id)) {
      const checked = checkCharacter(row.character);
      if (!('character' in checked)) {
        logger.warn({ agentId: row.id, problem: checked.problem }, 'a stored agent is not valid');
        return;
      }
      const profile = toAgentProfile({ ...checked.character, id: row.id });
      const previous = runtimes.find(row.id);
      profiles.put(profile);
      runtimes.put(this.#context.makeRuntime(profile));
      if (previous) void previous.stopServices();
    }
    profiles.setStopped(row.id, !row.enabled);
    runtimes.setStopped(row.id, !row.enabled);
  }

  #drop(id: string): void {
    const { profiles, runtimes } = this.#context;
    this.#known.delete(id);
    if (this.#configured.has(id)) {
      profiles.setStopped(id, false);
      runtimes.setStopped(id, false);
      return;
    }
    const runtime = runtimes.find(id);
    profiles.remove(id);
    runtimes.remove(id);
    if (runtime) void runtime.stopServices();
  }

  async #changed(): Promise<void> {
    await this.#fresh();
    this.#context.notify?.();
  }

  /** The agent, looking at the database once when this process does not know it (another made it). */
  async #find(agentId: string): Promise<AgentProfile> {
    const found = this.#context.profiles.find(agentId);
    if (found) return found;
    await this.#fresh();
    const again = this.#context.profiles.find(agentId);
    if (!again) throw new ParleyError('NOT_FOUND', `Unknown agent ${agentId}`);
    return again;
  }

  #facts(profile: AgentProfile): AgentFacts {
    const known = this.#known.get(profile.agentId);
    const configured = this.#configured.has(profile.agentId);
    return {
      agentId: profile.agentId,
      character: profile.character,
      abilities: this.#context.runtimes.find(profile.agentId)?.abilities,
      stopped: this.#context.profiles.isStopped(profile.agentId),
      source: configured ? 'configuration' : 'api',
      createdAt: configured ? this.#startedAt : (known?.createdAt ?? this.#startedAt),
      updatedAt: known?.updatedAt ?? this.#startedAt,
    };
  }

  /** FORBIDDEN, naming the setting, unless management is allowed. */
  assertAllowed(): void {
    this.#allowed();
  }

  #allowed(): void {
    if (!this.#options.enabled) {
      throw new ParleyError(
        'FORBIDDEN',
        `Managing agents over HTTP is off; the operator turns it on with ${AGENT_MANAGEMENT_SETTING}=true`,
      );
    }
  }

  #refuseConfigured(profile: AgentProfile, what: string): void {
    if (this.#configured.has(profile.agentId)) {
      throw new ParleyError(
        'CONFLICT',
        `Agent ${profile.character.name} comes from the server's configuration and cannot be ${what} over HTTP; ` +
          'change its character file',
      );
    }
  }

  /** A character as files are checked, within the size bound, without MCP servers (configured in files only). */
  #check(json: unknown) {
    const bytes = Buffer.byteLength(JSON.stringify(json ?? null));
    if (bytes > this.#options.maxCharacterBytes) {
      throw new ParleyError(
        'PAYLOAD_TOO_LARGE',
        `The character is ${bytes} bytes; at most ${this.#options.maxCharacterBytes}`,
      );
    }
    const checked = checkCharacter(json);
    if (!('character' in checked))
      throw new ParleyError('BAD_REQUEST', `character: ${checked.problem}`);
    if (checked.character.settings && 'mcp' in checked.character.settings) {
      throw new ParleyError(
        'BAD_REQUEST',
        'character: settings.mcp is read from character files only, not from agents created over HTTP',
      );
    }
    return checked.character;
  }
}
