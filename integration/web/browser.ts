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
