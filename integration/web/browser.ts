import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContextOptions, type Page } from 'playwright-core';
import { vi } from 'vitest';

/** Debian's chromium package; `.ci/run` installs it when missing. No browser is ever downloaded. */
export const CHROMIUM = '/usr/bin/chromium';

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
];

/**
 * How long a wait may last before it is a failure, not how long anything should take. Every wait in these tests
 * is for a condition (a DOM state, an event, a request seen by a model), which on an idle machine holds within a
 * second or two; on a loaded two-core machine, beside another `check` and its Chromium, the same step has been
 * seen to take many times longer. So the bounds are generous, and a wait ends as soon as its condition holds.
 */
export const PATIENCE = { test: 240_000, condition: 90_000, action: 90_000 } as const;

/**
 * Call at the top of a Chromium test file: `expect.poll` waits up to {@link PATIENCE}.condition for its condition
 * (vitest's default is one second), and each test and hook up to {@link PATIENCE}.test.
 */
export function holdOnABusyMachine(): void {
  vi.setConfig({
    testTimeout: PATIENCE.test,
    hookTimeout: PATIENCE.test,
    expect: { poll: { timeout: PATIENCE.condition, interval: 50 } },
  });
}

/**
 * Starts headless Chromium; fails with a readable line when the package is not installed. Its contexts wait up to
 * {@link PATIENCE}.action for an element to be actionable or a page to load (Playwright's default is 30 s).
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} is missing: install Debian's chromium package (apt-get install -y chromium)`,
    );
  }
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (options?: BrowserContextOptions) => {
    const context = await newContext(options);
    context.setDefaultTimeout(PATIENCE.action);
    context.setDefaultNavigationTimeout(PATIENCE.action);
    return context;
  };
  return browser;
}

/**
 * Resolves once `page` has painted a frame and run the tasks queued before it: what the page was going to do
 * with what it has shown (an inline handler, an alert) has happened by then.
 */
export async function settled(page: Page): Promise<void> {
  await page.evaluate(
    'new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)))',
  );
}

/** Records what a page reports as broken (uncaught errors, console errors such as CSP violations). */
export function recordPageProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  return problems;
}

/**
 * Picks how the page sends ("Socket", "REST stream", "REST sync") in its settings panel, then closes the panel
 * with Escape, as a person would.
 */
export async function useTransport(page: Page, label: string): Promise<void> {
  const settings = page.getByRole('button', { name: 'Settings' });
  // On a phone the button is behind the menu, which is closed again afterwards.
  const menu = page.getByRole('button', { name: 'Channels' });
  const viaMenu = !(await settings.isVisible());
  if (viaMenu) await menu.click();
  await settings.click();
  await page.getByRole('dialog', { name: 'Settings' }).getByLabel(label, { exact: true }).check();
  await page.keyboard.press('Escape');
  await page.getByRole('dialog', { name: 'Settings' }).waitFor({ state: 'hidden' });
  if (viaMenu) await menu.click();
}
