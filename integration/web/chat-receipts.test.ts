import { createLogger, createServer, parseTeeConfig, type ParleyServer } from '@parley/server';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveWebPage } from '../../apps/server/src/web/serve-web-page';
import { holdOnABusyMachine, launchChromium, recordPageProblems } from './browser';

holdOnABusyMachine();

let browser: Browser;
let server: ParleyServer;
let url: string;

beforeAll(async () => {
  browser = await launchChromium();
  server = createServer({
    port: 0,
    logger: createLogger('silent'),
    env: {},
    database: { kind: 'pglite', dataDir: 'memory' },
    tee: parseTeeConfig({ TEE_MODE: 'LOCAL', WALLET_SECRET_SALT: 'chat page receipts salt' }),
  });
  serveWebPage(server);
  ({ url } = await server.start());
});
afterAll(async () => {
  await server?.stop();
  await browser?.close();
});

describe("the chat page's receipt mark (headless Chromium, simulator TEE)", () => {
  it("opens a reply's receipt, checks it in the browser and says it proves nothing about hardware", async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const problems = recordPageProblems(page);
      await page.goto(url);
      await page.getByLabel('Message').fill('I feel happy today');
      await page.getByLabel('Message').press('Enter');
      const reply = page
        .locator('li.message.own', { hasText: 'I feel happy today' })
        .locator('xpath=following-sibling::li[contains(@class,"agent")][1]');
      await expect.poll(() => reply.getAttribute('class')).not.toContain('streaming');
      const mark = reply.locator('.receipt-mark');
      await reply.locator('.reply-menu-toggle').click();
      // The receipt is written just after the reply ends: ask until the mark shows a verdict.
      await expect
        .poll(async () => {
          await mark.click();
          return mark.textContent();
        })
        .toBe('✓ Verified');
      const panel = reply.locator('.receipt-panel');
      expect(await panel.textContent()).toContain("Signed by the agent's key ✓");
      expect(await panel.textContent()).toContain(
        "The key is the one the agent's TEE quote binds ✓",
      );
      expect(await panel.textContent()).toContain('Its text digest is the text shown ✓');
      expect(await panel.textContent()).toContain('proves nothing about hardware');
      expect(problems.filter((problem) => !problem.includes('404'))).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
