import { mkdir, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  createLogger,
  createServer,
  parseTeeConfig,
  type ParleyServer,
  type ServerOptions,
} from '@parley/server';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveWebPage } from '../../apps/server/src/web/serve-web-page';
import { slowModel } from '../client/slow-eliza';
import { holdOnABusyMachine, launchChromium, recordPageProblems, useTransport } from './browser';

holdOnABusyMachine();

const SCREENSHOT = join(tmpdir(), 'parley-web', 'chat-page.png');

/** The app's server with the chat page, on a free port, with an in-memory database and the offline model. */
async function startAppServer(options: ServerOptions = {}) {
  const server = createServer({
    port: 0,
    logger: createLogger('silent'),
    env: {},
    database: { kind: 'pglite', dataDir: 'memory' },
    characters: [{ name: 'Eliza' }, { name: 'Rogers' }],
    ...options,
  });
  serveWebPage(server);
  const { url } = await server.start();
  return { server, url };
}

async function openPage(
  context: BrowserContext,
  url: string,
): Promise<{ page: Page; problems: string[] }> {
  const page = await context.newPage();
  const problems = recordPageProblems(page);
  await page.goto(url);
  return { page, problems };
}

/** The agent reply that answers `text`: the agent bubble after the user's bubble with that text. */
function replyTo(page: Page, text: string) {
  return page
    .locator('li.message.own', { hasText: text })
    .locator('xpath=following-sibling::li[contains(@class,"agent")][1]');
}

let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

describe('chat page in headless Chromium', () => {
  let server: ParleyServer;
  let url: string;

  beforeAll(async () => {
    ({ server, url } = await startAppServer());
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('talks to an agent over the socket and REST stream, with typing and presence from a second page', async () => {
    const alice = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    const bob = await browser.newContext();
    try {
      const { page, problems } = await openPage(alice, url);

      // Pick an agent.
      const agent = page.getByLabel('Agent');
      await expect
        .poll(() => agent.locator('option').allTextContents())
        .toEqual(['Eliza', 'Rogers']);
      await agent.selectOption({ label: 'Eliza' });
      await page.getByLabel('Your name').fill('Alice');
      await page.getByLabel('Your name').press('Tab');

      // Send over the socket (the default) and watch the reply stream in.
      await page.getByLabel('Message').fill('I feel happy today');
      await page.getByLabel('Message').press('Enter');
      const socketReply = replyTo(page, 'I feel happy today');
      await expect.poll(() => socketReply.getAttribute('data-sources')).toContain('socket');
      await expect.poll(() => socketReply.getAttribute('class')).not.toContain('streaming');
      expect((await socketReply.locator('.text').textContent())?.trim()).not.toBe('');
      expect(await socketReply.locator('.sender').textContent()).toBe('Eliza');

      // A second page joins the same channel: presence, then its typing indicator.
      const channelId = new URL(page.url()).hash.replace('#channel=', '');
      expect(channelId).toMatch(/^[0-9a-f-]{36}$/);
      const second = await openPage(bob, `${url}/#channel=${channelId}`);
      const bobId = await second.page.evaluate<string | null>(
        "localStorage.getItem('parley.entityId')",
      );
      // Until Bob speaks, Alice knows him by his id's default name.
      const guestName = `Guest ${bobId!.slice(5, 9)}`;
      await expect.poll(() => page.locator('.members').textContent()).toContain(guestName);
      await expect.poll(() => page.locator('.notice').last().textContent()).toContain('joined');
      // The second page sees the history.
      await expect
        .poll(() => second.page.locator('li.message.own, li.message.other').allTextContents())
        .toContainEqual(expect.stringContaining('I feel happy today'));

      await second.page.getByLabel('Your name').fill('Bob');
      await second.page.getByLabel('Your name').press('Tab');
      await second.page.getByLabel('Message').fill('Hello from Bob');
      await second.page.getByLabel('Message').press('Enter');
      await expect
        .poll(() => page.locator('li.message.other').allTextContents())
        .toContainEqual(expect.stringContaining('Hello from Bob'));
      await second.page.getByLabel('Message').pressSequentially('typing…');
      await expect.poll(() => page.locator('.typing').textContent()).toContain('Bob is typing');

      // Switch to REST stream mode: the reply comes as server-sent events.
      await useTransport(page, 'REST stream');
      await page.getByLabel('Message').fill('I am sad about the weather');
      await page.getByRole('button', { name: 'Send' }).click();
      const streamReply = replyTo(page, 'I am sad about the weather');
      await expect.poll(() => streamReply.getAttribute('data-sources')).toContain('sse');
      await expect.poll(() => streamReply.getAttribute('class')).not.toContain('streaming');
      expect((await streamReply.locator('.text').textContent())?.trim()).not.toBe('');
      await expect.poll(() => page.locator('#send-error').textContent()).toBe('');

      // REST sync: the whole reply in the response, shown once although the room broadcast it too.
      await useTransport(page, 'REST sync');
      await page.getByLabel('Message').fill('Do you remember me');
      await page.getByLabel('Message').press('Enter');
      const syncReply = replyTo(page, 'Do you remember me');
      await expect
        .poll(async () => (await syncReply.locator('.text').textContent())?.trim())
        .toBeTruthy();
      await expect.poll(() => page.locator('li.message.agent').count()).toBe(4);

      // The second page leaves: presence updates.
      await bob.close();
      await expect.poll(() => page.locator('.notice').last().textContent()).toContain('left');

      // The server drops every socket: the banner says so, the page reconnects, rejoins and can send.
      // Scripts run in the page are strings: this package is type-checked without the DOM library.
      await page.evaluate(`
        window.bannerLog = [];
        const banner = document.querySelector('.banner');
        new MutationObserver(() => window.bannerLog.push(banner.textContent)).observe(banner, {
          childList: true, characterData: true, subtree: true,
        });
      `);
      server.io.disconnectSockets(true);
      await expect
        .poll(() => page.evaluate<string[]>('window.bannerLog'))
        .toContainEqual(expect.stringContaining('reconnecting'));
      await expect.poll(() => page.locator('.banner').isHidden()).toBe(true);
      await useTransport(page, 'Socket');
      await page.getByLabel('Message').fill('Back again');
      await page.getByLabel('Message').press('Enter');
      await expect
        .poll(() => replyTo(page, 'Back again').getAttribute('data-sources'))
        .toContain('socket');

      // Every reply shown exactly once, whichever paths delivered it.
      expect(await page.locator('li.message.agent').count()).toBe(5);

      // The channel is remembered, the TEE badge shows the status.
      await expect.poll(() => page.locator('.recent .channel-open').count()).toBe(1);
      await expect.poll(() => page.locator('.tee-badge').textContent()).toBe('TEE: off');
      const docs = await page.request.get(
        new URL(
          (await page.getByRole('link', { name: 'API docs' }).getAttribute('href'))!,
          page.url(),
        ).href,
      );
      expect(docs.status()).toBe(200);

      await mkdir(join(tmpdir(), 'parley-web'), { recursive: true });
      await page.screenshot({ path: SCREENSHOT, fullPage: true });
      expect((await stat(SCREENSHOT)).size).toBeGreaterThan(10_000);
      expect(problems).toEqual([]);
      expect(second.problems).toEqual([]);
    } finally {
      await alice.close();
      await bob.close().catch(() => {});
    }
  });
});

describe('chat page on a phone', () => {
  let server: ParleyServer;
  let url: string;

  beforeAll(async () => {
    ({ server, url } = await startAppServer());
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('gives the messages most of a 390×844 screen; the channel list is one button away', async () => {
    const phone = await browser.newContext({
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
    });
    try {
      const { page, problems } = await openPage(phone, url);
      await expect.poll(() => page.getByLabel('Agent').locator('option').count()).toBe(2);
      const texts = ['Hello there', 'I feel happy today', 'Tell me about yourself'];
      for (const text of texts) {
        await page.getByLabel('Message').fill(text);
        await page.getByLabel('Message').press('Enter');
        await expect
          .poll(() => replyTo(page, text).getAttribute('class'))
          .toMatch(/^(?!.*streaming).*agent/);
      }

      // The message list takes at least 60% of the height, and the page itself does not scroll.
      const list = (await page.locator('.scroller').boundingBox())!;
      expect(list.height).toBeGreaterThanOrEqual(0.6 * 844);
      expect(
        await page.evaluate<number>('document.documentElement.scrollHeight'),
      ).toBeLessThanOrEqual(844);
      // Several messages are in view at once, not one.
      const inView = await page.evaluate<number>(`(() => {
        const box = document.querySelector('.scroller').getBoundingClientRect();
        return [...document.querySelectorAll('li.message')].filter((message) => {
          const rect = message.getBoundingClientRect();
          return rect.top >= box.top - 1 && rect.bottom <= box.bottom + 1;
        }).length;
      })()`);
      expect(inView).toBeGreaterThanOrEqual(4);
      await mkdir(join(tmpdir(), 'parley-web'), { recursive: true });
      await page.screenshot({ path: join(dirname(SCREENSHOT), 'chat-page-phone.png') });

      // The channel list, API key and docs link are behind the menu button; picking a channel closes it.
      const menu = page.getByRole('button', { name: 'Channels' });
      expect(await menu.getAttribute('aria-expanded')).toBe('false');
      expect(await page.getByLabel('Your name').isVisible()).toBe(false);
      await menu.click();
      expect(await menu.getAttribute('aria-expanded')).toBe('true');
      expect(await page.getByLabel('Your name').isVisible()).toBe(true);
      expect(await page.getByRole('button', { name: 'Settings' }).isVisible()).toBe(true);
      await page.screenshot({ path: join(dirname(SCREENSHOT), 'chat-page-phone-menu.png') });
      await page.getByRole('button', { name: 'New channel' }).click();
      await expect.poll(() => menu.getAttribute('aria-expanded')).toBe('false');
      expect(await page.getByLabel('Your name').isVisible()).toBe(false);
      await expect.poll(() => page.locator('li.message').count()).toBe(0);
      expect(problems).toEqual([]);
    } finally {
      await phone.close();
    }
  });
});

describe('chat page with SERVER_AUTH_TOKEN', () => {
  let server: ParleyServer;
  let url: string;

  beforeAll(async () => {
    ({ server, url } = await startAppServer({ authToken: 'page-test-token' }));
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('asks for the API key, keeps it for the tab and uses it for REST and the socket', async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(url);
      await expect.poll(() => page.locator('#agent-error').textContent()).toContain('API key');

      await page.getByLabel('API key').fill('page-test-token');
      await page.getByRole('button', { name: 'Use key' }).click();
      await expect.poll(() => page.getByLabel('Agent').locator('option').count()).toBe(2);
      expect(await page.evaluate<string | null>("sessionStorage.getItem('parley.apiKey')")).toBe(
        'page-test-token',
      );
      expect(
        await page.evaluate<string | null>("localStorage.getItem('parley.apiKey')"),
      ).toBeNull();

      // A new channel for the second agent: the first message names it, the reply streams on the socket.
      await page.getByLabel('Agent').selectOption({ label: 'Rogers' });
      await page.getByLabel('Message').fill('Hello with a key');
      await page.getByLabel('Message').press('Enter');
      const reply = replyTo(page, 'Hello with a key');
      await expect.poll(() => reply.getAttribute('data-sources')).toContain('socket');
      await expect.poll(() => reply.locator('.sender').textContent()).toBe('Rogers');
      // From then on the channel is Rogers's, over the socket too.
      await page.getByLabel('Message').fill('And again');
      await page.getByLabel('Message').press('Enter');
      await expect
        .poll(() => replyTo(page, 'And again').locator('.sender').textContent())
        .toBe('Rogers');
    } finally {
      await context.close();
    }
  });
});

describe('chat page: a message sent right after "Use key"', () => {
  let server: ParleyServer;
  let url: string;

  beforeAll(async () => {
    ({ server, url } = await startAppServer({ authToken: 'page-test-token' }));
  });

  afterAll(async () => {
    await server?.stop();
  });

  /**
   * Holds every room join the server receives until `release()`: what a loaded machine does to the page's join,
   * made certain. Only the join waits; everything else the sockets send goes through.
   */
  function holdJoins() {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    type Middleware = (packet: unknown[], next: (error?: Error) => void) => void;
    const onConnection = (socket: { use(middleware: Middleware): void }) => {
      socket.use(([event, envelope], next) => {
        const joining =
          event === 'message' && (envelope as { type?: unknown } | undefined)?.type === 1;
        if (joining) void released.then(() => next());
        else next();
      });
    };
    server.io.on('connection', onConnection);
    return { release, stop: () => server.io.off('connection', onConnection) };
  }

  /** Whether the channel holds a reply already (read with the key, as another client would). */
  async function replyStored(channelId: string): Promise<boolean> {
    const response = await fetch(`${url}/api/messaging/channels/${channelId}/messages`, {
      headers: { 'x-api-key': 'page-test-token' },
    });
    if (!response.ok) return false;
    const body = (await response.json()) as { data: { messages: { source_type: string }[] } };
    return body.data.messages.some((message) => message.source_type === 'agent_response');
  }

  it('gets its live reply: the page sends once it is in the room', async () => {
    const context = await browser.newContext();
    const joins = holdJoins();
    try {
      // Before the key, the page's requests are refused (401): expected, so its problems are not checked.
      const page = await context.newPage();
      await page.goto(url);
      await expect.poll(() => page.locator('#agent-error').textContent()).toContain('API key');
      await page.getByLabel('API key').fill('page-test-token');
      await page.getByRole('button', { name: 'Use key' }).click();
      await expect.poll(() => page.getByLabel('Agent').locator('option').count()).toBe(2);
      // The first message of a new channel for the second agent goes by REST; its reply comes on the socket.
      await page.getByLabel('Agent').selectOption({ label: 'Rogers' });
      await page.getByLabel('Message').fill('Straight after the key');
      await page.getByLabel('Message').press('Enter');
      // The join is let through once either the page says it waits for the room (it holds the message), or the
      // server has answered already (a page that sent first: the reply went to a room it was not in yet).
      const channelId = new URLSearchParams(new URL(page.url()).hash.slice(1)).get('channel')!;
      await expect
        .poll(
          async () =>
            (await page.locator('form.composer[data-waiting="room"]').count()) > 0 ||
            (await replyStored(channelId)),
        )
        .toBe(true);
      joins.release();
      const reply = replyTo(page, 'Straight after the key');
      await expect.poll(() => reply.getAttribute('data-sources')).toContain('socket');
      await expect.poll(() => reply.locator('.text').textContent()).not.toBe('');
      await expect.poll(() => page.locator('form.composer[data-waiting]').count()).toBe(0);
    } finally {
      joins.release();
      joins.stop();
      await context.close();
    }
  });
});

describe('chat page on a TEE server', () => {
  let server: ParleyServer;
  let url: string;

  beforeAll(async () => {
    ({ server, url } = await startAppServer({
      tee: parseTeeConfig({ TEE_MODE: 'LOCAL', WALLET_SECRET_SALT: 'chat-page-salt' }),
    }));
  });

  afterAll(async () => {
    await server?.stop();
  });

  it("shows the TEE status and each agent's attested key, bound by its quote", async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const problems = recordPageProblems(page);
      await page.goto(url);
      const badge = page.locator('.tee-badge');
      await expect.poll(() => badge.textContent()).toBe('TEE: active (phala)');
      await badge.click();
      expect(await badge.getAttribute('aria-expanded')).toBe('true');
      const agents = page.locator('.tee-agents li');
      await expect.poll(() => agents.count()).toBe(2);
      for (const agent of server.agents.summaries()) {
        const row = page.locator(`.tee-agents li[data-agent-id="${agent.id}"]`);
        expect(await row.locator('strong').textContent()).toBe(agent.name);
        expect(await row.locator('code').getAttribute('title')).toMatch(
          /^0x[0-9a-fA-F]+|[0-9a-fA-F]{40,}/,
        );
        expect(await row.locator('.tee-check').textContent()).toContain('key bound by the quote ✓');
      }
      expect(await page.locator('[data-check="list"]').textContent()).toContain(
        'bound by the quote ✓',
      );
      await mkdir(dirname(SCREENSHOT), { recursive: true });
      await page.screenshot({ path: join(dirname(SCREENSHOT), 'tee-panel.png') });
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

describe('the Stop button', () => {
  it('stops a streaming reply: the model is aborted and the page says the reply was stopped', async () => {
    const model = slowModel();
    const { server, url } = await startAppServer({ model });
    const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    try {
      const { page, problems } = await openPage(context, url);
      await page.getByLabel('Message').fill('Tell me a very long story');
      await page.getByLabel('Message').press('Enter');
      const stop = page.getByRole('button', { name: 'Stop' });
      await expect.poll(() => stop.isVisible()).toBe(true);
      // While it streams, the status lines say the agent replies (not that no one is here).
      await expect.poll(() => page.locator('.typing').textContent()).toBe('Eliza is replying…');
      expect(await page.locator('.members').textContent()).toBe('You and Eliza');
      await stop.click();
      await expect.poll(() => model.aborted.length).toBe(1);
      await expect
        .poll(() => page.locator('.notice').allTextContents())
        .toContainEqual(expect.stringContaining('Reply stopped'));
      await expect.poll(() => stop.isVisible()).toBe(false);
      expect(await page.locator('#send-error').textContent()).toBe('');
      expect(problems).toEqual([]);
    } finally {
      await context.close();
      await server.stop();
    }
  });
});
