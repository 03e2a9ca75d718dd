import type { Plugin } from '@parley/plugin-sdk';

/** What the banner shows. */
export interface BannerInput {
  version: string;
  url: string;
  agents: readonly { id: string; name: string }[];
  plugins: readonly Plugin[];
  authToken: boolean;
  /** Where rooms meet: this process only, or PostgreSQL or Redis shared by every process. */
  rooms: 'in-process' | 'postgres' | 'redis';
}

/** The room adapter in words, for the banner and the JSON start-up line. */
export function roomsOf(options: {
  cluster?: { kind: 'postgres' | 'redis' };
  database?: { kind: 'pglite' | 'postgres' };
}): BannerInput['rooms'] {
  return (
    options.cluster?.kind ?? (options.database?.kind === 'postgres' ? 'postgres' : 'in-process')
  );
}

/** One plugin's routes, `POST /webhook`, `STATIC /files`… */
export function routesOf(plugin: Plugin): string[] {
  return (plugin.routes ?? []).map((route) => `${route.type} ${route.path}`);
}

/** The start-up banner: where to go, which agents answer, which plugins and routes are loaded. */
export function startupBanner(input: BannerInput): string {
  const { url } = input;
  const lines = [
    `Parley ${input.version} is listening on ${url}`,
    `  chat page   ${url}/`,
    `  API docs    ${url}/api/docs`,
    `  health      ${url}/api/server/health   ready ${url}/api/server/ready`,
    `  metrics     ${url}/metrics${input.authToken ? '   (x-api-key required)' : ''}`,
    `  rooms       ${
      input.rooms === 'in-process'
        ? 'in-process (this process only)'
        : `${input.rooms === 'redis' ? 'Redis' : 'PostgreSQL'} (shared by every process)`
    }`,
  ];
  for (const agent of input.agents) lines.push(`  agent ${agent.name} (${agent.id})`);
  if (input.plugins.length === 0) lines.push('  plugins     none');
  for (const plugin of input.plugins) {
    const routes = routesOf(plugin);
    lines.push(`  plugin ${plugin.name}${routes.length ? `: ${routes.join(', ')}` : ''}`);
  }
  return lines.join('\n');
}
