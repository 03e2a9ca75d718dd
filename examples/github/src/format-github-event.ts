import {
  formatCheckRun,
  formatCheckSuite,
  formatDeployment,
  formatDeploymentReview,
  formatDeploymentStatus,
  formatStatus,
  formatWorkflowDispatch,
  formatWorkflowRun,
} from './format-ci-events';
import { formatDiscussion, formatDiscussionComment } from './format-discussion-events';
import { formatCommitComment, formatIssue, formatIssueComment } from './format-issue-events';
import {
  formatPullRequest,
  formatPullRequestReview,
  formatPullRequestReviewComment,
  formatPullRequestReviewThread,
} from './format-pull-request-events';
import { formatPush } from './format-push';
import {
  formatBranchProtectionRule,
  formatCreate,
  formatDelete,
  formatFork,
  formatGollum,
  formatMember,
  formatMilestone,
  formatPackage,
  formatPing,
  formatPublic,
  formatRelease,
  formatRepository,
  formatStar,
  formatWatch,
} from './format-repository-events';
import {
  formatCodeScanningAlert,
  formatDependabotAlert,
  formatSecretScanningAlert,
} from './format-security-events';
import type { GithubPayload } from './github-payload';

type Formatter = (payload: GithubPayload) => string | undefined;

/**
 * Every GitHub event kind this plugin posts, with its formatter. Kinds about the app, the organization or
 * billing (installation, marketplace_purchase, sponsorship, team, org_block, meta…) and per-job noise
 * (workflow_job, check runs or workflow runs that have not completed yet) are acknowledged and not posted.
 */
const FORMATTERS = {
  ping: formatPing,
  push: formatPush,
  issues: formatIssue,
  issue_comment: formatIssueComment,
  commit_comment: formatCommitComment,
  pull_request: formatPullRequest,
  pull_request_review: formatPullRequestReview,
  pull_request_review_comment: formatPullRequestReviewComment,
  pull_request_review_thread: formatPullRequestReviewThread,
  release: formatRelease,
  workflow_run: formatWorkflowRun,
  workflow_dispatch: formatWorkflowDispatch,
  check_suite: formatCheckSuite,
  check_run: formatCheckRun,
  status: formatStatus,
  deployment: formatDeployment,
  deployment_status: formatDeploymentStatus,
  deployment_review: formatDeploymentReview,
  create: formatCreate,
  delete: formatDelete,
  fork: formatFork,
  star: formatStar,
  watch: formatWatch,
  public: formatPublic,
  member: formatMember,
  repository: formatRepository,
  gollum: formatGollum,
  package: formatPackage,
  milestone: formatMilestone,
  branch_protection_rule: formatBranchProtectionRule,
  discussion: formatDiscussion,
  discussion_comment: formatDiscussionComment,
  dependabot_alert: formatDependabotAlert,
  code_scanning_alert: formatCodeScanningAlert,
  secret_scanning_alert: formatSecretScanningAlert,
} satisfies Record<string, Formatter>;

/** GitHub event kinds this plugin turns into a message; others are acknowledged and not posted. */
export const FORMATTED_GITHUB_EVENTS = Object.keys(FORMATTERS) as (keyof typeof FORMATTERS)[];

/**
 * A readable one-line message for a GitHub event, with actor, repository, what happened and a link, e.g.
 * `Codertocat pushed new commits to pull request #2 in Codertocat/Hello-World: Update the README with new
 * information. https://github.com/Codertocat/Hello-World/pull/2`; undefined for a kind or action this plugin does
 * not post. Missing payload fields get neutral words, never an exception: the payload is the sender's, not ours.
 */
export function formatGithubEvent(event: string, payload: GithubPayload): string | undefined {
  if (!Object.hasOwn(FORMATTERS, event)) return undefined;
  return FORMATTERS[event as keyof typeof FORMATTERS](payload);
}
