import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdOnABusyMachine, launchChromium } from './browser';
import { ask, openChat, pageModel, screenshot, startPageServer } from './chat-app';

holdOnABusyMachine();

/** A UUID anywhere in a string. */
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

const ADA = {
  name: 'Ada',
  system: 'You are Ada, a concise engineering assistant.',
  bio: ['Ada reviews code and explains build failures in a sentence or two.'],
  messageExamples: [
    [
      { name: '{{user1}}', content: { text: 'Why does my build fail on CI only?' } },
      { name: 'Ada', content: { text: 'Usually an environment difference: compare the two.' } },
    ],
  ],
  topics: ['flaky tests'],
};

/** What a person sees on the page (not attributes, not hidden elements). */
const visibleText = (page: Page) => page.evaluate<string>('document.body.innerText');

let browser: Browser;
let app: Awaited<ReturnType<typeof startPageServer>>;
// The model's title for the prompt the test sends first (the server's channel namer asks it).
const model = pageModel({
  titles: { 'Why does my build fail on CI only?': 'CI-only build failures' },
});

beforeAll(async () => {
  browser = await launchChromium();
  app = await startPageServer({ model, characters: [ADA] });
});
afterAll(async () => {
  await app?.server.stop();
  await browser?.close();
});

describe('the chat page’s first screen and answers', () => {
  it('greets with the agent’s name, bio and prompts from its character; no id is shown anywhere', async () => {
    const { context, page, problems } = await openChat(browser, app.url);
    try {
      const welcome = page.getByRole('region', { name: 'Welcome' });
      await expect.poll(() => welcome.locator('h3').textContent()).toBe("Hi, I'm Ada");
      expect(await welcome.locator('.about').allTextContents()).toEqual([ADA.bio[0]]);
      const prompts = welcome.getByRole('list', { name: 'Suggestions' }).getByRole('button');
      expect(await prompts.allTextContents()).toEqual([
        'Why does my build fail on CI only?',
        'Tell me about flaky tests',
        'Hello!',
      ]);
      expect(await page.locator('#channel-title').textContent()).toBe('New chat');
      expect(await page.locator('.members').textContent()).toBe('You and Ada');
      expect(await visibleText(page)).not.toMatch(UUID);
      await screenshot(page, 'chat-first-screen');

      // A prompt sends itself; the welcome makes way for the conversation, and the server names the channel by
      // the model's summary of it, whole and the same in the heading and the list.
      await prompts.first().click();
      const reply = page
        .locator('li.message.own', { hasText: 'Why does my build fail on CI only?' })
        .locator('xpath=following-sibling::li[contains(@class,"agent")][1]');
      await expect.poll(() => reply.getAttribute('class')).toMatch(/^(?!.*streaming).*agent/);
      expect(await welcome.isVisible()).toBe(false);
      await expect
        .poll(() => page.locator('#channel-title').textContent())
        .toBe('CI-only build failures');
      await expect
        .poll(() => page.locator('.recent [aria-current=true] .channel-name').textContent())
        .toBe('CI-only build failures');
      expect(await visibleText(page)).not.toMatch(UUID);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('Edit changes the last message in place; its new answer replaces the old, which stays a click away', async () => {
    const { context, page, problems } = await openChat(browser, app.url);
    try {
      const first = await ask(page, 'echo: before the edit');
      expect(await first.locator('.text').textContent()).toContain('before the edit');
      const firstId = await first.getAttribute('data-message-id');
      const own = page.locator('li.message.own:visible');
      const answers = page.locator('li.message.agent:visible');

      // Edit puts the last message in the composer; Cancel edit leaves it as it was.
      await page.getByRole('button', { name: 'Edit', exact: true }).click();
      const input = page.locator('#message');
      expect(await input.inputValue()).toBe('echo: before the edit');
      await page.getByRole('button', { name: 'Cancel edit' }).click();
      expect(await input.inputValue()).toBe('');
      expect(await page.getByRole('button', { name: 'Send' }).isVisible()).toBe(true);

      await page.getByRole('button', { name: 'Edit', exact: true }).click();
      await input.fill('echo: after the edit');
      await page.getByRole('button', { name: 'Resend' }).click();
      // One question, with its new text; one answer shown, the new one, answering the new text.
      await expect.poll(() => own.locator('.text').textContent()).toContain('after the edit');
      const versions = page.getByRole('group', { name: 'Answers' }).filter({ visible: true });
      await expect.poll(() => versions.locator('.version-label').textContent()).toBe('2/2');
      await expect.poll(() => page.locator('li.message.agent.streaming').count()).toBe(0);
      expect(await answers.locator('.text').textContent()).toContain('after the edit');
      expect(await own.count()).toBe(1);
      expect(await answers.count()).toBe(1);
      expect(await page.getByRole('button', { name: 'Send' }).isVisible()).toBe(true);

      // The server keeps it: after a reload the message has its new text, the old answer is a click back.
      await page.reload();
      await expect.poll(() => own.locator('.text').textContent()).toContain('after the edit');
      await expect.poll(() => versions.locator('.version-label').textContent()).toBe('2/2');
      await versions.getByRole('button', { name: 'Previous answer' }).click();
      await expect.poll(() => answers.getAttribute('data-message-id')).toBe(firstId);
      expect(await answers.locator('.text').textContent()).toContain('before the edit');
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('Regenerate replaces the last answer and keeps the old one a click away', async () => {
    const { context, page, problems } = await openChat(browser, app.url);
    try {
      const first = await ask(page, 'echo: first answer');
      expect(await first.locator('.text').textContent()).toContain('first answer');
      const visibleAnswers = page.locator('li.message.agent:visible');
      const asked = page.locator('li.message.own:visible');
      expect(await visibleAnswers.count()).toBe(1);
      const firstId = await first.getAttribute('data-message-id');
      const requests = model.requests.length;

      await page.getByRole('button', { name: 'Regenerate' }).click();
      // The model was asked again; the new answer stands where the old one was, one answer and one question shown.
      // (At least once: work after a reply, such as what the agent learns about the speaker, may ask it too.)
      await expect.poll(() => model.requests.length).toBeGreaterThan(requests);
      const versions = page.getByRole('group', { name: 'Answers' }).filter({ visible: true });
      await expect.poll(() => versions.locator('.version-label').textContent()).toBe('2/2');
      await expect.poll(() => page.locator('li.message.agent.streaming').count()).toBe(0);
      expect(await visibleAnswers.count()).toBe(1);
      expect(await asked.count()).toBe(1);

      // The old answer is one click back, and forward again.
      await versions.getByRole('button', { name: 'Previous answer' }).click();
      await expect.poll(() => versions.locator('.version-label').textContent()).toBe('1/2');
      expect(await visibleAnswers.count()).toBe(1);
      expect(await visibleAnswers.getAttribute('data-message-id')).toBe(firstId);
      await versions.getByRole('button', { name: 'Next answer' }).click();
      await expect.poll(() => versions.locator('.version-label').textContent()).toBe('2/2');
      const secondId = await visibleAnswers.getAttribute('data-message-id');
      expect(secondId).not.toBe(firstId);

      // The server keeps both: after a reload, and in another browser, the new answer is the one shown, the old
      // one a click back.
      const channel = page.url();
      const other = await openChat(browser, channel);
      try {
        for (const view of [page, other.page]) {
          if (view === page) await page.reload();
          const shown = view.locator('li.message.agent:visible');
          const group = view.getByRole('group', { name: 'Answers' }).filter({ visible: true });
          await expect.poll(() => group.locator('.version-label').textContent()).toBe('2/2');
          expect(await shown.count()).toBe(1);
          expect(await shown.getAttribute('data-message-id')).toBe(secondId);
          // The question once (this browser's own, another browser's someone else's).
          expect(await view.locator('li.message:not(.agent):visible').count()).toBe(1);
          await group.getByRole('button', { name: 'Previous answer' }).click();
          await expect.poll(() => shown.getAttribute('data-message-id')).toBe(firstId);
        }
        expect(other.problems).toEqual([]);
      } finally {
        await other.context.close();
      }
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('a reply’s menu shows its id and copies `parley reply <id>`', async () => {
    const { context, page, problems } = await openChat(browser, app.url, {
      permissions: ['clipboard-read', 'clipboard-write'],
    });
    try {
      const reply = await ask(page, 'echo: menu please');
      const id = (await reply.getAttribute('data-message-id'))!;
      expect(id).toMatch(UUID);
      // Closed, the id is nowhere a person looks.
      expect(await visibleText(page)).not.toContain(id);
      await reply.getByLabel('Reply details').click();
      await expect.poll(() => reply.locator('.reply-id').textContent()).toBe(id);
      await reply.getByRole('button', { name: 'Copy parley reply' }).click();
      await expect.poll(() => reply.locator('.copy-command').textContent()).toBe('Copied');
      expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(
        `parley reply ${id}`,
      );
      // The server knows the reply by that id.
      const steps = await fetch(`${app.url}/api/messaging/replies/${id}/events`);
      expect(steps.status).toBe(200);
      await steps.body?.cancel();
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
