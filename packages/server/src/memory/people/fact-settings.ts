/** What agents remember about the people they talk with (`DEFAULTS.facts`). */
export interface FactSettings {
  /** `rules`: read by rules (no model call); `model`: the agent's model extracts; `off`: nothing is extracted. */
  extraction: 'rules' | 'model' | 'off';
  maxConcurrent: number;
  maxQueued: number;
  maxPerReply: number;
  maxChars: number;
  maxPerEntity: number;
  recallCount: number;
}
