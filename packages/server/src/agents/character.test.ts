import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../errors/config-error';
import { buildPrompt, buildSystemPrompt } from '../reply/loop/build-prompt';
import { createMemoryLogger } from '../plugins/create-plugin-test-app';
import { toAgentProfile } from './agent-profile';
import { ParleyAgentRuntime, type AgentServices } from './agent-runtime';
import { ACCEPTED_UNUSED_KEYS, loadCharacterFile } from './character';

const FIXTURES = fileURLToPath(new URL('./fixtures/elizaos/', import.meta.url));
const fixture = (name: string) => join(FIXTURES, name);

const services: AgentServices = {
  sendMessage: () => Promise.resolve({ id: 'posted' }),
  scheduleMessage: () => Promise.reject(new Error('unused')),
  sendControl: () => undefined,
};

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'parley-character-'));
});
afterAll(() => rm(work, { recursive: true, force: true }));

async function writeCharacter(name: string, value: unknown): Promise<string> {
  const path = join(work, name);
  await writeFile(path, JSON.stringify(value));
  return path;
}

describe('elizaOS character files', () => {
  it('reads an elizaOS 0.x file (speakers as `user`) into a prompt with its system, bio, lore, style and examples', async () => {
    const alfred = await loadCharacterFile(fixture('alfred.character.json'));
    expect(alfred.name).toBe('Alfred');
    const prompt = buildSystemPrompt(alfred);
    expect(prompt).toMatch(/^You are Alfred Pennyworth, world's best butler/);
    expect(prompt).toContain('About Alfred:\n- Loyal butler and confidant to Bruce Wayne/Batman');
    expect(prompt).toContain('- Helped raise Bruce after his parents were murdered'); // lore
    expect(prompt).toContain('- Formal and proper British English'); // style.all
    expect(prompt).toContain('- Subtly expresses concern for safety and wellbeing'); // style.chat
    expect(prompt).not.toContain('Never uses emojis'); // style.post is for posts, not chat
    expect(prompt).toContain(
      'User: Alfred, I need the Batmobile ready in 5 minutes.\nAlfred: Of course, sir.',
    );
    expect(prompt).not.toContain('{{');
    // The answer format stays last, so the reply can still be streamed.
    expect(prompt.trimEnd()).toMatch(/<\/response>$/);
  });

  it('reads an elizaOS 1.x file (`{ examples }` with `name`, `{{name}}` placeholders)', async () => {
    const eliza = await loadCharacterFile(fixture('eliza-default.character.json'));
    const prompt = buildSystemPrompt(eliza);
    expect(prompt).toContain('- Eliza is warm, precise, and easy to talk to.');
    expect(prompt).toContain('User: i had a bad day\nEliza: sorry to hear that.');
    expect(prompt).toContain('- answer the question directly before adding anything else');
    expect(prompt).not.toContain('{{');
  });

  it('reads the `name` form with `{{name1}}` users and moves settings.secrets into secrets', async () => {
    const sage = await loadCharacterFile(fixture('sage.character.json'));
    const prompt = buildSystemPrompt(sage);
    expect(prompt).toContain('Respond to all messages as Sage, a calm gardening mentor.');
    expect(prompt).toContain('- Once grew a pumpkin that won the county fair.');
    expect(prompt).toContain('User: My basil keeps wilting.\nSage: Water it at the base');
    expect(sage.secrets).toEqual({ SAGE_API_TOKEN: 'sage-secret-value-123' });
    // Settings keep the file's values (elizaOS plugins read some as objects); getSetting returns text.
    expect(sage.settings).toEqual({
      avatar: 'https://example.invalid/sage.png',
      model: 'gpt-4o-mini',
      maxInputTokens: 4096,
    });
    const runtime = new ParleyAgentRuntime(toAgentProfile(sage), {
      env: {},
      serverUrl: () => 'http://localhost:1',
      logger: createMemoryLogger().logger,
      services,
    });
    expect(runtime.getSetting('maxInputTokens')).toBe('4096');
  });

  it('keeps object settings as objects for plugins that read the character, and as JSON text for getSetting', async () => {
    const path = await writeCharacter('cron.json', {
      name: 'Ada',
      settings: { heartbeat: { enabled: false }, verbose: true },
    });
    const ada = await loadCharacterFile(path);
    const runtime = new ParleyAgentRuntime(toAgentProfile(ada), {
      env: {},
      serverUrl: () => 'http://localhost:1',
      logger: createMemoryLogger().logger,
      services,
    });
    expect(runtime.character.settings?.heartbeat).toEqual({ enabled: false });
    expect(runtime.getSetting('heartbeat')).toBe('{"enabled":false}');
    expect(runtime.getSetting('verbose')).toBe('true');
  });

  it('the two example forms give the same prompt', async () => {
    const lines = [
      { speaker: '{{user1}}', text: 'hello' },
      { speaker: 'Ada', text: 'hi there' },
    ];
    const asUser = await writeCharacter('user-form.json', {
      name: 'Ada',
      messageExamples: [lines.map(({ speaker, text }) => ({ user: speaker, content: { text } }))],
    });
    const asName = await writeCharacter('name-form.json', {
      name: 'Ada',
      messageExamples: [
        { examples: lines.map(({ speaker, text }) => ({ name: speaker, content: { text } })) },
      ],
    });
    const first = buildSystemPrompt(await loadCharacterFile(asUser));
    expect(first).toContain('User: hello\nAda: hi there');
    expect(buildSystemPrompt(await loadCharacterFile(asName))).toBe(first);
  });

  it('gives the model the character prompt before the channel history', async () => {
    const alfred = await loadCharacterFile(fixture('alfred.character.json'));
    const [system, ...rest] = buildPrompt(alfred, 'agent', []);
    expect(system).toEqual({ role: 'system', content: buildSystemPrompt(alfred) });
    expect(rest).toEqual([]);
  });

  it('logs one info line naming the keys Parley keeps but does not use, and never a secret', async () => {
    const sage = await loadCharacterFile(fixture('sage.character.json'));
    const { logger, lines } = createMemoryLogger();
    const runtime = new ParleyAgentRuntime(toAgentProfile(sage), {
      env: {},
      serverUrl: () => 'http://localhost:1',
      logger,
      services,
    });
    const notices = lines.filter((line) => String(line.msg).includes('not used by Parley'));
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({
      level: 30,
      // sage.character.json holds every key Parley accepts without using it, so the notice names them all.
      keys: [...ACCEPTED_UNUSED_KEYS],
    });
    expect(runtime.getSetting('SAGE_API_TOKEN')).toBe('sage-secret-value-123');
    // What a structured logger makes of the agent, its character or its profile shows no secret value.
    logger.info({ runtime, character: runtime.character }, 'agent');
    expect(JSON.stringify(lines)).not.toContain('sage-secret-value-123');
  });

  it('logs nothing extra for a character without elizaOS-only keys', () => {
    const { logger, lines } = createMemoryLogger();
    new ParleyAgentRuntime(toAgentProfile({ name: 'Ada', bio: 'x' }), {
      env: {},
      serverUrl: () => 'http://localhost:1',
      logger,
      services,
    });
    expect(lines).toEqual([]);
  });
});

describe('what is still refused', () => {
  it('an unknown key stops loading, naming the key, the nearest known key and the file', async () => {
    const path = await writeCharacter('typo.json', { name: 'Ada', lroe: ['x'] });
    const error = await loadCharacterFile(path).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain('typo.json');
    expect((error as Error).message).toContain('unknown key "lroe" (did you mean "lore"?');
  });

  it.each([
    ['lore', { lore: 5 }, /lore/],
    [
      'a message example without content',
      { messageExamples: [[{ user: 'x' }]] },
      /messageExamples/,
    ],
    ['settings.secrets that is not an object', { settings: { secrets: 'x' } }, /settings\.secrets/],
    ['topics that are not text', { topics: [1] }, /topics/],
  ])('a key of the wrong shape names it: %s', async (_, fields, pattern) => {
    const path = await writeCharacter('shape.json', { name: 'Ada', ...fields });
    await expect(loadCharacterFile(path)).rejects.toThrow(pattern);
  });
});
