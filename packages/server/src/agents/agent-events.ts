import type { PluginEventHandler } from '@parley/plugin-sdk';

/** One agent's runtime events: handlers registered by plugins, run by `emitEvent`. */
export class AgentEvents {
  readonly #handlers = new Map<string, PluginEventHandler[]>();

  register(event: string, handler: PluginEventHandler): void {
    if (typeof handler !== 'function')
      throw new TypeError(`event ${event}: a handler must be a function`);
    this.#handlers.set(event, [...(this.#handlers.get(event) ?? []), handler]);
  }

  /** Runs the handlers of each event one after another; the first failure rejects. */
  async emit(event: string | string[], params: Record<string, unknown>): Promise<void> {
    for (const name of Array.isArray(event) ? event : [event]) {
      for (const handler of this.#handlers.get(name) ?? []) await handler(params);
    }
  }
}
