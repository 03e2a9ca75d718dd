import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { slowModel } from '../client/slow-eliza';
import { holdOnABusyMachine, launchChromium, useTransport } from './browser';
import { ask, lastUserText, openChat, pageModel, screenshot, startPageServer } from './chat-app';

holdOnABusyMachine();

let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

/** Calls the channels API of `url`; resolves with the envelope's data. */
async function api<T>(url: string, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(response.status, `${method} ${path}`).toBeLessThan(300);
  return ((await response.json()) as { data: T }).data;
}

describe('channels from the server', () => {
  const model = pageModel();
  let app: Awaited<ReturnType<typeof startPageServer>>;

  beforeAll(async () => {
    app = await startPageServer({ model });
  });

  afterAll(async () => {
    await app?.server.stop();
  });

  it('lists them by name, live; renames, deletes (confirmed), marks unread ones', async () => {
    const apollo = await api<{ id: string }>(app.url, 'POST', '/api/messaging/channels', {
      name: 'Project Apollo',
    });
    const { context, page, problems, dialogs } = await openChat(browser, app.url);
    try {
      const names = () => page.locator('.recent .channel-name').allTextContents();
      await expect.poll(names).toContain('Project Apollo');

      // Created elsewhere: it appears without a reload (channelCreated).
      const gemini = await api<{ id: string }>(app.url, 'POST', '/api/messaging/channels', {
        name: 'Gemini',
      });
      await expect.poll(names).toContain('Gemini');

      // Open Apollo by name: the heading says its name.
      await page.getByRole('button', { name: /^Project Apollo/ }).click();
      await expect.poll(() => page.locator('#channel-title').textContent()).toBe('Project Apollo');
      expect(page.url()).toContain(apollo.id);

      // Rename by keyboard: the field takes the new name, Enter saves it on the server.
      await page.getByRole('button', { name: 'Rename Project Apollo' }).click();
      const field = page.getByLabel('New name for Project Apollo');
      await field.fill('Apollo 11');
      await field.press('Enter');
      await expect.poll(names).toContain('Apollo 11');
      await expect.poll(() => page.locator('#channel-title').textContent()).toBe('Apollo 11');
      const renamed = await api<{ name: string }>(
        app.url,
        'GET',
        `/api/messaging/channels/${apollo.id}`,
      );
      expect(renamed.name).toBe('Apollo 11');

      // A message in Gemini while Apollo is shown: Gemini is marked unread (after a refresh of the list).
      await api(app.url, 'POST', `/api/messaging/channels/${gemini.id}/messages`, {
        text: 'news in gemini',
        entityId: 'user-elsewhere',
        mode: 'sync',
      });
      await page.reload();
      const geminiRow = page.locator('.recent li', { hasText: 'Gemini' });
      await expect.poll(() => geminiRow.getAttribute('data-unread')).toBe('true');
      expect(
        await page.locator('.recent li', { hasText: 'Apollo 11' }).getAttribute('data-unread'),
      ).toBeNull();
      await screenshot(page, 'chat-channels-desktop');
      await geminiRow.locator('.channel-open').click();
      await expect.poll(() => geminiRow.getAttribute('data-unread')).toBeNull();

      // Delete, confirmed: gone here and on the server.
      await page.getByRole('button', { name: 'Delete Apollo 11' }).click();
      await expect.poll(names).not.toContain('Apollo 11');
      expect(dialogs).toEqual([expect.stringMatching(/^confirm: Delete the channel “Apollo 11”/)]);
      const gone = await fetch(`${app.url}/api/messaging/channels/${apollo.id}`);
      expect(gone.status).toBe(404);

      // New channel: made on the server, named after the first words sent in it.
      await page.getByRole('button', { name: 'New channel' }).click();
      await expect.poll(names).toContain('New chat');
      await ask(page, 'Plan the moon landing');
      await expect.poll(names).toContain('Plan the moon landing');
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('sends attachments (picked and dropped) that the agent reads', async () => {
    const { context, page, problems } = await openChat(browser, app.url);
    try {
      await page.locator('#attach-file').setInputFiles({
        name: 'notes.txt',
        mimeType: 'text/plain',
        buffer: Buffer.from('The launch code is PELICAN-42.'),
      });
      await expect
        .poll(() => page.getByRole('list', { name: 'Files to send' }).textContent())
        .toContain('notes.txt');
      const before = model.requests.length;
      const reply = await ask(page, 'What is in my file?');
      // The model saw the file's text, and said so.
      expect(lastUserText(model.requests[before]!)).toContain('The launch code is PELICAN-42.');
      expect(await reply.locator('.text').textContent()).toContain('PELICAN-42');
      const own = page.locator('li.message.own', { hasText: 'What is in my file?' });
      expect(await own.locator('.files').textContent()).toContain('notes.txt');
      expect(await page.getByRole('list', { name: 'Files to send' }).isHidden()).toBe(true);

      // Dropped on the conversation: the same.
      await page.evaluate(`(() => {
        const data = new DataTransfer();
        data.items.add(new File(['dropped words: ORCA-7'], 'drop.md', { type: 'text/markdown' }));
        document.querySelector('main').dispatchEvent(
          new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }),
        );
      })()`);
      const dropped = await ask(page, 'And this file?');
      expect(await dropped.locator('.text').textContent()).toContain('ORCA-7');

      // The file downloads from the page (fetched with the page's key, saved under its name).
      const download = page.waitForEvent('download');
      await own.getByRole('button', { name: /notes\.txt/ }).click();
      expect((await download).suggestedFilename()).toBe('notes.txt');
      await screenshot(page, 'chat-attachment-desktop');
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

describe('Stop in REST-stream mode', () => {
  it('leaves the sent message sent, and the stopped reply says so without a cursor', async () => {
    const model = slowModel();
    const app = await startPageServer({ model });
    const { context, page, problems } = await openChat(browser, app.url);
    try {
      await useTransport(page, 'REST stream');
      await page.getByLabel('Message').fill('Tell me a very long story');
      await page.getByLabel('Message').press('Enter');
      const stop = page.getByRole('button', { name: 'Stop' });
      const reply = page.locator('li.message.agent').last();
      await expect.poll(() => reply.locator('.text').textContent()).toContain('word1');
      await stop.click();
      await expect.poll(() => model.aborted.length).toBe(1);
      await expect.poll(() => reply.getAttribute('class')).toContain('stopped');
      expect(await reply.getAttribute('class')).not.toContain('streaming');
      expect(await reply.locator('.stopped-label').textContent()).toBe('stopped');
      const own = page.locator('li.message.own', { hasText: 'Tell me a very long story' });
      expect(await own.getAttribute('class')).not.toContain('pending');
      expect(await own.locator('.message-error').count()).toBe(0);
      expect(await page.locator('#send-error').textContent()).toBe('');
      expect(await page.locator('.message-error').count()).toBe(0);
      await expect.poll(() => stop.isVisible()).toBe(false);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
      await app.server.stop();
    }
  });
});
