import { mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_PLUGINS } from '../../apps/server/src/plugins/example-plugins';
import {
  holdOnABusyMachine,
  settled,
  launchChromium,
  recordPageProblems,
  useTransport,
} from './browser';
import { echoPlugin, HOSTILE, hostileModel, startApp } from './tool-app';

holdOnABusyMachine();

/** Where screenshots go when set (`SCREENSHOT_DIR=/tmp` → `/tmp/tool-card.png`, `/tmp/tool-card-phone.png`). */
const SCREENSHOT_DIR = process.env.SCREENSHOT_DIR;

/** Opens the page, recording problems and any dialog (an `alert` that ran). */
async function openPage(context: BrowserContext, url: string) {
  const page = await context.newPage();
  const problems = recordPageProblems(page);
  const dialogs: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  await page.goto(url);
  await expect.poll(() => page.getByLabel('Agent').locator('option').count()).toBeGreaterThan(0);
  return { page, problems, dialogs };
}

/** The agent reply that answers `text`: the agent bubble after the user's bubble with that text. */
function replyTo(page: Page, text: string): Locator {
  return page
    .locator('li.message.own', { hasText: text })
    .locator('xpath=following-sibling::li[contains(@class,"agent")][1]');
}

/** Sends `text` in the given mode (the radio's label) and returns the reply's bubble once it has ended. */
async function ask(page: Page, text: string, mode = 'Socket'): Promise<Locator> {
  await useTransport(page, mode);
  await page.getByLabel('Message').fill(text);
  await page.getByLabel('Message').press('Enter');
  const reply = replyTo(page, text);
  await expect.poll(() => reply.getAttribute('class')).toMatch(/agent/);
  await expect.poll(() => reply.getAttribute('class')).not.toContain('streaming');
  return reply;
}

/** Records every `data-state` change of a tool card, as `old->new`. */
async function watchCardStates(page: Page): Promise<void> {
  await page.evaluate(`
    window.cardStates = [];
    new MutationObserver((records) => {
      for (const record of records) {
        window.cardStates.push(record.oldValue + '->' + record.target.getAttribute('data-state'));
      }
    }).observe(document.querySelector('.messages'), {
      subtree: true, attributes: true, attributeFilter: ['data-state'], attributeOldValue: true,
    });
  `);
}

/** Checks the CALCULATE card of `12 * 7` (or another expression) in a reply. */
async function expectCalculateCard(reply: Locator, expression: string, result: string) {
  const cards = reply.locator('.tool-card');
  await expect.poll(() => cards.count()).toBe(1);
  const card = reply.getByRole('region', { name: 'Tool CALCULATE' });
  expect(await card.getByRole('heading', { name: 'Tool CALCULATE' }).isVisible()).toBe(true);
  await expect.poll(() => card.getAttribute('data-state')).toBe('done');
  expect(await card.locator('.tool-state').textContent()).toBe('done');
  const input = card.locator('.tool-input pre');
  expect(await input.isVisible()).toBe(true);
  expect(await input.textContent()).toBe(JSON.stringify({ expression }, null, 2));
  expect(await card.locator('.tool-output pre').textContent()).toBe(`${expression} = ${result}`);
  expect((await reply.locator('.text').textContent())?.trim()).toBe(`${expression} = ${result}`);
  // The card comes above the reply's text.
  const cardBox = (await reply.locator('.tool-card').boundingBox())!;
  const textBox = (await reply.locator('.text').boundingBox())!;
  expect(cardBox.y + cardBox.height).toBeLessThanOrEqual(textBox.y);
}

let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

describe('tool cards on the real app (offline model, calculator plugin)', () => {
  let app: Awaited<ReturnType<typeof startApp>>;

  beforeAll(async () => {
    app = await startApp();
  });

  afterAll(async () => {
    await app?.stop();
  });

  it('shows CALCULATE as a card with its input, state and result, over the socket, REST stream and sync, and from history', async () => {
    const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    try {
      const { page, problems, dialogs } = await openPage(context, app.url);
      await watchCardStates(page);

      // Over the socket: the card appears running, then shows the result; the reply's text follows.
      const reply = await ask(page, 'what is 12 * 7?');
      await expectCalculateCard(reply, '12 * 7', '84');
      expect(await page.evaluate<string[]>('window.cardStates')).toContain('running->done');
      expect(await reply.getAttribute('aria-busy')).toBeNull();

      // Keyboard: the input's disclosure is a focusable summary that Enter toggles.
      const summary = reply.locator('.tool-input summary');
      await summary.focus();
      await page.keyboard.press('Enter');
      await expect.poll(() => reply.locator('.tool-input').getAttribute('open')).toBeNull();
      await page.keyboard.press('Enter');
      await expect.poll(() => reply.locator('.tool-input').getAttribute('open')).toBe('');

      if (SCREENSHOT_DIR) {
        await mkdir(SCREENSHOT_DIR, { recursive: true });
        const path = join(SCREENSHOT_DIR, 'tool-card.png');
        await page.screenshot({ path });
        expect((await stat(path)).size).toBeGreaterThan(10_000);
      }

      // REST stream (server-sent events, the socket delivers the same reply): one card, not two.
      const streamed = await ask(page, 'what is 6 * 7?', 'REST stream');
      await expectCalculateCard(streamed, '6 * 7', '42');
      expect(await streamed.getAttribute('data-sources')).toContain('sse');
      // REST sync: the answer's toolCalls.
      const synced = await ask(page, 'what is 2 + 3?', 'REST sync');
      await expectCalculateCard(synced, '2 + 3', '5');
      await expect.poll(() => page.locator('li.message.agent').count()).toBe(3);

      // The channel's history shows the stored replies' cards (raw_message.toolCalls).
      const again = await openPage(context, page.url());
      const stored = replyTo(again.page, 'what is 12 * 7?');
      await expect.poll(() => stored.locator('.tool-card').count()).toBe(1);
      await expectCalculateCard(stored, '12 * 7', '84');
      await expectCalculateCard(replyTo(again.page, 'what is 6 * 7?'), '6 * 7', '42');
      await expectCalculateCard(replyTo(again.page, 'what is 2 + 3?'), '2 + 3', '5');

      expect(await page.locator('#send-error').textContent()).toBe('');
      expect(problems).toEqual([]);
      expect(again.problems).toEqual([]);
      expect([...dialogs, ...again.dialogs]).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('fits a phone: the card stays inside a 390 px screen', async () => {
    const phone = await browser.newContext({
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
    });
    try {
      const { page, problems } = await openPage(phone, app.url);
      const reply = await ask(page, 'what is (3 + 4) * 2?');
      await expectCalculateCard(reply, '(3 + 4) * 2', '14');
      const box = (await reply.locator('.tool-card').boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(390);
      expect(
        await page.evaluate<number>('document.documentElement.scrollWidth'),
      ).toBeLessThanOrEqual(390);
      if (SCREENSHOT_DIR) {
        await mkdir(SCREENSHOT_DIR, { recursive: true });
        await page.screenshot({ path: join(SCREENSHOT_DIR, 'tool-card-phone.png') });
      }
      expect(problems).toEqual([]);
    } finally {
      await phone.close();
    }
  });
});

describe('tool cards with hostile tool data', () => {
  let app: Awaited<ReturnType<typeof startApp>>;

  beforeAll(async () => {
    app = await startApp({
      model: hostileModel(),
      plugins: [EXAMPLE_PLUGINS.get('calculator')!, echoPlugin],
    });
  });

  afterAll(async () => {
    await app?.stop();
  });

  it(`shows ${HOSTILE} in names, inputs, outputs and errors as text, live and from history`, async () => {
    const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    try {
      const { page, problems, dialogs } = await openPage(context, app.url);
      const check = async (target: Page) => {
        const reply = replyTo(target, 'use your tools');
        await expect.poll(() => reply.locator('.tool-card').count()).toBe(3);
        await expect.poll(() => reply.locator('.tool-card[data-state="running"]').count()).toBe(0);
        const calc = reply.locator('.tool-card[data-tool-call-id="call_calc"]');
        expect(await calc.locator('.tool-input pre').textContent()).toContain(
          `"expression": "${HOSTILE}"`,
        );
        expect(await calc.getAttribute('data-state')).toBe('error');
        expect(await calc.locator('.tool-error pre').textContent()).toContain(HOSTILE);
        const echo = reply.locator('.tool-card[data-tool-call-id="call_echo"]');
        expect(await echo.getAttribute('data-state')).toBe('done');
        expect(await echo.locator('.tool-output pre').textContent()).toBe(HOSTILE);
        const unknown = reply.locator('.tool-card[data-tool-call-id="call_unknown"]');
        expect(await unknown.locator('.tool-name').textContent()).toBe(`Tool ${HOSTILE}`);
        expect(await unknown.getAttribute('data-state')).toBe('error');
        // Nothing became an element: no image anywhere in the conversation.
        expect(await target.locator('.messages img').count()).toBe(0);
        expect(await reply.locator('.text').textContent()).toBe(`Here: ${HOSTILE}`);
      };

      await ask(page, 'use your tools');
      await check(page);
      if (SCREENSHOT_DIR) {
        await mkdir(SCREENSHOT_DIR, { recursive: true });
        await page.screenshot({ path: join(SCREENSHOT_DIR, 'tool-card-hostile.png') });
      }
      const again = await openPage(context, page.url());
      await check(again.page);

      // No alert ran, and nothing was refused by the page's policy (a blocked inline handler is a console error).
      await settled(page);
      await settled(again.page);
      expect([...dialogs, ...again.dialogs]).toEqual([]);
      expect(problems).toEqual([]);
      expect(again.problems).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
