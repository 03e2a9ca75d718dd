import { describe, expect, it } from 'vitest';
import { formatGithubEvent } from './format-github-event';

const repository = { full_name: 'octo/repo' };
const sender = { login: 'alice' };

describe('formatGithubEvent', () => {
  it('summarises a push: who, how many commits, where, and the first commit lines', () => {
    const text = formatGithubEvent('push', {
      ref: 'refs/heads/main',
      repository,
      sender,
      commits: [
        { message: 'Fix the parser\n\nLong explanation' },
        { message: 'Add docs' },
        { message: 'Bump version' },
        { message: 'Tidy up' },
      ],
    });
    expect(text).toBe(
      'alice pushed 4 commits to octo/repo (main): Fix the parser; Add docs; Bump version; and 1 more',
    );
  });

  it('says "1 commit" and reports a deleted branch', () => {
    expect(
      formatGithubEvent('push', {
        ref: 'refs/heads/x',
        repository,
        sender,
        commits: [{ message: 'One' }],
      }),
    ).toBe('alice pushed 1 commit to octo/repo (x): One');
    expect(
      formatGithubEvent('push', { ref: 'refs/heads/x', repository, sender, deleted: true }),
    ).toBe('alice deleted octo/repo (x)');
  });

  it('describes issues and pull requests, a merged close as "merged"', () => {
    expect(
      formatGithubEvent('issues', {
        action: 'opened',
        issue: {
          number: 12,
          title: 'Crash on start',
          html_url: 'https://github.com/octo/repo/issues/12',
        },
        repository,
        sender,
      }),
    ).toBe(
      'alice opened issue #12 in octo/repo: Crash on start https://github.com/octo/repo/issues/12',
    );
    expect(
      formatGithubEvent('pull_request', {
        action: 'closed',
        number: 5,
        pull_request: {
          number: 5,
          title: 'Add X',
          merged: true,
          head: { ref: 'feat' },
          base: { ref: 'main' },
        },
        repository,
        sender,
      }),
    ).toBe('alice merged pull request #5 in octo/repo: Add X (feat → main)');
  });

  it('greets a ping with the zen line', () => {
    expect(formatGithubEvent('ping', { zen: 'Keep it simple.', repository })).toBe(
      'GitHub webhook connected for octo/repo: "Keep it simple."',
    );
  });

  it('uses neutral words for missing fields instead of throwing, and skips other events', () => {
    expect(formatGithubEvent('push', {})).toBe(
      'someone pushed 0 commits to a repository (a branch)',
    );
    expect(formatGithubEvent('issues', { issue: 'not an object' })).toBe(
      'someone updated issue #? in a repository: (untitled)',
    );
    expect(formatGithubEvent('star', { repository })).toBeUndefined();
    expect(formatGithubEvent('constructor', {})).toBeUndefined();
  });
});
