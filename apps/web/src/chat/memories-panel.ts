import { credentialHeaders } from '../auth/credential';
import { describeError } from '../describe-error';
import { h } from '../dom';

/** Who the panel is about: the agent that answers in the open channel and this page's person. */
export interface MemoriesSubject {
  agentId: string | undefined;
  agentName: string;
  entityId: string;
}

interface Memory {
  id: string;
  content: { text?: unknown };
}

/**
 * "What the agent remembers about you": the facts the agent keeps about this page's person
 * (`GET /api/agents/{id}/memories`), each with Forget, and Forget everything. Read when opened; where people sign
 * in, the server shows a person only their own.
 */
export class MemoriesPanel {
  readonly #root: HTMLDetailsElement;
  readonly #title = h('summary', {}, 'What the agent remembers about you');
  readonly #list = h('ul', { className: 'memory-list' });
  readonly #status = h('p', { className: 'memory-status', role: 'status' });
  readonly #forgetAll = h('button', { type: 'button', hidden: true }, 'Forget everything');
  readonly #subject: () => MemoriesSubject;

  constructor(root: HTMLDetailsElement, subject: () => MemoriesSubject) {
    this.#root = root;
    this.#subject = subject;
    root.append(this.#title, this.#list, this.#forgetAll, this.#status);
    root.addEventListener('toggle', () => {
      if (root.open) void this.load();
    });
    this.#forgetAll.addEventListener('click', () => void this.#forget());
  }

  /** Names the agent (the panel follows the open channel's agent) and reloads an open panel. */
  refresh(): void {
    this.#title.textContent = `What ${this.#subject().agentName} remembers about you`;
    if (this.#root.open) void this.load();
  }

  /** Reads the memories and shows them. */
  async load(): Promise<void> {
    const { agentId, entityId } = this.#subject();
    if (!agentId) return;
    try {
      const response = await fetch(
        this.#path(agentId, `?entityId=${encodeURIComponent(entityId)}`),
        {
          headers: credentialHeaders(),
        },
      );
      const body = (await response.json().catch(() => ({}))) as {
        data?: { memories?: Memory[] };
        error?: { message?: string };
      };
      if (!response.ok) throw new Error(body.error?.message ?? `HTTP ${response.status}`);
      this.#show(body.data?.memories ?? []);
    } catch (error) {
      this.#status.textContent = `Could not read the memories: ${describeError(error)}`;
    }
  }

  #show(memories: readonly Memory[]) {
    this.#list.replaceChildren(
      ...memories.map((memory) => {
        const forget = h('button', { type: 'button', className: 'forget' }, 'Forget');
        const text = typeof memory.content.text === 'string' ? memory.content.text : '';
        forget.setAttribute('aria-label', `Forget: ${text}`);
        forget.addEventListener('click', () => void this.#forget(memory.id));
        return h('li', {}, h('span', {}, text), ' ', forget);
      }),
    );
    this.#forgetAll.hidden = memories.length === 0;
    this.#status.textContent = memories.length === 0 ? 'Nothing yet.' : '';
  }

  /** Deletes one memory, or (no id) everything the agent remembers about the person; then reloads. */
  async #forget(memoryId?: string) {
    const { agentId, entityId } = this.#subject();
    if (!agentId) return;
    const path =
      memoryId === undefined
        ? this.#path(agentId, `?entityId=${encodeURIComponent(entityId)}`)
        : this.#path(agentId, `/${encodeURIComponent(memoryId)}`);
    try {
      const response = await fetch(path, { method: 'DELETE', headers: credentialHeaders() });
      if (!response.ok) {
        const body = (await response.json().catch(() => ({}))) as { error?: { message?: string } };
        throw new Error(body.error?.message ?? `HTTP ${response.status}`);
      }
    } catch (error) {
      this.#status.textContent = `Not forgotten: ${describeError(error)}`;
      return;
    }
    await this.load();
  }

  #path(agentId: string, rest: string): string {
    return `${location.origin}/api/agents/${encodeURIComponent(agentId)}/memories${rest}`;
  }
}
