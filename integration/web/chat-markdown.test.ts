import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdOnABusyMachine, launchChromium, useTransport } from './browser';
import { ask, MARKDOWN_REPLY, openChat, pageModel, screenshot, startPageServer } from './chat-app';

holdOnABusyMachine();

/**
 * Script that would run if any payload got through: each sets `window.__xss`. Markdown, links, images, raw HTML
 * (blocks and inline), mutation XSS, entities and case tricks: the classic ten and more.
 */
const PAYLOADS = [
  '<script>window.__xss = 1</script>',
  '<img src=x onerror="window.__xss = 2">',
  '[click me](javascript:window.__xss=3)',
  '![pic](x" onerror="window.__xss=4)',
  '<svg onload="window.__xss = 5"><circle r=1></svg>',
  '<iframe src="javascript:window.__xss=6"></iframe>',
  '<a href="javascript:window.__xss=7">raw link</a>',
  '[data](data:text/html,<script>window.__xss=8</script>)',
  '<details open ontoggle="window.__xss = 9">x</details>',
  '<math><mtext><table><mglyph><style><img src=x onerror="window.__xss=10">',
  'inline `<img src=x onerror=window.__xss=11>` code',
  '[case](JaVaScRiPt:window.__xss=12)',
  '<form action="javascript:window.__xss=13"><button>go</button></form>',
  '[entity](&#106;avascript:window.__xss=14)',
  '<style>body { display: none }</style><b style="color:red">styled</b>',
  '![tracker](https://evil.example/pixel.png)',
  '<div onmouseover="window.__xss=17">hover</div>',
  '```html\n<script>window.__xss=18</script>\n```',
] as const;

let browser: Browser;
const model = pageModel();
let app: Awaited<ReturnType<typeof startPageServer>>;

beforeAll(async () => {
  browser = await launchChromium();
  app = await startPageServer({ model });
});

afterAll(async () => {
  await app?.server.stop();
  await browser?.close();
});

/** Every element of the conversation that must never appear, and links that break the policy. */
async function unsafeMarkup(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(`(() => {
    const list = document.querySelector('.messages');
    const found = [];
    for (const element of list.querySelectorAll('script, img, iframe, svg, math, style, form, details, input, object, embed')) {
      found.push(element.outerHTML);
    }
    for (const element of list.querySelectorAll('.text *')) {
      for (const attribute of element.attributes) {
        if (/^on/i.test(attribute.name) || attribute.name === 'style') found.push(element.outerHTML);
      }
    }
    for (const link of list.querySelectorAll('.text a')) {
      const href = link.getAttribute('href');
      if (href === null) continue;
      if (!/^(https?:|mailto:)/.test(href) || link.target !== '_blank' || link.rel !== 'noopener noreferrer') {
        found.push(link.outerHTML);
      }
    }
    return found;
  })()`);
}

describe('markdown in the chat page', () => {
  it('renders **bold**, a highlighted code block and links from an agent reply as elements', async () => {
    const { context, page, problems, foreign } = await openChat(browser, app.url);
    try {
      const reply = await ask(page, 'show me markdown');
      const text = reply.locator('.text');
      expect(await text.locator('strong').textContent()).toBe('bold');
      expect(await text.locator('em').textContent()).toBe('emphasis');
      expect(await text.locator('p > code').textContent()).toBe('inline code');
      const code = text.locator('pre > code.hljs.language-ts');
      expect(await code.textContent()).toBe('const answer: number = 42;\n');
      expect(await code.locator('span.hljs-keyword').first().textContent()).toBe('const');
      const link = text.getByRole('link', { name: 'the docs' });
      expect(await link.getAttribute('href')).toBe('https://example.com/docs');
      expect(await link.getAttribute('target')).toBe('_blank');
      expect(await link.getAttribute('rel')).toBe('noopener noreferrer');
      expect(await text.getByRole('link', { name: 'us' }).getAttribute('href')).toBe(
        'mailto:team@example.com',
      );
      expect(await text.locator('li').allTextContents()).toEqual(['one', 'two']);
      // The user's own message is markdown too.
      await page.getByLabel('Message').fill('a **strong** word');
      await page.getByLabel('Message').press('Enter');
      await expect
        .poll(() => page.locator('li.message.own strong').last().textContent())
        .toBe('strong');

      // Copy puts the reply's markdown source on the clipboard.
      await context.grantPermissions(['clipboard-read', 'clipboard-write']);
      await reply.getByRole('button', { name: /^Copy what Eliza wrote/ }).click();
      await expect.poll(() => reply.locator('.copy').textContent()).toBe('Copied');
      expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(MARKDOWN_REPLY);

      await screenshot(page, 'chat-markdown-desktop');
      expect(problems).toEqual([]);
      expect(foreign).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('runs no script from any payload, as a user message or an agent reply, over every transport', async () => {
    const { context, page, problems, dialogs, foreign } = await openChat(browser, app.url);
    try {
      const replies = page.locator('li.message.agent:not(.streaming)');
      const transports = ['Socket', 'REST stream', 'REST sync'];
      for (const [index, payload] of PAYLOADS.entries()) {
        // A third of the payloads over each transport.
        if (index % 6 === 0) await useTransport(page, transports[index / 6]!);
        const before = await replies.count();
        await page.getByLabel('Message').fill(`echo: ${payload}`);
        await page.getByLabel('Message').press('Enter');
        await expect.poll(() => replies.count()).toBe(before + 1);
        expect(await page.evaluate('window.__xss'), `payload ${index + 1}`).toBeUndefined();
      }
      expect(await unsafeMarkup(page)).toEqual([]);
      // Raw HTML is shown as the text it is, not dropped.
      await expect
        .poll(() => page.locator('li.message.agent .text').allTextContents())
        .toContainEqual('Echo:<img src=x onerror="window.__xss = 2">');
      // A link with a refused target keeps its text, without a link.
      expect(
        await page.locator('li.message.agent .text', { hasText: 'click me' }).first().innerHTML(),
      ).not.toContain('href');
      // History renders the same way: reload and check again.
      await page.reload();
      await expect.poll(() => page.locator('li.message.agent').count()).toBe(PAYLOADS.length);
      expect(await unsafeMarkup(page)).toEqual([]);
      expect(await page.evaluate('window.__xss')).toBeUndefined();
      expect(dialogs).toEqual([]);
      expect(foreign).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('shows an empty reply as such, regenerates the last reply and announces each reply once', async () => {
    const { context, page, problems } = await openChat(browser, app.url);
    try {
      const empty = await ask(page, 'please say nothing');
      expect(await empty.locator('.text').textContent()).toBe('(empty reply)');

      // The live region hears one line per reply, when it ends: not each chunk.
      await page.evaluate(`
        window.spoken = [];
        const region = document.querySelector('[role=status][aria-live=polite].visually-hidden');
        new MutationObserver(() => window.spoken.push(region.textContent)).observe(region, {
          childList: true, characterData: true, subtree: true,
        });
      `);
      const reply = await ask(page, 'show me markdown please');
      await expect.poll(() => page.evaluate<string[]>('window.spoken')).toHaveLength(1);
      expect((await page.evaluate<string[]>('window.spoken'))[0]).toMatch(/^Eliza: Here is/);
      expect(await reply.getAttribute('aria-busy')).toBeNull();

      // Regenerate asks the server for another answer to the same message: a second reply, no second message.
      const agents = page.locator('li.message.agent');
      const count = await agents.count();
      await page.getByRole('button', { name: 'Regenerate' }).click();
      await expect.poll(() => agents.count()).toBe(count + 1);
      expect(await page.locator('li.message.own').count()).toBe(2);
      expect(await page.locator('li.message.own').last().textContent()).toContain(
        'show me markdown please',
      );
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

describe('colours and settings', () => {
  const background = (page: Page) =>
    page.evaluate<string>('getComputedStyle(document.documentElement).backgroundColor');
  const DARK = 'rgb(22, 22, 26)';
  const LIGHT = 'rgb(255, 255, 255)';

  it('follows prefers-color-scheme, and the toggle (light, dark, system) is remembered', async () => {
    const { context, page, problems } = await openChat(browser, app.url, { colorScheme: 'dark' });
    try {
      await ask(page, 'show me markdown');
      expect(await background(page)).toBe(DARK);
      await screenshot(page, 'chat-dark-desktop');
      await page.emulateMedia({ colorScheme: 'light' });
      expect(await background(page)).toBe(LIGHT);

      // The panel by keyboard: it opens on its first choice, Tab stays inside, Escape closes it.
      const settings = page.getByRole('button', { name: 'Settings' });
      await settings.focus();
      await page.keyboard.press('Enter');
      const dialog = page.getByRole('dialog', { name: 'Settings' });
      await expect.poll(() => dialog.isVisible()).toBe(true);
      for (let step = 0; step < 12; step += 1) {
        await page.keyboard.press('Tab');
        expect(
          await page.evaluate<boolean>(
            `document.querySelector('dialog').contains(document.activeElement)`,
          ),
        ).toBe(true);
      }
      await dialog.getByLabel('Dark', { exact: true }).check();
      expect(await background(page)).toBe(DARK);
      await page.keyboard.press('Escape');
      await expect.poll(() => dialog.isVisible()).toBe(false);
      expect(await page.evaluate<string>('document.activeElement.textContent')).toBe('Settings');

      // Remembered: still dark after a reload, with the system in light.
      await page.reload();
      await expect.poll(() => background(page)).toBe(DARK);
      await settings.click();
      await dialog.getByLabel('System', { exact: true }).check();
      expect(await background(page)).toBe(LIGHT);
      expect(await page.evaluate("localStorage.getItem('parley.theme')")).toBeNull();
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('screenshots on a phone (390×844), light and dark', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      const { context, page, problems } = await openChat(browser, app.url, {
        viewport: { width: 390, height: 844 },
        isMobile: true,
        hasTouch: true,
        colorScheme,
      });
      try {
        await ask(page, 'show me markdown');
        // The message list still takes most of the screen.
        const list = (await page.locator('.scroller').boundingBox())!;
        expect(list.height).toBeGreaterThanOrEqual(0.6 * 844);
        await screenshot(page, `chat-markdown-phone-${colorScheme}`);
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    }
  });
});
