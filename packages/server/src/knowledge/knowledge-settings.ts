/** Knowledge's limits and recall budget (`KNOWLEDGE_*` settings; defaults in `DEFAULTS.knowledge`). */
export interface KnowledgeSettings {
  maxDocumentBytes: number;
  maxDocumentsPerAgent: number;
  maxFilesPerRequest: number;
  maxFragmentsPerDocument: number;
  fragmentTokens: number;
  fragmentOverlapTokens: number;
  recallCount: number;
  recallTokens: number;
  minSimilarity: number;
  /** `KNOWLEDGE_PATH`: the one folder a character's `{path}` and `{directory}` knowledge is read from. */
  root: string;
}
