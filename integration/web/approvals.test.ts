import { mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { approvalModel, approvalPlugin, deployedText } from '../support/approval-agent';
import { holdOnABusyMachine, launchChromium, recordPageProblems, useTransport } from './browser';
import { startApp } from './tool-app';

holdOnABusyMachine();

/** Where screenshots go when set (`SCREENSHOT_DIR=/tmp` → `/tmp/approval-card.png`). */
const SCREENSHOT_DIR = process.env.SCREENSHOT_DIR;
const REASON_LABEL = 'Reason for a denial (optional)';

/** Opens the page; records its problems and the decisions it posts over REST. */
async function openPage(context: BrowserContext, url: string) {
  const page = await context.newPage();
  const problems = recordPageProblems(page);
  const posts: unknown[] = [];
  page.on('request', (request) => {
    if (request.method() === 'POST' && request.url().endsWith('/approvals')) {
      posts.push(request.postDataJSON());
    }
  });
  await page.goto(url);
  await expect.poll(() => page.getByLabel('Agent').locator('option').count()).toBeGreaterThan(0);
  // In the channel's room: a second tab opened on the channel hears what happens there from now on.
  await expect.poll(() => page.locator('.messages').getAttribute('data-joined')).toBeTruthy();
  return { page, problems, posts };
}

/** The agent reply that answers `text`: the agent bubble after the user's bubble with that text. */
function replyTo(page: Page, text: string): Locator {
  return page
    .locator('li.message.own', { hasText: text })
    .locator('xpath=following-sibling::li[contains(@class,"agent")][1]');
}

/** Sends `text` through `mode` (the radio's label). */
async function send(page: Page, text: string, mode: string): Promise<void> {
  await useTransport(page, mode);
  await page.getByLabel('Message').fill(text);
  await page.getByLabel('Message').press('Enter');
}

/** The card of the DEPLOY call in `reply`, once it waits for a decision. */
async function waitingCard(reply: Locator): Promise<Locator> {
  const card = reply.getByRole('region', { name: 'Tool DEPLOY' });
  await expect.poll(() => card.getAttribute('data-state')).toBe('awaiting');
  expect(await card.locator('.tool-state').textContent()).toBe('waits for approval');
  expect(await card.getByRole('button', { name: 'Approve' }).isEnabled()).toBe(true);
  expect(await card.getByRole('button', { name: 'Deny' }).isEnabled()).toBe(true);
  expect(await card.locator('.tool-input pre').textContent()).toContain('"target": "prod"');
  return card;
}

/** Whether the card's Approve, Deny and reason are all disabled. */
async function controlsDisabled(card: Locator): Promise<boolean> {
  const states = await Promise.all([
    card.getByRole('button', { name: 'Approve' }).isDisabled(),
    card.getByRole('button', { name: 'Deny' }).isDisabled(),
    card.getByLabel(REASON_LABEL).isDisabled(),
  ]);
  return states.every(Boolean);
}

let browser: Browser;
let app: Awaited<ReturnType<typeof startApp>>;
/** Targets of the DEPLOY calls that ran. */
const ran: string[] = [];

beforeAll(async () => {
  browser = await launchChromium();
  app = await startApp({ model: approvalModel(), plugins: [approvalPlugin(ran)] });
});
beforeEach(() => {
  ran.length = 0;
});
afterAll(async () => {
  await app?.stop();
  await browser?.close();
});

describe('approvals on the chat page (scripted model, DEPLOY needs approval)', () => {
  it('socket: Approve (by keyboard) makes the reply go on; another tab’s buttons close with the result', async () => {
    const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    try {
      const { page, problems, posts } = await openPage(context, app.url);
      // A second tab on the same channel hears the same request.
      const other = await openPage(context, page.url());
      await send(page, 'please deploy', 'Socket');
      const reply = replyTo(page, 'please deploy');
      const card = await waitingCard(reply);
      const otherCard = await waitingCard(replyTo(other.page, 'please deploy'));
      // The question is in the conversation, and screen readers hear it from the page's live region (the log
      // itself is silent: it would read every chunk); the reply stays open.
      const log = page.getByRole('log');
      expect(await log.getAttribute('aria-live')).toBe('off');
      expect(await log.locator('.approval-question').textContent()).toContain(
        'Approval needed: may the agent run DEPLOY?',
      );
      await expect
        .poll(() => page.locator('[role=status][aria-live=polite].visually-hidden').textContent())
        .toContain('asks to approve DEPLOY');
      expect(await reply.getAttribute('class')).toContain('streaming');
      // Waiting for a person is not busy: a busy region's changes are held back from screen readers.
      expect(await reply.getAttribute('aria-busy')).toBeNull();
      expect(await card.getAttribute('aria-busy')).toBe('false');
      expect(ran).toEqual([]);
      // The status line says what the agent does: it waits for a person, it is not "replying".
      await expect
        .poll(() => page.locator('.typing').textContent())
        .toMatch(/is waiting for your approval$/);
      expect(await page.locator('.members').getAttribute('data-agent')).toBe('waiting');
      if (SCREENSHOT_DIR) {
        await mkdir(SCREENSHOT_DIR, { recursive: true });
        const path = join(SCREENSHOT_DIR, 'approval-card.png');
        await page.screenshot({ path });
        expect((await stat(path)).size).toBeGreaterThan(10_000);
      }

      await card.getByRole('button', { name: 'Approve' }).focus();
      await page.keyboard.press('Enter');
      await expect.poll(() => card.getAttribute('data-state')).toBe('done');
      expect(await card.locator('.tool-output pre').textContent()).toBe(deployedText('prod'));
      await expect
        .poll(() => reply.locator('.text').textContent())
        .toBe(`The tool said: ${deployedText('prod')}`);
      await expect.poll(() => reply.getAttribute('class')).not.toContain('streaming');
      // Done: idle, and the presence line names the agent, not "no one".
      await expect.poll(() => page.locator('.typing').textContent()).toBe('');
      expect(await page.locator('.members').textContent()).not.toContain('No one');
      expect(await controlsDisabled(card)).toBe(true);
      expect(await card.locator('.approval-status').textContent()).toBe('Approved: the call runs.');
      // Focus stays on the panel for keyboard users.
      expect(await page.evaluate<string>('document.activeElement?.className')).toBe(
        'approval-status',
      );

      // Decided in the first tab: the second one's controls close when the call's result arrives.
      await expect.poll(() => otherCard.getAttribute('data-state')).toBe('done');
      expect(await controlsDisabled(otherCard)).toBe(true);
      expect(await otherCard.locator('.approval-status').textContent()).toBe(
        'No longer waiting for a decision.',
      );
      // Over the socket transport, the decision went over the socket.
      expect(posts).toEqual([]);
      expect(ran).toEqual(['prod']);
      expect(await page.locator('#send-error').textContent()).toBe('');
      expect([...problems, ...other.problems]).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('REST stream: Deny with a reason; the open stream goes on, the answer tells the denial, nothing ran', async () => {
    const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    try {
      const { page, problems, posts } = await openPage(context, app.url);
      await send(page, 'deploy it', 'REST stream');
      const reply = replyTo(page, 'deploy it');
      const card = await waitingCard(reply);
      expect(await reply.getAttribute('class')).toContain('streaming');

      const reason = card.getByLabel(REASON_LABEL);
      await reason.fill('not on a Friday');
      await reason.press('Enter');
      await expect.poll(() => card.getAttribute('data-state')).toBe('error');
      expect(await card.locator('.tool-error pre').textContent()).toContain('not on a Friday');
      await expect
        .poll(() => reply.locator('.text').textContent())
        .toContain('A person denied this call: not on a Friday');
      await expect.poll(() => reply.getAttribute('class')).not.toContain('streaming');
      // The answer's text came by the same server-sent events response that carried the request.
      expect(await reply.getAttribute('data-sources')).toContain('sse');
      expect(await controlsDisabled(card)).toBe(true);
      expect(await card.locator('.approval-status').textContent()).toBe('Denied: not on a Friday.');
      expect(posts).toEqual([
        { toolCallId: expect.any(String), approved: false, reason: 'not on a Friday' },
      ]);
      expect(ran).toEqual([]);
      expect(await page.locator('#send-error').textContent()).toBe('');
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('REST sync: a call decided elsewhere shows the 409 inline; the other call is approved here', async () => {
    const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    try {
      const { page, problems, posts } = await openPage(context, app.url);
      await send(page, 'deploy twice', 'REST sync');
      const reply = replyTo(page, 'deploy twice');
      const cards = reply.locator('.tool-card');
      await expect.poll(() => cards.count()).toBe(2);
      const [staging, prod] = [cards.nth(0), cards.nth(1)];
      await expect.poll(() => staging.getAttribute('data-state')).toBe('awaiting');
      await expect.poll(() => prod.getAttribute('data-state')).toBe('awaiting');

      // Another client decides the first call; the reply still waits for the second, so the page has no result.
      const replyId = await reply.getAttribute('data-message-id');
      const toolCallId = await staging.getAttribute('data-tool-call-id');
      const elsewhere = await fetch(`${app.url}/api/messaging/replies/${replyId}/approvals`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ toolCallId, approved: true }),
      });
      expect(elsewhere.status).toBe(202);
      await staging.getByRole('button', { name: 'Approve' }).click();
      const refusal = staging.getByRole('alert');
      await expect
        .poll(() => refusal.textContent())
        .toBe('Not decided: This approval request was already decided or has expired (CONFLICT)');
      expect(await controlsDisabled(staging)).toBe(true);

      await prod.getByRole('button', { name: 'Approve' }).click();
      await expect.poll(() => prod.getAttribute('data-state')).toBe('done');
      await expect.poll(() => staging.getAttribute('data-state')).toBe('done');
      await expect
        .poll(() => reply.locator('.text').textContent())
        .toBe(`The tool said: ${deployedText('staging')} | ${deployedText('prod')}`);
      expect([...ran].sort()).toEqual(['prod', 'staging']);
      // Over REST (the transport in use): the refused decision, then the one taken.
      expect(posts).toEqual([
        { toolCallId, approved: true },
        { toolCallId: await prod.getAttribute('data-tool-call-id'), approved: true },
      ]);
      // The only problem: Chromium's console line for the 409 response.
      expect(problems).toEqual([expect.stringMatching(/status of 409/)]);
    } finally {
      await context.close();
    }
  });
});
