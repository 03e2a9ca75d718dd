import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { defineAction, type Plugin } from '@parley/plugin-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopServer, type LoopFixture } from '../../../test/agent-loop-fixture';
import {
  FAST_MCP,
  askTool,
  mcpReadiness,
  memoryLogger,
  offeredTools,
  waitFor,
} from '../../../test/mcp-fixtures/mcp-test-kit';
import { startTestServer } from '../../../test/test-server';

const RAW_SERVER = fileURLToPath(
  new URL('../../../test/mcp-fixtures/raw-tools-server.mjs', import.meta.url),
);

/** Exponential for a backtracking engine: 2^40 ways to split the a's before the `!` fails them all. */
const EVIL = '^(a+)+$';
const ATTACK = `${'a'.repeat(40)}!`;

const objectOf = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: 'object',
  properties,
  ...extra,
});

/** The tools a hostile MCP server lists: every keyword that compiles a pattern, and two RE2 cannot run. */
const HOSTILE_TOOLS = {
  tools: [
    {
      name: 'by_pattern',
      description: 'pattern',
      inputSchema: objectOf({ word: { type: 'string', pattern: EVIL } }, { required: ['word'] }),
    },
    {
      name: 'by_pattern_properties',
      description: 'patternProperties',
      inputSchema: objectOf({}, { patternProperties: { [EVIL]: { type: 'string' } } }),
    },
    {
      name: 'by_property_names',
      description: 'propertyNames',
      inputSchema: objectOf({}, { propertyNames: { pattern: EVIL } }),
    },
    {
      name: 'by_output',
      description: 'outputSchema',
      inputSchema: objectOf({}),
      outputSchema: objectOf({ word: { type: 'string', pattern: EVIL } }),
    },
    {
      name: 'backreference',
      description: 'RE2 has no backreferences',
      inputSchema: objectOf({ word: { type: 'string', pattern: '^(a+)\\1$' } }),
    },
    {
      name: 'lookahead_output',
      description: 'RE2 has no lookaround',
      inputSchema: objectOf({}),
      outputSchema: objectOf({ word: { type: 'string', pattern: '^(?=a)(a+)+$' } }),
    },
    {
      name: 'plain',
      description: 'a pattern that is fine',
      inputSchema: objectOf({ word: { type: 'string', pattern: '^[a-z]+$' } }),
    },
  ],
  results: {
    by_output: {
      content: [{ type: 'text', text: 'structured' }],
      structuredContent: { word: ATTACK },
    },
  },
};

/** The longest the event loop stood still while `work` ran, in ms (a backtracking check stalls it for ages). */
async function stallDuring<T>(work: () => Promise<T>): Promise<{ result: T; stallMs: number }> {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  try {
    const result = await work();
    return { result, stallMs: histogram.max / 1e6 };
  } finally {
    histogram.disable();
  }
}

/**
 * Patterns in schemas that come from outside (an MCP server's tools, a plugin's JSON Schema parameters) never
 * reach a backtracking engine: the model's `"aaaa…!"` against `^(a+)+$` is refused in linear time, a probe is
 * answered while the reply runs, and a pattern RE2 cannot run keeps its tool from being offered.
 */
describe('schema patterns from MCP servers and plugins', () => {
  let loop: LoopFixture;
  let dir: string;
  const log = memoryLogger();
  let pluginCalls = 0;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'parley-patterns-'));
    const spec = join(dir, 'tools.json');
    await writeFile(spec, JSON.stringify(HOSTILE_TOOLS));
    loop = await startLoopServer(
      () => [
        defineAction({
          name: 'PLUGIN_PATTERN',
          description: 'a plugin action whose JSON Schema has the pattern',
          parameters: objectOf({ word: { type: 'string', pattern: EVIL } }, { required: ['word'] }),
          handler: () => {
            pluginCalls += 1;
            return { success: true, text: 'ran' };
          },
        }),
      ],
      {
        logger: log.logger,
        characters: [
          {
            name: 'Ada',
            settings: {
              mcp: {
                servers: {
                  hostile: { type: 'stdio', command: process.execPath, args: [RAW_SERVER, spec] },
                },
              },
            },
          },
        ],
        mcp: FAST_MCP,
      },
    );
    await waitFor(
      async () => (await mcpReadiness(loop.test.url)).mcp?.ok === true,
      'the hostile MCP server to connect',
    );
  });
  afterAll(async () => {
    await loop.test[Symbol.asyncDispose]();
    await rm(dir, { recursive: true, force: true });
  });

  it.each([
    ['by_pattern', { word: ATTACK }, /must match pattern/],
    ['by_pattern_properties', { [ATTACK]: 'x', aaa: { n: 1 } }, /must be string/],
    ['by_property_names', { [ATTACK]: 'x' }, /property name must be valid/],
    ['PLUGIN_PATTERN', { word: ATTACK }, /must match pattern/],
  ])(
    '%s: the attack is a tool error the model sees, the loop never stalls, a probe is answered',
    async (tool, input, error) => {
      const { result, stallMs } = await stallDuring(async () => {
        const reply = askTool(loop, tool, input);
        // Sent while the reply runs: served, not queued behind a frozen loop.
        const probe = fetch(`${loop.test.url}/api/server/health`).then(
          (response) => response.status,
        );
        return Promise.all([reply, probe]);
      });
      const [body, probeStatus] = result;
      expect(probeStatus).toBe(200);
      expect(body.agentResponse.toolCalls).toHaveLength(1);
      expect(body.agentResponse.toolCalls![0]!.error).toMatch(error);
      // The model was given the error and answered from it.
      expect(body.agentResponse.text).toMatch(/^Done: .*must/);
      // A backtracking engine stalls for minutes on 40 a's; the linear one for microseconds.
      expect(stallMs).toBeLessThan(2_000);
    },
  );

  it('a well-formed value still passes the same schemas', async () => {
    const matching = await askTool(loop, 'by_pattern', { word: 'aaaa' });
    expect(matching.agentResponse.toolCalls![0]).toMatchObject({
      output: { text: 'by_pattern called with {"word":"aaaa"}' },
    });
    const plugin = await askTool(loop, 'PLUGIN_PATTERN', { word: 'aaaa' });
    expect(plugin.agentResponse.toolCalls![0]!.error).toBeUndefined();
    expect(pluginCalls).toBe(1);
    const plain = await askTool(loop, 'plain', { word: 'Nope' });
    expect(plain.agentResponse.toolCalls![0]!.error).toMatch(/must match pattern/);
  });

  it("a tool's structured result is checked against its outputSchema in linear time", async () => {
    const { result, stallMs } = await stallDuring(() => askTool(loop, 'by_output', {}));
    expect(result.agentResponse.toolCalls![0]!.error).toMatch(/output schema/);
    expect(stallMs).toBeLessThan(2_000);
  });

  it('tools whose patterns RE2 cannot run are not offered, and the log says why', async () => {
    await askTool(loop, 'plain', { word: 'fine' });
    const tools = offeredTools(loop);
    expect(tools).toEqual(
      expect.arrayContaining(['by_pattern', 'by_property_names', 'by_output', 'plain']),
    );
    expect(tools).not.toContain('backreference');
    expect(tools).not.toContain('lookahead_output');
    const refused = log
      .lines()
      .filter((line) => line.msg.includes('an MCP tool cannot be offered')) as unknown as {
      tool: string;
      reason: string;
    }[];
    expect(refused.map((line) => line.tool).sort()).toEqual(['backreference', 'lookahead_output']);
    for (const line of refused) expect(line.reason).toMatch(/cannot be checked in linear time/);
    // Called anyway (a model may name anything): the tool is unknown, the reply completes.
    const body = await askTool(loop, 'backreference', { word: 'aa' });
    expect(body.agentResponse.toolCalls![0]!.error).toMatch(/not|unknown/i);
  });

  it('a plugin action whose pattern RE2 cannot run stops start-up with the reason', async () => {
    const plugin: Plugin = {
      name: 'lookbehind',
      actions: [
        defineAction({
          name: 'BACKREF',
          description: 'x',
          parameters: objectOf({ word: { type: 'string', pattern: '(a)\\1' } }),
          handler: () => ({ success: true }),
        }),
      ],
    };
    await expect(startTestServer({ plugins: [plugin] })).rejects.toThrow(
      /action BACKREF are not a valid schema: the pattern "\(a\)\\\\1" cannot be checked in linear time/,
    );
  });
});
