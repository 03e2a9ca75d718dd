/**
 * Members of elizaOS's `IAgentRuntime` that Parley does not offer: model registration, its entity database (components and memories excepted), rooms and worlds, tasks and the cache. A plugin that touches
 * one gets {@link UnofferedRuntimeMemberError} instead of `x is not a function`.
 */
export const UNOFFERED_RUNTIME_MEMBERS: ReadonlySet<string> = new Set([
  'registerModel',
  'getModel',
  'generateText',
  'processActions',
  'processAction',
  'evaluate',
  'getMemoriesByRoomIds',
  'getRoom',
  'getRooms',
  'createRoom',
  'ensureRoomExists',
  'ensureConnection',
  'ensureWorldExists',
  'getWorld',
  'createWorld',
  'getEntityById',
  'getEntitiesForRoom',
  'createEntity',
  'updateEntity',
  'getParticipantsForRoom',
  'addParticipant',
  'getRelationships',
  'createRelationship',
  'getCache',
  'setCache',
  'deleteCache',
  'createTask',
  'getTasks',
  'getTask',
  'updateTask',
  'deleteTask',
  'registerTaskWorker',
  'getTaskWorker',
  'getConversationLength',
  'getConnection',
  'registerDatabaseAdapter',
  'adapter',
  'databaseAdapter',
  'initialize',
  'stop',
  'sendMessageToTarget',
  'registerSendHandler',
]);

/** The runtime members Parley offers, for error messages. */
export const OFFERED_RUNTIME_MEMBERS =
  'agentId, character, getSetting, setSetting, logger, sendMessage, scheduleMessage, sendControl, getService, hasService, registerService, emitEvent, registerEvent, actions, providers, evaluators, registerAction, registerProvider, registerEvaluator, composeState, useModel, getComponent, getComponents, createComponent, updateComponent, deleteComponent, createMemory, getMemories, getMemoryById, getMemoriesByIds, searchMemories, updateMemory, deleteMemory, deleteAllMemories, countMemories, addEmbeddingToMemory, queueEmbeddingGeneration, getCachedEmbeddings';

/** A plugin used a runtime member Parley does not offer. The message names the member and the plugin. */
export class UnofferedRuntimeMemberError extends Error {
  override readonly name = 'UnofferedRuntimeMemberError';

  constructor(
    readonly pluginName: string,
    readonly member: string,
  ) {
    super(
      `plugin "${pluginName}" uses runtime.${member}, which Parley does not offer (Parley's runtime offers ${OFFERED_RUNTIME_MEMBERS}; see the plugin SDK README)`,
    );
  }
}
