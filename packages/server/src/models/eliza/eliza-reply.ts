/** The offline model's answer before it is put in the action-aware format. */
export interface ElizaReply {
  /** Why it answers this way, for the `<thought>` element. */
  thought: string;
  text: string;
}

/** A reply with nothing to key on: the only kind a post example may stand in for. */
export const NO_KEYWORD_THOUGHT = 'No keyword to work with. Encourage them to keep talking.';
