import type { Browser, Page, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startTestIssuer,
  TEST_RESOURCE,
  type TestIssuer,
  testKey,
} from '../../packages/server/src/identity/testing/oidc-issuer';
import { holdOnABusyMachine, launchChromium, recordPageProblems } from './browser';
import { ask, pageModel, screenshot, startPageServer } from './chat-app';

holdOnABusyMachine();

/**
 * Two people sign in to the chat page in Chromium through a real OIDC issuer (`oidc-provider`, its own login and
 * consent forms): authorization code with PKCE, the server trading the code. Each sees only their own channels
 * and replies; one cannot open the other's channel by its link; no token is kept in the browser's storage; a
 * reload signs the person in again without a prompt, and Sign out signs them out.
 */
const CLIENT_ID = 'parley-chat';

let browser: Browser;
let issuer: TestIssuer;
let app: Awaited<ReturnType<typeof startPageServer>>;

beforeAll(async () => {
  browser = await launchChromium();
  issuer = await startTestIssuer({
    people: { alice: { name: 'Alice' }, bob: { name: 'Bob' } },
    keys: [await testKey('page-key', 'ES256')],
  });
  app = await startPageServer({
    model: pageModel(),
    env: {
      AUTH_ISSUER: issuer.issuer,
      AUTH_AUDIENCE: TEST_RESOURCE,
      AUTH_WEB_CLIENT_ID: CLIENT_ID,
      AUTH_WEB_SCOPE: 'openid profile chat',
    },
  });
  issuer.registerWebClient(CLIENT_ID, [`${app.url}/`]);
});
afterAll(async () => {
  await app?.server.stop();
  await issuer?.close();
  await browser?.close();
});

/** A new browser for `login`: the page, what it reports as broken, and the token exchanges it made. */
async function visitor() {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  // The issuer's development login page imports a web font; nothing here leaves the machine.
  await context.route(/^https:\/\//, (route) => route.abort());
  const page = await context.newPage();
  const problems = recordPageProblems(page);
  const exchanges: Response[] = [];
  page.on('response', (response) => {
    if (response.url() === `${app.url}/api/auth/token`) exchanges.push(response);
  });
  return { context, page, problems, exchanges };
}

/** Signs `login` in from the page's Sign in button, through the issuer's login and consent forms. */
async function signIn(page: Page, login: string, name: string) {
  await page
    .getByRole('group', { name: 'Account' })
    .getByRole('button', { name: 'Sign in' })
    .click();
  await page.waitForURL((url) => url.href.startsWith(issuer.issuer));
  await page.locator('input[name=login]').fill(login);
  await page.locator('input[name=password]').fill('any password');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.waitForURL((url) => url.href.startsWith(app.url));
  await expect
    .poll(() => page.getByRole('group', { name: 'Account' }).textContent())
    .toContain(`Signed in as ${name}`);
  await expect.poll(() => page.getByLabel('Agent').locator('option').count()).toBeGreaterThan(0);
  await expect.poll(() => page.locator('.messages').getAttribute('data-joined')).toBeTruthy();
}

/** The channel open in the page (its id, from the address). */
const openChannel = (page: Page) => new URL(page.url()).hash.replace('#channel=', '');
/** The names in the page's channel list. */
const listed = (page: Page) => page.locator('.recent .channel-name').allTextContents();
/** What a person sees (not attributes, not hidden elements). */
const visibleText = (page: Page) => page.evaluate<string>('document.body.innerText');

describe('the chat page’s sign-in with an OIDC issuer', () => {
  it('two people signed in see only their own channels and replies; tokens stay out of storage', async () => {
    const alice = await visitor();
    const bob = await visitor();
    try {
      await alice.page.goto(app.url);
      // Before signing in: a Sign in button, and the page says to use it (no key prompt).
      await expect.poll(() => visibleText(alice.page)).toContain('Sign in to chat here');
      await signIn(alice.page, 'alice', 'Alice');
      expect((await alice.exchanges[0]!.json()) as unknown).toMatchObject({ success: true });
      await ask(alice.page, 'echo: the launch code is ALICE-7');
      const aliceChannel = openChannel(alice.page);
      await expect.poll(() => listed(alice.page)).toHaveLength(1);

      await bob.page.goto(app.url);
      await signIn(bob.page, 'bob', 'Bob');
      await ask(bob.page, 'echo: the vault number is BOB-3');
      await expect.poll(() => listed(bob.page)).toHaveLength(1);
      // Each list holds only its owner's channel: Bob's page never names Alice's, and the other way round.
      expect(await listed(bob.page)).not.toEqual(await listed(alice.page));
      expect(await visibleText(bob.page)).not.toContain('ALICE-7');
      await screenshot(bob.page, 'chat-signed-in');

      // Bob opens Alice's channel by its link: refused, and nothing of hers is shown.
      await bob.page.goto(`${app.url}/#channel=${aliceChannel}`);
      await expect.poll(() => visibleText(bob.page)).toMatch(/Could not join the channel/);
      await expect.poll(() => visibleText(bob.page)).toMatch(/Could not load the history/);
      expect(await visibleText(bob.page)).not.toContain('ALICE-7');
      expect(await bob.page.locator('li.message').count()).toBe(0);

      // The access token (and any refresh token) are in no storage of the page.
      const tokens = (await alice.exchanges[0]!.json()) as {
        data: { accessToken: string; refreshToken: string | null };
      };
      const stored = await alice.page.evaluate<string>(
        'JSON.stringify({ local: { ...localStorage }, session: { ...sessionStorage } })',
      );
      expect(stored).not.toContain(tokens.data.accessToken);
      expect(stored).not.toContain(tokens.data.accessToken.split('.')[1]);
      if (tokens.data.refreshToken) expect(stored).not.toContain(tokens.data.refreshToken);
      // Cookies are the issuer's own session (cookies do not tell ports apart); none holds a token.
      const cookies = await alice.context.cookies(app.url);
      for (const cookie of cookies) {
        expect(cookie.value).not.toContain(tokens.data.accessToken.split('.')[1]);
      }

      // A reload signs Alice in again without a prompt (her session at the issuer) and shows her channel.
      await alice.page.reload();
      await expect
        .poll(() => alice.page.getByRole('group', { name: 'Account' }).textContent())
        .toContain('Signed in as Alice');
      expect(openChannel(alice.page)).toBe(aliceChannel);
      await expect.poll(() => visibleText(alice.page)).toContain('ALICE-7');

      // Sign out: the page is nobody again, and shows nothing of Alice's.
      await alice.page.getByRole('button', { name: 'Sign out' }).click();
      await expect
        .poll(() => alice.page.getByRole('group', { name: 'Account' }).textContent())
        .toContain('Sign in');
      await expect.poll(() => visibleText(alice.page)).not.toContain('ALICE-7');

      for (const problems of [alice.problems, bob.problems]) {
        // Refusals the page shows are console errors of failed requests (403, 401), and the issuer's login page
        // reports the web font this test keeps it from fetching (ERR_FAILED); nothing else may break.
        expect(problems.filter((line) => !/status of 40[13]|net::ERR_FAILED/.test(line))).toEqual(
          [],
        );
      }
    } finally {
      await alice.context.close();
      await bob.context.close();
    }
  });
});
