/**
 * Knowledge: documents an agent answers from (a character's `knowledge`, files uploaded over HTTP), split into
 * fragments, embedded once, recalled for each message. See docs/memory.md, "Knowledge".
 *
 * @module
 */
import type { Character } from '@parley/plugin-sdk';
import type { Logger } from 'pino';
import type { MemoryService } from '../memory/memory-service';
import type { Recaller } from '../memory/recall';
import { knowledgeKey, loadCharacterKnowledge } from './character-knowledge';
import { KnowledgeService } from './knowledge-service';
import type { KnowledgeSettings } from './knowledge-settings';

export { KnowledgeService, DOCUMENTS_TABLE, FRAGMENTS_TABLE } from './knowledge-service';
export type { KnowledgeDocument, NewDocument } from './knowledge-service';
export type { KnowledgeSettings } from './knowledge-settings';
export { knowledgeRoutes, knowledgeJsonBodySchema } from './knowledge-routes';

/** Knowledge of the server's agents: the service, the recaller, and the loading of characters' knowledge. */
export interface Knowledge {
  readonly service: KnowledgeService;
  /** Registered on the memory service: recalls fragments for each message (and loads the character's once). */
  readonly recaller: Recaller;
  /**
   * Stores a character's `knowledge` for its agent unless this process did for the same knowledge already;
   * resolves when done (a failure is logged, and tried again at the agent's next message).
   */
  loadCharacter(agentId: string, character: Character): Promise<void>;
}

/** Creates the knowledge of the server's agents on the memory service. */
export function createKnowledge(options: {
  memory: Pick<MemoryService, 'store' | 'embeddings'>;
  settings: KnowledgeSettings;
  logger: Logger;
}): Knowledge {
  const { logger } = options;
  const service = new KnowledgeService({
    store: options.memory.store,
    embeddings: options.memory.embeddings,
    settings: options.settings,
    logger,
  });
  const loads = new Map<string, Promise<void>>();
  const loadCharacter = (agentId: string, character: Character): Promise<void> => {
    const knowledge = (character as { knowledge?: unknown[] }).knowledge;
    if (!Array.isArray(knowledge) || knowledge.length === 0) return Promise.resolve();
    const key = knowledgeKey(agentId, knowledge);
    let load = loads.get(key);
    if (!load) {
      load = loadCharacterKnowledge(service, agentId, character, logger).then(
        () => undefined,
        (error: unknown) => {
          loads.delete(key);
          logger.warn(
            { agentId, err: error },
            'knowledge: the character knowledge could not be loaded',
          );
        },
      );
      if (loads.size > 10_000) loads.clear();
      loads.set(key, load);
    }
    return load;
  };
  const recaller: Recaller = async (input) => {
    // An agent created at run time: its character's knowledge is loaded in the background from its first message.
    void loadCharacter(input.agentId, input.character);
    return service.recaller(input);
  };
  return { service, recaller, loadCharacter };
}
