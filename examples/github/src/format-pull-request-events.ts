import { textAt, valueAt, type GithubPayload } from './github-payload';
import { targetedAction, commentVerb } from './format-issue-events';
import { actorOf, linkAt, quoteAt, repositoryOf, sentence } from './github-words';

function pullRequestOf(payload: GithubPayload): string {
  return `pull request #${textAt(payload, 'pull_request.number', textAt(payload, 'number', '?'))}`;
}

function titleOf(payload: GithubPayload): string {
  return textAt(payload, 'pull_request.title', '(untitled)');
}

/** What happened to a pull request, in words a person would use. */
function pullRequestAction(payload: GithubPayload, subject: string): string {
  switch (textAt(payload, 'action', '', 40)) {
    case 'opened': {
      const head = textAt(payload, 'pull_request.head.ref', '', 100);
      const base = textAt(payload, 'pull_request.base.ref', '', 100);
      return `opened ${subject}${head && base ? ` (${head} → ${base})` : ''}`;
    }
    case 'closed':
      return valueAt(payload, 'pull_request.merged') === true
        ? `merged ${subject}`
        : `closed ${subject} without merging`;
    case 'synchronize':
      return `pushed new commits to ${subject}`;
    case 'review_requested': {
      const reviewer = textAt(
        payload,
        'requested_reviewer.login',
        textAt(payload, 'requested_team.name', 'someone', 100),
        100,
      );
      return `requested a review from ${reviewer} on ${subject}`;
    }
    case 'review_request_removed':
      return `removed the review request for ${textAt(payload, 'requested_reviewer.login', textAt(payload, 'requested_team.name', 'someone', 100), 100)} on ${subject}`;
    case 'ready_for_review':
      return `marked ${subject} as ready for review`;
    case 'converted_to_draft':
      return `converted ${subject} to a draft`;
    case 'auto_merge_enabled':
      return `enabled auto-merge on ${subject}`;
    case 'auto_merge_disabled':
      return `disabled auto-merge on ${subject}`;
    case 'enqueued':
      return `added ${subject} to the merge queue`;
    case 'dequeued':
      return `removed ${subject} from the merge queue`;
    default:
      return targetedAction(payload, subject);
  }
}

/** `pull_request`: e.g. `Codertocat pushed new commits to pull request #2 in Codertocat/Hello-World: Update the README <link>`. */
export function formatPullRequest(payload: GithubPayload): string {
  return sentence(
    `${actorOf(payload)} ${pullRequestAction(payload, pullRequestOf(payload))} in ${repositoryOf(payload)}`,
    titleOf(payload),
    linkAt(payload, 'pull_request.html_url', 'repository.html_url'),
  );
}

function reviewVerb(payload: GithubPayload): string {
  const action = textAt(payload, 'action', 'submitted', 40);
  if (action === 'dismissed') return 'dismissed a review on';
  if (action === 'edited') return 'edited a review on';
  switch (textAt(payload, 'review.state', '', 40).toLowerCase()) {
    case 'approved':
      return 'approved';
    case 'changes_requested':
      return 'requested changes on';
    default:
      return 'reviewed';
  }
}

/** `pull_request_review`: approvals, requested changes, review comments, dismissals. */
export function formatPullRequestReview(payload: GithubPayload): string {
  return sentence(
    `${actorOf(payload)} ${reviewVerb(payload)} ${pullRequestOf(payload)} in ${repositoryOf(payload)}`,
    quoteAt(payload, 'review.body') ?? titleOf(payload),
    linkAt(payload, 'review.html_url', 'pull_request.html_url', 'repository.html_url'),
  );
}

/** `pull_request_review_comment`: a comment on a line of a pull request's diff. */
export function formatPullRequestReviewComment(payload: GithubPayload): string {
  const path = textAt(payload, 'comment.path', '', 200);
  return sentence(
    `${actorOf(payload)} ${commentVerb(payload)} ${pullRequestOf(payload)}${path ? ` (${path})` : ''} in ${repositoryOf(payload)}`,
    quoteAt(payload, 'comment.body') ?? titleOf(payload),
    linkAt(payload, 'comment.html_url', 'pull_request.html_url', 'repository.html_url'),
  );
}

/** `pull_request_review_thread`: a review thread resolved or reopened. */
export function formatPullRequestReviewThread(payload: GithubPayload): string {
  const resolved = textAt(payload, 'action', '', 40) === 'resolved';
  return sentence(
    `${actorOf(payload)} ${resolved ? 'resolved' : 'reopened'} a review thread on ${pullRequestOf(payload)} in ${repositoryOf(payload)}`,
    titleOf(payload),
    linkAt(payload, 'thread.comments.0.html_url', 'pull_request.html_url', 'repository.html_url'),
  );
}
