import { apiSuccessSchema, uuidSchema, type ErrorCode } from '@parley/core';
import { z } from 'zod';
import { createAgentBodySchema, updateAgentBodySchema } from '../../http/routes/agent-routes';
import { createJobBodySchema, listJobsQuerySchema } from '../../http/routes/job-routes';
import { listRunsQuerySchema } from '../../http/routes/run-routes';
import type { DocumentedOperation } from './built-in-operations';

const agentId = { agentId: uuidSchema };
const agents = { tag: 'agents', auth: ['apiKey'] as const };
/** elizaOS's `RunSummary`. */
const runSummarySchema = z.object({
  runId: z.string(),
  status: z.enum(['completed', 'error', 'started']),
  startedAt: z.number().nullable(),
  endedAt: z.number().nullable(),
  durationMs: z.number().nullable(),
  messageId: z.string().optional(),
  roomId: z.string().optional(),
  entityId: z.string().optional(),
  counts: z.object({
    actions: z.number().int(),
    modelCalls: z.number().int(),
    errors: z.number().int(),
    evaluators: z.number().int(),
  }),
});
const MANAGED: ErrorCode[] = ['FORBIDDEN', 'BAD_REQUEST', 'NOT_FOUND', 'UNAVAILABLE'];
const OFF =
  ' Only with `AGENT_MANAGEMENT=true`: otherwise 403 naming the setting, before the body is read.';

const status = z.enum(['active', 'inactive']);
const agentListItemSchema = z.object({
  id: z.string(),
  name: z.string(),
  characterName: z.string(),
  bio: z.string().describe("The first line of the character's bio."),
  status,
});
const agentSchema = z
  .looseObject({
    id: z.string(),
    name: z.string(),
    enabled: z.boolean(),
    status,
    createdAt: z.number().describe('Epoch ms.'),
    updatedAt: z.number().describe('Epoch ms.'),
    source: z.enum(['configuration', 'api']),
    character: z.record(z.string(), z.unknown()).describe('The character, secrets masked.'),
    loadedPlugins: z.array(z.string()),
    actions: z.array(
      z.object({
        name: z.string(),
        toolName: z.string(),
        description: z.string(),
        plugin: z.string(),
      }),
    ),
  })
  .describe(
    "elizaOS's `Agent`: the character's fields at the top level, then Parley's. Every value of `secrets`, and " +
      'of every setting whose name looks secret, is `[redacted]`.',
  );
const runningSchema = z.object({ id: z.string(), name: z.string(), status });

/** Agents as a resource (`http/routes/agent-routes.ts`). */
export const AGENT_OPERATIONS: readonly DocumentedOperation[] = [
  {
    ...agents,
    method: 'get',
    path: '/api/agents',
    operationId: 'listAgents',
    summary: 'List the agents',
    description: 'The first agent is the default agent. `inactive`: stopped (it answers nothing).',
    responses: {
      200: {
        description: 'The agents.',
        json: apiSuccessSchema(z.object({ agents: z.array(agentListItemSchema) })),
      },
    },
    errors: [],
  },
  {
    ...agents,
    method: 'get',
    path: '/api/agents/:agentId',
    operationId: 'getAgent',
    summary: 'One agent: its character (secrets masked), plugins, actions and status',
    pathParams: agentId,
    responses: { 200: { description: 'The agent.', json: apiSuccessSchema(agentSchema) } },
    errors: ['BAD_REQUEST', 'NOT_FOUND', 'UNAVAILABLE'],
  },
  {
    ...agents,
    method: 'get',
    path: '/api/agents/:agentId/panels',
    operationId: 'getAgentPanels',
    summary: "An agent's panels (elizaOS's `agents.getAgentPanels`)",
    description:
      "The agent's plugins' routes that are `public` and have a `name` (GET or STATIC), each with the path " +
      'that serves it for this agent (`?agentId=`).',
    pathParams: agentId,
    responses: {
      200: {
        description: 'The panels, in plugin order.',
        json: apiSuccessSchema(z.array(z.object({ name: z.string(), path: z.string() }))),
      },
    },
    errors: ['BAD_REQUEST', 'NOT_FOUND', 'UNAVAILABLE'],
  },
  {
    ...agents,
    method: 'get',
    path: '/api/agents/:agentId/runs',
    operationId: 'listAgentRuns',
    summary: "An agent's runs (elizaOS's `runs.listRuns`)",
    description:
      "A run is one of the agent's stored replies, newest first; `hasMore` says whether older ones are left. " +
      '`limit` above the maximum is clamped to it, as elizaOS does.',
    pathParams: agentId,
    query: listRunsQuerySchema,
    responses: {
      200: {
        description: 'The runs.',
        json: apiSuccessSchema(
          z.object({
            runs: z.array(runSummarySchema),
            total: z.number().int(),
            hasMore: z.boolean(),
          }),
        ),
      },
    },
    errors: ['BAD_REQUEST', 'NOT_FOUND', 'UNAVAILABLE'],
  },
  {
    ...agents,
    method: 'get',
    path: '/api/agents/:agentId/runs/:runId',
    operationId: 'getAgentRun',
    summary: "One run's steps (elizaOS's `runs.getRun`)",
    description:
      "The reply `runId` of this agent (running, waiting for approvals, or stored) as elizaOS's `RunDetail`: " +
      'its summary and its events (`RUN_STARTED`, `ACTION_STARTED`/`ACTION_COMPLETED` per tool call, ' +
      '`RUN_ENDED`), what `parley reply` prints. A reply of another agent (or, with `roomId`, of another ' +
      'channel) is 404.',
    pathParams: { agentId: uuidSchema, runId: uuidSchema },
    query: z.object({ roomId: uuidSchema.optional() }),
    responses: {
      200: {
        description: 'The run.',
        json: apiSuccessSchema(
          z.object({
            summary: runSummarySchema,
            events: z.array(
              z.object({
                type: z.string(),
                timestamp: z.number(),
                data: z.record(z.string(), z.unknown()),
              }),
            ),
          }),
        ),
      },
    },
    errors: ['BAD_REQUEST', 'NOT_FOUND', 'UNAVAILABLE'],
  },
  {
    ...agents,
    tag: 'messaging',
    method: 'post',
    path: '/api/messaging/jobs',
    operationId: 'createJob',
    summary: "Ask an agent, answer later (elizaOS's `jobs.create`)",
    description:
      'Posts `content` as `userId` in a channel of its own and starts the reply; poll `GET /api/messaging/jobs/' +
      '{jobId}`. `timeoutMs` is clamped to 1 s–300 s. Stored in the database: any process answers the poll.',
    body: createJobBodySchema,
    responses: {
      201: {
        description: 'The job.',
        json: apiSuccessSchema(
          z.object({
            jobId: z.string(),
            status: z.literal('processing'),
            createdAt: z.number(),
            expiresAt: z.number(),
          }),
        ),
      },
    },
    errors: ['BAD_REQUEST', 'NOT_FOUND', 'PAYLOAD_TOO_LARGE', 'RATE_LIMITED', 'UNAVAILABLE'],
  },
  {
    ...agents,
    tag: 'messaging',
    method: 'get',
    path: '/api/messaging/jobs/health',
    operationId: 'getJobsHealth',
    summary: "Counts of the newest jobs by state (elizaOS's `jobs.health`)",
    description:
      'Read from the database over the newest `maxJobs` (10,000) jobs, so every process answers alike. Parley jobs ' +
      'are never `pending` or `failed`: those counts are 0.',
    responses: {
      200: {
        description: 'The counts and rates.',
        json: apiSuccessSchema(
          z.object({
            healthy: z.boolean(),
            timestamp: z.number(),
            totalJobs: z.number(),
            statusCounts: z.record(z.string(), z.number()),
            metrics: z.record(z.string(), z.number()),
            maxJobs: z.number(),
          }),
        ),
      },
    },
    errors: ['UNAVAILABLE'],
  },
  {
    ...agents,
    tag: 'messaging',
    method: 'get',
    path: '/api/messaging/jobs',
    operationId: 'listJobs',
    summary: "The newest jobs (elizaOS's `jobs.list`)",
    description:
      'Newest first, `limit` default 50 and clamped to 100, optionally of one `status`. Read from the database: ' +
      'every process answers alike.',
    query: listJobsQuerySchema,
    responses: {
      200: {
        description: 'The jobs (each as `GET /api/messaging/jobs/{jobId}` answers it) and counts.',
        json: apiSuccessSchema(
          z.object({
            jobs: z.array(z.record(z.string(), z.unknown())),
            total: z.number(),
            filtered: z.number(),
          }),
        ),
      },
    },
    errors: ['BAD_REQUEST', 'UNAVAILABLE'],
  },
  {
    ...agents,
    tag: 'messaging',
    method: 'get',
    path: '/api/messaging/jobs/:jobId',
    operationId: 'getJob',
    summary: "A job's state and answer (elizaOS's `jobs.getJob`)",
    description:
      '`processing` until the agent replies (`completed`, with `result.message`) or the job expires (`timeout`).',
    pathParams: { jobId: uuidSchema },
    responses: {
      200: {
        description: 'The job.',
        json: apiSuccessSchema(
          z.object({
            jobId: z.string(),
            status: z.enum(['processing', 'completed', 'timeout']),
            agentId: z.string(),
            userId: z.string(),
            prompt: z.string(),
            createdAt: z.number(),
            expiresAt: z.number(),
            metadata: z.record(z.string(), z.unknown()),
            error: z.string().optional(),
            result: z
              .object({
                message: z.object({
                  id: z.string(),
                  content: z.string(),
                  authorId: z.string(),
                  createdAt: z.number(),
                }),
                processingTimeMs: z.number(),
              })
              .optional(),
          }),
        ),
      },
    },
    errors: ['BAD_REQUEST', 'NOT_FOUND', 'UNAVAILABLE'],
  },
  {
    ...agents,
    method: 'post',
    path: '/api/agents',
    operationId: 'createAgent',
    summary: 'Create an agent from a character',
    description:
      'The character is checked exactly as a character file is (an unknown key is 400), within a size bound ' +
      '(413) and a bound on agents created (409); `settings.mcp` is refused (files only). The agent is stored, ' +
      'answers at once in every process of the database and after restarts. It loads no plugins.' +
      OFF,
    body: createAgentBodySchema,
    responses: { 201: { description: 'The agent.', json: apiSuccessSchema(agentSchema) } },
    errors: ['FORBIDDEN', 'BAD_REQUEST', 'CONFLICT', 'PAYLOAD_TOO_LARGE', 'UNAVAILABLE'],
  },
  {
    ...agents,
    method: 'patch',
    path: '/api/agents/:agentId',
    operationId: 'updateAgent',
    summary: 'Change an agent created over HTTP',
    description: 'An agent of the configuration is 409: change its character file.' + OFF,
    pathParams: agentId,
    body: updateAgentBodySchema,
    responses: { 200: { description: 'The agent.', json: apiSuccessSchema(agentSchema) } },
    errors: [...MANAGED, 'CONFLICT', 'PAYLOAD_TOO_LARGE'],
  },
  ...(['start', 'stop'] as const).map((action): DocumentedOperation => ({
    ...agents,
    method: 'post',
    path: `/api/agents/:agentId/${action}`,
    operationId: `${action}Agent`,
    summary: action === 'start' ? 'Start an agent' : 'Stop an agent',
    description:
      (action === 'stop'
        ? 'A stopped agent keeps its channels and data; a message to it is 409 until it is started. '
        : '') +
      'Any agent, of the configuration too; every process of the database obeys.' +
      OFF,
    pathParams: agentId,
    responses: { 200: { description: 'Its state.', json: apiSuccessSchema(runningSchema) } },
    errors: MANAGED,
  })),
  {
    ...agents,
    method: 'delete',
    path: '/api/agents/:agentId',
    operationId: 'deleteAgent',
    summary: 'Delete an agent created over HTTP',
    description:
      'Its channels and messages stay. An agent of the configuration is 409. No body (as elizaOS answers).' +
      OFF,
    pathParams: agentId,
    responses: { 204: { description: 'Deleted.' } },
    errors: [...MANAGED, 'CONFLICT'],
  },
];
