import type { AgentRuntime, RouteRequest } from '@parley/plugin-sdk';
import { recordResponse } from '@parley/plugin-sdk/testing';
import { describe, expect, it } from 'vitest';
import plugin, { helloRoute } from './index.js';

const runtime = {
  agentId: '955e388d-c317-59d3-82ac-e14d75bd8f41',
  character: { name: 'Ada' },
  getSetting: () => undefined,
} as unknown as AgentRuntime;

describe('PLUGIN_NAME', () => {
  it('declares its route', () => {
    expect(plugin.routes?.map((route) => `${route.type} ${route.path}`)).toEqual([
      'GET /PLUGIN_NAME/hello',
    ]);
  });

  it('says hello as the agent', async () => {
    const { response, written } = recordResponse();
    await helloRoute.handler!(
      { headers: {}, query: {} } as unknown as RouteRequest,
      response,
      runtime,
    );
    expect(written).toMatchObject({ body: { success: true, message: 'Hello from Ada' } });
  });
});
