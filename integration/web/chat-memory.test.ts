import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdOnABusyMachine, launchChromium } from './browser';
import { ask, openChat, pageModel, screenshot, startPageServer } from './chat-app';

holdOnABusyMachine();

/**
 * The chat page and the agent's memory, in Chromium: an answer that drew on a knowledge document names it under
 * the message (live and after a reload), and the person sees what the agent remembers about them and makes it
 * forget, one fact or all.
 */
const HANDBOOK = {
  title: 'Office handbook',
  text: 'The parking code at the office is 9182. Lunch is at noon in the canteen.',
};

let browser: Browser;
let app: Awaited<ReturnType<typeof startPageServer>>;
let agentId: string;

beforeAll(async () => {
  browser = await launchChromium();
  app = await startPageServer({ model: pageModel(), env: { FACT_EXTRACTION: 'rules' } });
  const agents = (await (await fetch(`${app.url}/api/agents`)).json()) as {
    data: { agents: { id: string }[] };
  };
  agentId = agents.data.agents[0]!.id;
  const uploaded = await fetch(`${app.url}/api/agents/${agentId}/knowledge`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(HANDBOOK),
  });
  expect(uploaded.status).toBeLessThan(300);
});
afterAll(async () => {
  await app?.server.stop();
  await browser?.close();
});

describe('the chat page and what the agent knows and remembers', () => {
  it('names the knowledge an answer used, and forgets what the person asks it to', async () => {
    const { context, page, problems } = await openChat(browser, app.url);
    try {
      const entityId = await page.evaluate<string | null>(
        "localStorage.getItem('parley.entityId')",
      );
      const remembered = async () => {
        const response = await fetch(
          `${app.url}/api/agents/${agentId}/memories?entityId=${encodeURIComponent(entityId!)}`,
        );
        return ((await response.json()) as { data: { memories: unknown[] } }).data.memories;
      };

      // Only an answer that drew on knowledge names sources.
      const greeting = await ask(page, 'Hello! My name is Ada and I live in Lisbon.');
      expect(await greeting.locator('.used-sources').isVisible()).toBe(false);
      const answer = await ask(page, 'What is the parking code at the office?');
      await expect
        .poll(() => answer.locator('.used-sources').textContent())
        .toBe('Sources: Office handbook');
      await page.reload();
      await expect
        .poll(() => page.locator('li.message.agent .used-sources:not([hidden])').allTextContents())
        .toEqual(['Sources: Office handbook']);

      // What the agent remembers about Ada: two facts, by rules.
      await expect.poll(async () => (await remembered()).length).toBe(2);
      const panel = page.locator('details.memories');
      await panel.locator('summary').click();
      const facts = panel.locator('.memory-list li > span');
      await expect
        .poll(() => facts.allTextContents())
        .toEqual(expect.arrayContaining(['Their name is Ada', 'They live in Lisbon']));
      await screenshot(page, 'chat-memories');
      await panel.getByRole('button', { name: 'Forget: They live in Lisbon' }).click();
      await expect.poll(() => facts.allTextContents()).toEqual(['Their name is Ada']);
      expect(await remembered()).toHaveLength(1);
      await panel.getByRole('button', { name: 'Forget everything' }).click();
      await expect.poll(() => panel.locator('.memory-status').textContent()).toBe('Nothing yet.');
      expect(await remembered()).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
