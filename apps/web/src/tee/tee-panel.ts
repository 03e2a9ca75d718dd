import type { ParleyClient } from '@parley/client';
import { describeError } from '../describe-error';
import { h, show } from '../dom';
import type { BindingCheck } from './check-binding';

/** The TEE badge's button and the panel it opens. */
export interface TeeElements {
  badge: HTMLButtonElement;
  panel: HTMLElement;
}

const describe = (check: BindingCheck, what: string) =>
  check.bound ? `${what} bound by the quote ✓` : `not bound: ${check.reason}`;

function shortKey(key: string): string {
  return key.length > 24 ? `${key.slice(0, 12)}…${key.slice(-8)}` : key;
}

/**
 * Loads `GET /api/tee/status` into the badge and, when the TEE is on, each agent's attested key into the
 * panel, with the binding checks the browser can do. Errors are shown in the panel.
 */
export async function loadTee(client: ParleyClient, elements: TeeElements): Promise<void> {
  const { badge, panel } = elements;
  badge.dataset.state = 'loading';
  badge.textContent = 'TEE: …';
  try {
    const status = await client.teeStatus();
    badge.dataset.state = status.tee_enabled ? status.status : 'off';
    badge.textContent = status.tee_enabled
      ? `TEE: ${status.status} (${status.vendor})`
      : 'TEE: off';
    const rows: Node[] = [
      h(
        'p',
        {},
        `Status: ${status.status}; vendor: ${status.vendor || 'none'}; enabled: ${status.tee_enabled ? 'yes' : 'no'}.`,
      ),
    ];
    if (status.tee_enabled) {
      const nonce = crypto.randomUUID();
      // The checks (and @parley/tee) load only when there is something to check.
      const [list, { checkAgentBinding, checkListBinding }] = await Promise.all([
        client.teeAgents(nonce),
        import('./check-binding'),
      ]);
      rows.push(
        h(
          'p',
          { 'data-check': 'list' },
          `Agent list: ${describe(checkListBinding(list, nonce), 'list and nonce')}`,
        ),
        h(
          'ul',
          { className: 'tee-agents' },
          ...list.agents.map((agent) =>
            h(
              'li',
              { 'data-agent-id': agent.agentId },
              h('strong', {}, agent.agentName),
              ' ',
              h('code', { title: agent.publicKey }, shortKey(agent.publicKey)),
              h(
                'span',
                { className: 'tee-check' },
                ` ${describe(checkAgentBinding(agent), 'key')}`,
              ),
            ),
          ),
        ),
        h(
          'p',
          { className: 'hint' },
          'The browser checks that each quote binds its record. The quote signature and certificate chain ' +
            "need Node's X.509 support: verify them with @parley/tee's verifyAgentsAttestation on a server or the command line.",
        ),
      );
    }
    panel.replaceChildren(...rows);
  } catch (error) {
    badge.dataset.state = 'error';
    badge.textContent = 'TEE: unavailable';
    panel.replaceChildren(
      h(
        'p',
        { className: 'error', role: 'alert' },
        `Could not load the TEE status: ${describeError(error)}`,
      ),
    );
  }
}

/** Wires the badge to open and close the panel. */
export function wireTeeBadge(elements: TeeElements): void {
  elements.badge.addEventListener('click', () => {
    const open = elements.badge.getAttribute('aria-expanded') !== 'true';
    elements.badge.setAttribute('aria-expanded', String(open));
    show(elements.panel, open);
  });
}
