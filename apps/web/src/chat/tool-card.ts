import { h } from '../dom';
import { ApprovalPanel, type ApprovalView, type DecideApproval } from './approval-panel';

/** A tool call as a card shows it: from a `toolCall`/`tool_call` event, or a stored record with its outcome. */
export interface ToolCallView {
  toolCallId: string;
  toolName: string;
  /** The call's arguments; `undefined` when the call itself was not seen (the page opened mid-reply). */
  input?: unknown;
  output?: unknown;
  error?: string;
}

/** A tool call's outcome, from a `toolResult`/`tool_result` event. */
export type ToolResultView = Pick<ToolCallView, 'toolCallId' | 'toolName' | 'output' | 'error'>;

/** What a card shows as its state, and the `data-state` it carries for styles and tests. */
type CardState = 'running' | 'awaiting' | 'done' | 'error' | 'unknown';

const STATE_TEXT: Record<CardState, string> = {
  running: 'running…',
  awaiting: 'waits for approval',
  done: 'done',
  error: 'failed',
  unknown: 'no result',
};

/** Pretty JSON shorter than this (and these lines) starts expanded; longer stays one click away. */
const OPEN_CHARS = 400;
const OPEN_LINES = 8;

/**
 * JSON as people read it, indented. Never throws: `undefined` is "(none)", and a value JSON cannot write (which
 * the server never sends) says so.
 */
export function prettyJson(value: unknown): string {
  if (value === undefined) return '(none)';
  try {
    return JSON.stringify(value, null, 2) ?? `(${typeof value})`;
  } catch {
    return '(cannot be shown as JSON)';
  }
}

/** What a card shows of an output: a string as it is, an object's `text` when it has one, else pretty JSON. */
export function outputText(output: unknown): { text: string; json: boolean } {
  if (typeof output === 'string') return { text: output, json: false };
  if (output !== null && typeof output === 'object' && !Array.isArray(output)) {
    const text = (output as { text?: unknown }).text;
    if (typeof text === 'string' && text !== '') return { text, json: false };
  }
  return { text: prettyJson(output), json: true };
}

/** A labelled block of text: a `details` (expanded when short) for JSON, or a plain block for prose. */
function block(className: string, label: string, text: string, json: boolean): HTMLElement {
  const pre = h('pre', { className: json ? 'tool-json' : 'tool-text' }, text);
  if (!json) return h('div', { className }, h('span', { className: 'tool-label' }, label), pre);
  const short = text.length <= OPEN_CHARS && text.split('\n').length <= OPEN_LINES;
  return h('details', { className, open: short }, h('summary', {}, label), pre);
}

/**
 * One tool call as a card: a heading "Tool NAME" with its state, its input, then its output or error once known.
 * Everything from the model is put in as text (never parsed as HTML). Settling is idempotent, so the same result
 * arriving by the socket and by server-sent events changes nothing the second time.
 */
export class ToolCard {
  readonly element: HTMLElement;
  readonly #state: HTMLSpanElement;
  readonly #inputSlot: HTMLDivElement;
  readonly #resultSlot: HTMLDivElement;
  #hasInput = false;
  #settled = false;
  #approval: ApprovalPanel | undefined;

  constructor(call: ToolCallView) {
    const headingId = `tool-${Math.random().toString(36).slice(2, 10)}`;
    this.#state = h('span', { className: 'tool-state' });
    this.#inputSlot = h('div', { className: 'tool-input-slot' });
    this.#resultSlot = h('div', { className: 'tool-result-slot' });
    this.element = h(
      'section',
      {
        className: 'tool-card',
        'data-tool-call-id': call.toolCallId,
        'data-tool-name': call.toolName,
        'aria-labelledby': headingId,
      },
      h(
        'div',
        { className: 'tool-head' },
        h('h3', { className: 'tool-name', id: headingId }, `Tool ${call.toolName}`),
        ' ',
        this.#state,
      ),
      this.#inputSlot,
      this.#resultSlot,
    );
    this.#setState('running');
    if (call.input !== undefined) this.setInput(call.input);
    if (call.output !== undefined || call.error !== undefined) this.settle(call);
  }

  /** Whether the card shows an outcome. */
  get settled(): boolean {
    return this.#settled;
  }

  /** Shows the call's arguments (once; a repeat of the same call is ignored). */
  setInput(input: unknown): void {
    if (this.#hasInput) return;
    this.#hasInput = true;
    this.#inputSlot.replaceChildren(block('tool-input', 'Input', prettyJson(input), true));
  }

  /**
   * The call waits for a person: Approve / Deny on the card (once; a call that has its outcome asks nothing).
   * The panel's controls close when the outcome arrives, however the call was decided.
   */
  requestApproval(request: ApprovalView, decide: DecideApproval): void {
    if (this.#settled || this.#approval) return;
    if (request.input !== undefined) this.setInput(request.input);
    this.#approval = new ApprovalPanel(request, decide, () => {
      if (!this.#settled) this.#setState('running');
    });
    this.#resultSlot.before(this.#approval.element);
    this.#setState('awaiting');
  }

  /** Shows the outcome: the error when there is one, else the output. */
  settle(result: Pick<ToolCallView, 'output' | 'error'>): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#approval?.close();
    if (result.error !== undefined) {
      this.#setState('error');
      this.#resultSlot.replaceChildren(
        h(
          'div',
          { className: 'tool-error' },
          h('span', { className: 'tool-label' }, 'Error'),
          h('pre', { className: 'tool-text' }, String(result.error)),
        ),
      );
      return;
    }
    this.#setState('done');
    const { text, json } = outputText(result.output);
    this.#resultSlot.replaceChildren(block('tool-output', 'Result', text, json));
  }

  /** Ends a card that never got its outcome (the reply ended, failed or was stopped first). */
  abandon(): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#approval?.close();
    this.#setState('unknown');
  }

  #setState(state: CardState) {
    this.element.dataset.state = state;
    this.element.setAttribute('aria-busy', String(state === 'running'));
    this.#state.textContent = STATE_TEXT[state];
  }
}

/** The tool cards of one reply, in call order, keyed by the model's tool call id. */
export class ToolCards {
  readonly element: HTMLDivElement = h('div', { className: 'tool-calls' });
  readonly #cards = new Map<string, ToolCard>();

  /** A call started (or was recorded): its card, created on first sight. */
  call(call: ToolCallView): ToolCard {
    let card = this.#cards.get(call.toolCallId);
    if (!card) {
      card = new ToolCard(call);
      this.#cards.set(call.toolCallId, card);
      this.element.append(card.element);
    } else {
      if (call.input !== undefined) card.setInput(call.input);
      if (call.output !== undefined || call.error !== undefined) card.settle(call);
    }
    return card;
  }

  /** A call waits for a person's decision: Approve / Deny on its card (made if the call was not seen). */
  approval(request: ApprovalView, decide: DecideApproval): void {
    this.call(request).requestApproval(request, decide);
  }

  /** A call ended; a result for a call not seen gets a card of its own. */
  result(result: ToolResultView): void {
    (this.#cards.get(result.toolCallId) ?? this.call(result)).settle(result);
  }

  /** Ends every card still running (the reply is over). */
  abandonRunning(): void {
    for (const card of this.#cards.values()) card.abandon();
  }

  get size(): number {
    return this.#cards.size;
  }
}
