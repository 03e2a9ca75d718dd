import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

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

/** Starts headless Chromium; fails with a readable line when the package is not installed. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} is missing: install Debian's chromium package (apt-get install -y chromium)`,
    );
  }
  return chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
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
