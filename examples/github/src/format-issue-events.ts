import { textAt, type GithubPayload } from './github-payload';
import {
  actionOf,
  actorOf,
  issueKindOf,
  linkAt,
  quoteAt,
  repositoryOf,
  sentence,
  shortSha,
} from './github-words';

/** How an issue or pull request action reads after the actor, for actions that name someone or something. */
export function targetedAction(payload: GithubPayload, subject: string): string {
  const action = actionOf(payload);
  switch (textAt(payload, 'action', '', 40)) {
    case 'labeled':
      return `labeled ${subject} with "${textAt(payload, 'label.name', '?', 50)}"`;
    case 'unlabeled':
      return `removed the label "${textAt(payload, 'label.name', '?', 50)}" from ${subject}`;
    case 'assigned':
      return `assigned ${textAt(payload, 'assignee.login', 'someone', 100)} to ${subject}`;
    case 'unassigned':
      return `unassigned ${textAt(payload, 'assignee.login', 'someone', 100)} from ${subject}`;
    case 'milestoned':
      return `added ${subject} to milestone "${textAt(payload, 'milestone.title', '?', 100)}"`;
    case 'demilestoned':
      return `removed ${subject} from milestone "${textAt(payload, 'milestone.title', '?', 100)}"`;
    default:
      return `${action} ${subject}`;
  }
}

/** `issues`: `Codertocat opened issue #1 in Codertocat/Hello-World: Spelling error in the README file <link>`. */
export function formatIssue(payload: GithubPayload): string {
  const subject = `issue #${textAt(payload, 'issue.number', '?')}`;
  return sentence(
    `${actorOf(payload)} ${targetedAction(payload, subject)} in ${repositoryOf(payload)}`,
    textAt(payload, 'issue.title', '(untitled)'),
    linkAt(payload, 'issue.html_url', 'repository.html_url'),
  );
}

/** "commented on", or "edited a comment on" and the like for other comment actions. */
export function commentVerb(payload: GithubPayload): string {
  const action = textAt(payload, 'action', 'created', 40);
  if (action === 'created') return 'commented on';
  return `${action.replace(/_/g, ' ')} a comment on`;
}

/** `issue_comment`: comments on issues and on pull requests (GitHub files both under issues). */
export function formatIssueComment(payload: GithubPayload): string {
  const subject = `${issueKindOf(payload)} #${textAt(payload, 'issue.number', '?')}`;
  return sentence(
    `${actorOf(payload)} ${commentVerb(payload)} ${subject} in ${repositoryOf(payload)}`,
    quoteAt(payload, 'comment.body') ?? textAt(payload, 'issue.title', '(untitled)'),
    linkAt(payload, 'comment.html_url', 'issue.html_url', 'repository.html_url'),
  );
}

/** `commit_comment`: a comment on a commit. */
export function formatCommitComment(payload: GithubPayload): string {
  return sentence(
    `${actorOf(payload)} ${commentVerb(payload)} commit ${shortSha(payload, 'comment.commit_id')} in ${repositoryOf(payload)}`,
    quoteAt(payload, 'comment.body'),
    linkAt(payload, 'comment.html_url', 'repository.html_url'),
  );
}
