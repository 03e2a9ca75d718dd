/** A fact an agent remembers about a person. */
export interface PersonFact {
  id: string;
  text: string;
  /** The channel it was learned in. */
  roomId?: string;
  createdAt: number;
}

/**
 * What remembering people needs of the memory store (`facts` memories, per agent and entity): the port the
 * facts service and its recaller use, answered by the one memory store (memory-fact-store.ts).
 */
export interface FactStore {
  /** The entity's facts for the agent, newest first, at most `limit`. */
  list(agentId: string, entityId: string, limit: number): Promise<PersonFact[]>;
  /** Stores new facts about the entity, learned in `roomId`. */
  add(agentId: string, entityId: string, roomId: string, texts: readonly string[]): Promise<void>;
  /** Removes facts by id (of this agent only). */
  remove(agentId: string, ids: readonly string[]): Promise<void>;
}
