import { MAX_APPROVAL_REASON_LENGTH } from '@parley/core';
import { ParleyClientError } from '@parley/client';
import { describeError } from '../describe-error';
import { h } from '../dom';

/** A call waiting for a person (an `approval_request` event, the socket's `approvalRequest`, a `sync` answer). */
export interface ApprovalView {
  replyId: string;
  toolCallId: string;
  toolName: string;
  input?: unknown;
  /** When the request expires (ISO 8601). */
  expiresAt?: string;
}

/** Sends one decision over the page's transport; rejects with the server's refusal. */
export type DecideApproval = (
  request: ApprovalView,
  approved: boolean,
  reason: string | undefined,
) => Promise<unknown>;

/** Refusals after which deciding again cannot help: already decided or expired (409), unknown (404). */
const FINAL_CODES = new Set(['CONFLICT', 'NOT_FOUND']);

/** " Expires at 14:05.", or nothing when the time is not one. */
function expiry(expiresAt: string | undefined): string {
  const date = new Date(expiresAt ?? '');
  if (Number.isNaN(date.getTime())) return '';
  return ` Expires at ${date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })}.`;
}

let panels = 0;

/**
 * Approve / Deny for one waiting call, on its tool card: native buttons and an optional reason (Enter in it
 * denies). Its text goes into the conversation's live log, so screen readers hear the question and the outcome;
 * a refusal is an alert. The controls are disabled once a decision is taken here, or when the call's outcome
 * arrives (decided in another tab, or expired): {@link ApprovalPanel.close}.
 */
export class ApprovalPanel {
  readonly element: HTMLElement;
  readonly #controls: (HTMLButtonElement | HTMLInputElement)[];
  readonly #reason: HTMLInputElement;
  readonly #status: HTMLParagraphElement;
  readonly #error: HTMLParagraphElement;
  #closed = false;
  #pending = false;

  /** `onDecided` hears of a decision this panel took (the card shows the call running again). */
  constructor(
    private readonly request: ApprovalView,
    private readonly decide: DecideApproval,
    private readonly onDecided: (approved: boolean) => void,
  ) {
    const id = `approval-${(panels += 1)}`;
    this.#reason = h('input', {
      id: `${id}-reason`,
      className: 'approval-reason',
      maxLength: MAX_APPROVAL_REASON_LENGTH,
      autocomplete: 'off',
      onkeydown: (event: Event) => {
        const key = event as KeyboardEvent;
        if (key.key !== 'Enter' || key.isComposing) return;
        event.preventDefault();
        void this.#decide(false);
      },
    });
    const approve = h(
      'button',
      { type: 'button', className: 'approve', onclick: () => void this.#decide(true) },
      'Approve',
    );
    const deny = h(
      'button',
      { type: 'button', className: 'deny', onclick: () => void this.#decide(false) },
      'Deny',
    );
    this.#controls = [approve, deny, this.#reason];
    this.#status = h('p', { className: 'approval-status', tabIndex: -1 });
    this.#error = h('p', { className: 'approval-error error', role: 'alert' });
    this.element = h(
      'div',
      { className: 'tool-approval', role: 'group', 'aria-labelledby': `${id}-question` },
      h(
        'p',
        { className: 'approval-question', id: `${id}-question` },
        `Approval needed: may the agent run ${request.toolName}?${expiry(request.expiresAt)}`,
      ),
      h(
        'div',
        { className: 'approval-controls' },
        h('label', { for: `${id}-reason` }, 'Reason for a denial (optional)'),
        this.#reason,
        h('div', { className: 'approval-buttons' }, approve, deny),
      ),
      this.#status,
      this.#error,
    );
  }

  /** Whether the controls are off for good. */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Disables the controls for good. `outcome` replaces the status line; without one (the call's outcome came
   * from elsewhere) the panel says it no longer waits, unless a decision of its own is on its way.
   */
  close(outcome?: string): void {
    this.#closed = true;
    for (const control of this.#controls) control.disabled = true;
    if (outcome !== undefined) this.#status.textContent = outcome;
    else if (!this.#pending && !this.#status.textContent) {
      this.#status.textContent = 'No longer waiting for a decision.';
    }
  }

  async #decide(approved: boolean) {
    if (this.#closed || this.#pending) return;
    const focused = this.element.contains(document.activeElement)
      ? (document.activeElement as HTMLElement)
      : undefined;
    const reason = this.#reason.value.trim() || undefined;
    this.#pending = true;
    for (const control of this.#controls) control.disabled = true;
    this.#error.textContent = '';
    this.#status.textContent = approved ? 'Approving…' : 'Denying…';
    try {
      await this.decide(this.request, approved, approved ? undefined : reason);
      this.#pending = false;
      this.close(approved ? 'Approved: the call runs.' : `Denied${reason ? `: ${reason}` : ''}.`);
      this.onDecided(approved);
    } catch (error) {
      this.#pending = false;
      this.#status.textContent = '';
      this.#error.textContent = `Not decided: ${describeError(error)}`;
      if (ParleyClientError.isInstance(error) && FINAL_CODES.has(error.code)) this.close();
      else if (!this.#closed) for (const control of this.#controls) control.disabled = false;
    }
    // The button that had focus may be disabled now: keep keyboard users where they were.
    if (focused) (this.#closed ? this.#status : focused).focus();
  }
}
