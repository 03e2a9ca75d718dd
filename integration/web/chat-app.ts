import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createLogger,
  createServer,
  type ModelProvider,
  type ModelRequest,
  type ServerOptions,
} from '@parley/server';
import type { Browser, BrowserContextOptions, Locator, Page } from 'playwright-core';
import { expect } from 'vitest';
import { serveWebPage } from '../../apps/server/src/web/serve-web-page';
import { recordPageProblems } from './browser';

/** Where the chat page's screenshots go: `SCREENSHOT_DIR`, else a folder of the system's temporary directory. */
export const SCREENSHOTS = process.env.SCREENSHOT_DIR ?? join(tmpdir(), 'parley-web');

/** Saves a screenshot of the page as `name`.png and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path });
  return path;
}

/** What the markdown model answers "show me markdown" with. */
export const MARKDOWN_REPLY = [
  'Here is **bold** text, _emphasis_ and `inline code`.',
  '',
  '```ts',
  'const answer: number = 42;',
  '```',
  '',
  'Read [the docs](https://example.com/docs) or write to [us](mailto:team@example.com).',
  '',
  '- one',
  '- two',
].join('\n');

/** The text of the last user turn of a model request (the message and what its attachments add). */
export function lastUserText(request: ModelRequest): string {
  const turn = request.messages.filter((message) => message.role === 'user').at(-1);
  return typeof turn?.content === 'string' ? turn.content : JSON.stringify(turn?.content ?? '');
}

/**
 * A model for the page's tests, in chunks of 7 characters: `echo: X` answers X (so a payload is both a user
 * message and an agent reply), `say nothing` answers nothing, `file` answers what it read (attachments
 * included), `markdown` answers {@link MARKDOWN_REPLY}; anything else `ok`. Every request is recorded.
 */
export function pageModel(
  options: { titles?: Record<string, string> } = {},
): ModelProvider & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  return {
    name: 'page-model',
    callsTools: true,
    requests,
    // eslint-disable-next-line @typescript-eslint/require-await
    async *stream(request) {
      requests.push(request);
      const said = lastUserText(request);
      // The server's channel namer asks for a title of a first message: `titles` has it, else no title.
      const named = said.startsWith('Write a short title')
        ? (options.titles?.[said.slice(said.indexOf('Message:\n') + 'Message:\n'.length)] ?? 'ok')
        : undefined;
      // The payload on a line of its own, after a word: a reply that begins with `<` reads as markup to the
      // reply extractor.
      const reply =
        named ??
        (said.startsWith('echo: ')
          ? `Echo:\n${said.slice('echo: '.length)}`
          : said.includes('say nothing')
            ? ''
            : said.includes('file')
              ? `I read: ${said}`
              : said.includes('markdown')
                ? MARKDOWN_REPLY
                : 'ok');
      for (let at = 0; at < reply.length; at += 7) {
        yield { type: 'text-delta', delta: reply.slice(at, at + 7) };
      }
      yield { type: 'finish', finishReason: 'stop' };
    },
  };
}

/** The app's server with the chat page, on a free port, in-memory database, `Eliza` answering. */
export async function startPageServer(options: ServerOptions = {}) {
  const server = createServer({
    port: 0,
    logger: createLogger('silent'),
    env: {},
    database: { kind: 'pglite', dataDir: 'memory' },
    characters: [{ name: 'Eliza' }],
    ...options,
  });
  serveWebPage(server);
  const { url } = await server.start();
  return { server, url };
}

/**
 * Opens the page in a new context, records problems, dialogs (an `alert` that ran; a `confirm` is accepted)
 * and requests to any other host.
 */
export async function openChat(browser: Browser, url: string, options: BrowserContextOptions = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, ...options });
  const page = await context.newPage();
  const problems = recordPageProblems(page);
  const dialogs: string[] = [];
  const foreign: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    void (dialog.type() === 'confirm' ? dialog.accept() : dialog.dismiss());
  });
  page.on('request', (request) => {
    if (!request.url().startsWith(url) && !request.url().startsWith('data:')) {
      foreign.push(request.url());
    }
  });
  await page.goto(url);
  await expect.poll(() => page.getByLabel('Agent').locator('option').count()).toBeGreaterThan(0);
  // In the channel's room, so that its live events reach the page from now on.
  await expect.poll(() => page.locator('.messages').getAttribute('data-joined')).toBeTruthy();
  return { context, page, problems, dialogs, foreign };
}

/** The agent reply that answers `text`: the agent bubble after the user's bubble with that text. */
export function replyTo(page: Page, text: string): Locator {
  return page
    .locator('li.message.own', { hasText: text })
    .last()
    .locator('xpath=following-sibling::li[contains(@class,"agent")][1]');
}

/** Sends `text` with Enter and waits for its reply to end. */
export async function ask(page: Page, text: string): Promise<Locator> {
  await page.getByLabel('Message').fill(text);
  await page.getByLabel('Message').press('Enter');
  const reply = replyTo(page, text);
  await expect.poll(() => reply.getAttribute('class')).toMatch(/agent/);
  await expect.poll(() => reply.getAttribute('class')).not.toContain('streaming');
  return reply;
}
