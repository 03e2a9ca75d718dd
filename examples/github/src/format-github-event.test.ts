import examples from '@octokit/webhooks-examples';
import { describe, expect, it } from 'vitest';
import { FORMATTED_GITHUB_EVENTS, formatGithubEvent } from './format-github-event';
import type { GithubPayload } from './github-payload';

const repository = { full_name: 'octo/repo', html_url: 'https://github.com/octo/repo' };
const sender = { login: 'alice' };

/** The first recorded payload of a kind (and action), as GitHub sent it. */
function recorded(event: string, action?: string): GithubPayload {
  const definition = examples.find((item) => item.name === event);
  const payload = definition?.examples.find(
    (example) => action === undefined || (example as { action?: string }).action === action,
  );
  if (!payload) throw new Error(`no recorded ${event} ${action ?? ''}`);
  return payload as unknown as GithubPayload;
}

function recordedPush(match: (payload: Record<string, unknown>) => boolean): GithubPayload {
  const push = examples.find((item) => item.name === 'push')!;
  return push.examples.find((example) =>
    match(example as unknown as Record<string, unknown>),
  ) as unknown as GithubPayload;
}

describe('formatGithubEvent, on payloads GitHub recorded', () => {
  it.each([
    [
      'pull_request',
      'synchronize',
      'Codertocat pushed new commits to pull request #2 in Codertocat/Hello-World: Update the README with new information. https://github.com/Codertocat/Hello-World/pull/2',
    ],
    [
      'pull_request',
      'opened',
      'Codertocat opened pull request #2 (changes → master) in Codertocat/Hello-World: Update the README with new information. https://github.com/Codertocat/Hello-World/pull/2',
    ],
    [
      'release',
      'published',
      'Codertocat published release 0.0.1 in Codertocat/Hello-World https://github.com/Codertocat/Hello-World/releases/tag/0.0.1',
    ],
    [
      'check_run',
      'completed',
      'Check "Octocoders-linter" failed on changes (ec26c3e) in Codertocat/Hello-World https://github.com/Codertocat/Hello-World/runs/128620228',
    ],
    [
      'check_suite',
      'completed',
      'Checks by octocoders-linter succeeded on changes (ec26c3e) in Codertocat/Hello-World https://github.com/Codertocat/Hello-World/commit/ec26c3e57ca3a959ca5aad62de7213c562f8c821',
    ],
    [
      'issue_comment',
      'created',
      'Codertocat commented on issue #1 in Codertocat/Hello-World: "You are totally right! I\'ll get this fixed right away." https://github.com/Codertocat/Hello-World/issues/1#issuecomment-492700400',
    ],
    [
      'pull_request_review_comment',
      'created',
      'Codertocat commented on pull request #2 (README.md) in Codertocat/Hello-World: "Maybe you should use more emoji on this line." https://github.com/Codertocat/Hello-World/pull/2#discussion_r284312630',
    ],
    [
      'star',
      'created',
      'Codertocat starred Codertocat/Hello-World https://github.com/Codertocat/Hello-World',
    ],
    [
      'fork',
      undefined,
      'Octocoders forked Codertocat/Hello-World to Octocoders/Hello-World https://github.com/Octocoders/Hello-World',
    ],
    [
      'create',
      undefined,
      'Codertocat created tag simple-tag in Codertocat/Hello-World https://github.com/Codertocat/Hello-World/tree/simple-tag',
    ],
    [
      'delete',
      undefined,
      'Codertocat deleted tag simple-tag in Codertocat/Hello-World https://github.com/Codertocat/Hello-World',
    ],
    [
      'discussion',
      'created',
      'Codertocat started discussion #90 in octo-org/octo-repo: Welcome to discussions! https://github.com/octo-org/octo-repo/discussions/90',
    ],
    [
      'deployment_status',
      'created',
      'Deployment of master to production in Codertocat/Hello-World: success https://github.com/Codertocat/Hello-World/deployments',
    ],
    [
      'workflow_run',
      'completed',
      'Workflow "Manually triggered workflow" run #36 completed on main in Codertocat/Hello-World (triggered by Codertocat) https://github.com/octo-org/octo-repo/actions/runs/1589141559',
    ],
  ])('%s %s', (event, action, text) => {
    expect(formatGithubEvent(event, recorded(event, action))).toBe(text);
  });

  it('names a pushed tag, a deleted tag, and a new branch, with a link', () => {
    expect(
      formatGithubEvent(
        'push',
        recordedPush((p) => p.created === true && String(p.ref).startsWith('refs/tags/')),
      ),
    ).toBe(
      'Codertocat pushed tag simple-tag to Codertocat/Hello-World https://github.com/Codertocat/Hello-World/compare/simple-tag',
    );
    expect(
      formatGithubEvent(
        'push',
        recordedPush((p) => p.deleted === true),
      ),
    ).toBe(
      'Codertocat deleted tag simple-tag in Codertocat/Hello-World https://github.com/Codertocat/Hello-World',
    );
    expect(
      formatGithubEvent(
        'push',
        recordedPush((p) => p.ref === 'refs/heads/master'),
      ),
    ).toMatch(
      /^Codertocat created branch master in Codertocat\/Hello-World with 1 commit: .+ https:\/\/github\.com\/Codertocat\/Hello-World\/commit\/6113728/,
    );
  });

  it('gives every posted line an actor or subject, the repository and an https link, on one line', () => {
    for (const definition of examples) {
      for (const payload of definition.examples) {
        const text = formatGithubEvent(definition.name, payload as unknown as GithubPayload);
        if (text === undefined) continue;
        expect(text, definition.name).not.toMatch(/[\r\n]/);
        expect(text, definition.name).toMatch(/ https:\/\/\S+$/);
        const full = (payload as { repository?: { full_name?: string } }).repository?.full_name;
        if (full) expect(text, definition.name).toContain(full);
      }
    }
  });

  it('posts at least one recorded payload of every kind it formats', () => {
    const posted = new Set(
      examples
        .filter((definition) =>
          definition.examples.some(
            (payload) =>
              formatGithubEvent(definition.name, payload as unknown as GithubPayload) !== undefined,
          ),
        )
        .map((definition) => definition.name),
    );
    const recordedKinds = new Set(examples.map((definition) => definition.name));
    for (const kind of FORMATTED_GITHUB_EVENTS) {
      if (recordedKinds.has(kind)) expect(posted, kind).toContain(kind);
    }
  });
});

describe('formatGithubEvent, edge cases', () => {
  it('summarises a push: who, how many commits, where, the first commit lines and the compare link', () => {
    const text = formatGithubEvent('push', {
      ref: 'refs/heads/main',
      repository,
      sender,
      compare: 'https://github.com/octo/repo/compare/a...b',
      commits: [
        { message: 'Fix the parser\n\nLong explanation' },
        { message: 'Add docs' },
        { message: 'Bump version' },
        { message: 'Tidy up' },
      ],
    });
    expect(text).toBe(
      'alice pushed 4 commits to main in octo/repo: Fix the parser; Add docs; Bump version; and 1 more https://github.com/octo/repo/compare/a...b',
    );
  });

  it('says "1 commit", "force-pushed" and reports a deleted branch', () => {
    const push = { ref: 'refs/heads/x', repository, sender, commits: [{ message: 'One' }] };
    expect(formatGithubEvent('push', push)).toBe(
      'alice pushed 1 commit to x in octo/repo: One https://github.com/octo/repo',
    );
    expect(formatGithubEvent('push', { ...push, forced: true })).toBe(
      'alice force-pushed 1 commit to x in octo/repo: One https://github.com/octo/repo',
    );
    expect(formatGithubEvent('push', { ...push, commits: [], deleted: true })).toBe(
      'alice deleted branch x in octo/repo https://github.com/octo/repo',
    );
  });

  it('says merged or closed without merging, approved or requested changes', () => {
    const pullRequest = { number: 5, title: 'Add X', merged: true };
    expect(
      formatGithubEvent('pull_request', {
        action: 'closed',
        pull_request: pullRequest,
        repository,
        sender,
      }),
    ).toBe('alice merged pull request #5 in octo/repo: Add X https://github.com/octo/repo');
    expect(
      formatGithubEvent('pull_request', {
        action: 'closed',
        pull_request: { ...pullRequest, merged: false },
        repository,
        sender,
      }),
    ).toBe(
      'alice closed pull request #5 without merging in octo/repo: Add X https://github.com/octo/repo',
    );
    const review = (state: string) =>
      formatGithubEvent('pull_request_review', {
        action: 'submitted',
        review: { state, body: 'LGTM\nmore' },
        pull_request: pullRequest,
        repository,
        sender,
      });
    expect(review('approved')).toBe(
      'alice approved pull request #5 in octo/repo: "LGTM" https://github.com/octo/repo',
    );
    expect(review('changes_requested')).toMatch(/^alice requested changes on pull request #5/);
  });

  it('posts only finished runs and checks', () => {
    expect(formatGithubEvent('workflow_run', { action: 'requested', repository })).toBeUndefined();
    expect(
      formatGithubEvent('workflow_run', {
        action: 'completed',
        workflow_run: { name: 'CI', conclusion: 'failure', head_branch: 'main', run_number: 7 },
        repository,
        sender,
      }),
    ).toBe(
      'Workflow "CI" run #7 failed on main in octo/repo (triggered by alice) https://github.com/octo/repo',
    );
  });

  it('never links anything but https', () => {
    const text = formatGithubEvent('issues', {
      action: 'opened',
      issue: { number: 1, title: 'x', html_url: 'javascript:alert(1)' },
      repository: { full_name: 'octo/repo' },
      sender,
    });
    expect(text).toBe('alice opened issue #1 in octo/repo: x');
  });

  it('uses neutral words for missing fields instead of throwing, and skips unknown kinds', () => {
    expect(formatGithubEvent('push', {})).toBe('someone pushed to a branch in a repository');
    expect(formatGithubEvent('issues', { issue: 'not an object' })).toBe(
      'someone updated issue #? in a repository: (untitled)',
    );
    expect(formatGithubEvent('installation', { repository })).toBeUndefined();
    expect(formatGithubEvent('constructor', {})).toBeUndefined();
    expect(formatGithubEvent('__proto__', {})).toBeUndefined();
  });
});
