/** What agents remember about the people they talk with (`DEFAULTS.facts`). */
export interface FactSettings {
  /** `auto`: the model extracts (the offline model: rules); `model`; `rules`; `off`: nothing is extracted. */
  extraction: 'auto' | 'model' | 'rules' | 'off';
  maxConcurrent: number;
  maxQueued: number;
  maxPerReply: number;
  maxChars: number;
  maxPerEntity: number;
  recallCount: number;
}
