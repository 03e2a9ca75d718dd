import type { AgentRuntime, PluginService, PluginServiceClass } from '@parley/plugin-sdk';

/** One agent's plugin services, by `serviceType`. */
export class AgentServiceRegistry {
  /**
   * The running services, by type, as elizaOS's `runtime.services` holds them (a list per type; the first is the
   * one `getService` answers). Plugins' own test suites register instances in it directly.
   */
  readonly services = new Map<string, PluginService[]>();

  get(serviceType: string): PluginService | null {
    return this.services.get(serviceType)?.[0] ?? null;
  }

  has(serviceType: string): boolean {
    return (this.services.get(serviceType)?.length ?? 0) > 0;
  }

  /**
   * Starts a service class with the runtime it should see and keeps the instance. A type that is already
   * running is not started twice.
   *
   * @throws TypeError for something that is not a service class; whatever `start` throws.
   */
  async start(service: PluginServiceClass, runtime: AgentRuntime): Promise<void> {
    const type = (service as { serviceType?: unknown }).serviceType;
    if (typeof type !== 'string' || typeof service.start !== 'function') {
      throw new TypeError('a service needs a static serviceType and a static start(runtime)');
    }
    if (this.has(type)) return;
    this.services.set(type, [await service.start(runtime)]);
  }

  /** Stops every service, in reverse start order; failures are reported, not thrown. */
  async stopAll(onError: (type: string, error: unknown) => void): Promise<void> {
    for (const [type, instances] of [...this.services].reverse()) {
      for (const service of instances) {
        try {
          await service.stop?.();
        } catch (error) {
          onError(type, error);
        }
      }
    }
    this.services.clear();
  }
}
