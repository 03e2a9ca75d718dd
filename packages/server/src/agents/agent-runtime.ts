import { inspect } from 'node:util';
import { ParleyError } from '@parley/core';
import type {
  Action,
  AgentPostOptions,
  AgentRuntime,
  AgentScheduleOptions,
  Character,
  Component,
  ControlOptions,
  Evaluator,
  Memory,
  ModelParams,
  Plugin,
  PluginEventHandler,
  PluginLogger,
  PluginService,
  PluginServiceClass,
  Provider,
  ScheduledMessageInfo,
  State,
} from '@parley/plugin-sdk';
import { DEFAULTS } from '../defaults';
import type { ModelProvider } from '../models/model-provider';
import type { AgentComponentStore } from '../storage/agent-component-store';
import { AgentAbilities } from './agent-abilities';
import { AgentEvents } from './agent-events';
import { composeState } from './compose-state';
import { useModel } from './use-model';
import type { MemoryService } from '../memory/memory-service';
import type { CachedEmbeddingQuery } from '../memory/memory-store';
import {
  RuntimeMemory,
  type ElizaMemory,
  type GetMemoriesParams,
  type SearchMemoriesParams,
} from './runtime-memory';
import type { AgentProfile } from './agent-profile';
import { AgentServiceRegistry } from './agent-services';
import { copyCharacter } from './copy-character';
import { acceptedUnusedKeys, settingText } from './character';

/**
 * What an agent can do through the server. The small interface between agents and messaging: the runtime
 * depends on it, not on the messaging service, so that neither needs the other to exist first.
 */
export interface AgentServices {
  sendMessage(agent: AgentProfile, options: AgentPostOptions): Promise<{ id: string }>;
  scheduleMessage(
    agent: AgentProfile,
    options: AgentScheduleOptions,
  ): Promise<ScheduledMessageInfo>;
  sendControl(options: ControlOptions): void;
}

/** What a runtime is given at construction. */
export interface AgentRuntimeContext {
  /** Environment used as the settings fallback. */
  env: Readonly<Record<string, string | undefined>>;
  /** The server's own address, once known. */
  serverUrl: () => string;
  logger: PluginLogger;
  services: AgentServices;
  /** The model `useModel` asks (none: it throws). */
  model?: ModelProvider;
  /** The deadline of all providers in `composeState`. */
  providerTimeoutMs?: number;
  /** Where `getComponent`, `createComponent`… keep this agent's components (none: they reject, UNAVAILABLE). */
  components?: AgentComponentStore;
  /** Where `createMemory`, `searchMemories`… keep this agent's memories, and `TEXT_EMBEDDING`'s embedder. */
  memory?: MemoryService;
}

function isSet(value: unknown): boolean {
  return value !== undefined && value !== null && value !== '';
}

/**
 * One agent's runtime, as plugins see it: identity, its own mutable copy of the character's settings, logger,
 * the server's messaging, and the services and events its plugins register. Logging it shows the agent's id and
 * name only: settings hold API keys.
 */
export class ParleyAgentRuntime implements AgentRuntime {
  readonly agentId: string;
  readonly character: Character;
  /** The character's `ifBusy`, read once (see {@link AgentProfile.ifBusy}). */
  readonly ifBusy: AgentProfile['ifBusy'];
  readonly logger: PluginLogger;
  readonly #profile: AgentProfile;
  readonly #context: AgentRuntimeContext;
  readonly #services = new AgentServiceRegistry();
  readonly #events = new AgentEvents();
  /** The actions, providers and evaluators of the plugins this agent loads, each with its plugin's runtime. */
  readonly abilities = new AgentAbilities();
  /** elizaOS's memory methods, scoped to this agent. */
  readonly #memory: RuntimeMemory;

  constructor(profile: AgentProfile, context: AgentRuntimeContext) {
    this.#profile = profile;
    this.agentId = profile.agentId;
    this.character = copyCharacter(profile.character);
    this.ifBusy = profile.ifBusy;
    this.logger = context.logger;
    this.#context = context;
    this.#memory = new RuntimeMemory(profile.agentId, context.memory, context.logger);
    const unused = acceptedUnusedKeys(profile.character);
    if (unused.length > 0) {
      // One line per agent (the logger names it): its elizaOS keys were accepted, and nothing here reads them.
      this.logger.info(
        { keys: unused },
        `character ${profile.character.name}: kept but not used by Parley: ${unused.join(', ')}`,
      );
    }
  }

  getSetting(key: string): string | undefined {
    const fromSecrets = this.character.secrets?.[key];
    if (isSet(fromSecrets)) return fromSecrets;
    const fromCharacter = settingText(this.character.settings?.[key]);
    if (isSet(fromCharacter)) return fromCharacter;
    const fromEnv = this.#context.env[key];
    if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
    if (key === 'SERVER_URL') return this.#context.serverUrl();
    return undefined;
  }

  setSetting(key: string, value: string | undefined, secret = false): void {
    const target = secret ? (this.character.secrets ??= {}) : (this.character.settings ??= {});
    if (value === undefined) delete target[key];
    else target[key] = value;
  }

  /** elizaOS's `runtime.services`: the running services by type (see {@link AgentServiceRegistry.services}). */
  get services(): Map<string, PluginService[]> {
    return this.#services.services;
  }

  getService<Service = PluginService>(serviceType: string): Service | null {
    return this.#services.get(serviceType) as Service | null;
  }

  hasService(serviceType: string): boolean {
    return this.#services.has(serviceType);
  }

  registerService(service: PluginServiceClass): Promise<void> {
    return this.startService(service, this);
  }

  /** Starts a service with the runtime it should see (a plugin's view of this runtime). */
  startService(service: PluginServiceClass, runtime: AgentRuntime): Promise<void> {
    return this.#services.start(service, runtime);
  }

  /** Stops the services plugins started, when the server stops. */
  stopServices(): Promise<void> {
    return this.#services.stopAll((type, error) =>
      this.logger.warn({ err: error, service: type }, 'plugin service failed to stop'),
    );
  }

  emitEvent(event: string | string[], params: Record<string, unknown>): Promise<void> {
    return this.#events.emit(event, params);
  }

  registerEvent(event: string, handler: PluginEventHandler): void {
    this.#events.register(event, handler);
  }

  get actions(): readonly Action[] {
    return this.abilities.actions.map((entry) => entry.action);
  }

  get providers(): readonly Provider[] {
    return this.abilities.providers.map((entry) => entry.item);
  }

  get evaluators(): readonly Evaluator[] {
    return this.abilities.evaluators.map((entry) => entry.item);
  }

  registerAction(action: Action): void {
    this.abilities.addAction(action, this, 'runtime');
  }

  registerProvider(provider: Provider): void {
    this.abilities.addProvider(provider, this, 'runtime');
  }

  registerEvaluator(evaluator: Evaluator): void {
    this.abilities.addEvaluator(evaluator, this, 'runtime');
  }

  /** Takes a plugin's actions, providers and evaluators, each to run with `runtime` (that plugin's view). */
  adopt(plugin: Plugin, runtime: AgentRuntime): void {
    for (const action of plugin.actions ?? [])
      this.abilities.addAction(action, runtime, plugin.name);
    for (const provider of plugin.providers ?? []) {
      this.abilities.addProvider(provider, runtime, plugin.name);
    }
    for (const evaluator of plugin.evaluators ?? []) {
      this.abilities.addEvaluator(evaluator, runtime, plugin.name);
    }
  }

  composeState(
    message: Memory,
    includeList?: string[] | null,
    onlyInclude?: boolean,
  ): Promise<State> {
    return composeState(this.abilities, message, {
      include: includeList,
      onlyInclude,
      timeoutMs: this.#context.providerTimeoutMs ?? DEFAULTS.agentLoop.providerTimeoutMs,
      logger: this.logger,
      values: { agentName: this.character.name },
    });
  }

  useModel(modelType: string, params: ModelParams): Promise<unknown> {
    // elizaOS's TEXT_EMBEDDING: a number[] for `{ text }` or a text; `null` gives a vector of the right length.
    if (String(modelType) === 'TEXT_EMBEDDING') return this.#memory.embed(params);
    return useModel(this.#context.model, this.character.name, modelType, params);
  }

  createMemory(memory: ElizaMemory, tableName: string, unique?: boolean): Promise<string> {
    return this.#memory.createMemory(memory, tableName, unique);
  }

  getMemories(params: GetMemoriesParams): Promise<ElizaMemory[]> {
    return this.#memory.getMemories(params);
  }

  getMemoryById(id: string): Promise<ElizaMemory | null> {
    return this.#memory.getMemoryById(id);
  }

  getMemoriesByIds(ids: string[], tableName?: string): Promise<ElizaMemory[]> {
    return this.#memory.getMemoriesByIds(ids, tableName);
  }

  searchMemories(params: SearchMemoriesParams): Promise<ElizaMemory[]> {
    return this.#memory.searchMemories(params);
  }

  updateMemory(memory: Partial<ElizaMemory> & { id: string }): Promise<boolean> {
    return this.#memory.updateMemory(memory);
  }

  deleteMemory(id: string): Promise<void> {
    return this.#memory.deleteMemory(id);
  }

  deleteAllMemories(roomId: string, tableName: string): Promise<void> {
    return this.#memory.deleteAllMemories(roomId, tableName);
  }

  countMemories(roomId: string, unique?: boolean, tableName?: string): Promise<number> {
    return this.#memory.countMemories(roomId, unique, tableName);
  }

  addEmbeddingToMemory(memory: ElizaMemory): Promise<ElizaMemory> {
    return this.#memory.addEmbeddingToMemory(memory);
  }

  queueEmbeddingGeneration(memory: ElizaMemory): Promise<void> {
    return this.#memory.queueEmbeddingGeneration(memory);
  }

  getCachedEmbeddings(
    query: CachedEmbeddingQuery,
  ): Promise<{ embedding: number[]; levenshtein_score: number }[]> {
    return this.#memory.getCachedEmbeddings(query);
  }

  async getComponent(
    entityId: string,
    type: string,
    worldId?: string,
    sourceEntityId?: string,
  ): Promise<Component | null> {
    return this.#components().get(this.agentId, entityId, type, worldId, sourceEntityId);
  }

  async getComponents(
    entityId: string,
    worldId?: string,
    sourceEntityId?: string,
  ): Promise<Component[]> {
    return this.#components().list(this.agentId, entityId, worldId, sourceEntityId);
  }

  async createComponent(component: Component): Promise<boolean> {
    return this.#components().create(this.agentId, component);
  }

  async updateComponent(component: Component): Promise<void> {
    return this.#components().update(this.agentId, component);
  }

  async deleteComponent(componentId: string): Promise<void> {
    return this.#components().delete(this.agentId, componentId);
  }

  #components(): AgentComponentStore {
    const store = this.#context.components;
    if (!store) {
      throw new ParleyError(
        'UNAVAILABLE',
        `Agent ${this.character.name} has no database for components (a runtime built without a server)`,
      );
    }
    return store;
  }

  /** What a structured logger shows of a runtime: never its settings. */
  toJSON(): { agentId: string; name: string } {
    return { agentId: this.agentId, name: this.character.name };
  }

  [inspect.custom](): string {
    return `ParleyAgentRuntime { agentId: '${this.agentId}', name: '${this.character.name}' }`;
  }

  sendMessage(options: AgentPostOptions): Promise<{ id: string }> {
    return this.#context.services.sendMessage(this.#profile, options);
  }

  scheduleMessage(options: AgentScheduleOptions): Promise<ScheduledMessageInfo> {
    return this.#context.services.scheduleMessage(this.#profile, options);
  }

  sendControl(options: ControlOptions): void {
    this.#context.services.sendControl(options);
  }
}
