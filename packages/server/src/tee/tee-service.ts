import {
  ParleyError,
  type TeeAgent,
  type TeeAgentsResponse,
  type TeeStatusResponse,
} from '@parley/core';
import type { Receipt, ReceiptBody } from '@parley/core';
import { agentsReportData, createReceiptSigner } from '@parley/tee';
import type { Logger } from 'pino';
import { createDstackClient } from './dstack/create-dstack-client';
import type { DstackGuest } from './dstack/dstack-guest';
import { parseEventLog, type TeeEventLog } from './parse-event-log';
import { quoteToBase64 } from './quote-to-base64';
import { registerAgent } from './register-agent';
import { createDstackSimulator } from './simulator/create-dstack-simulator';
import { createMemoryTeeAgentStore, type TeeAgentStore } from './tee-agent-store';
import type { TeeConfig } from './tee-config';

/** Longest `?nonce=` accepted by `GET /api/tee/agents`. */
export const MAX_NONCE_LENGTH = 128;

/** An agent to register: its id and display name. */
export interface TeeAgentInput {
  agentId: string;
  name: string;
}

/** Options of {@link createTeeService}. */
export interface TeeServiceOptions {
  config: TeeConfig;
  logger: Logger;
  /** Keeps registrations across restarts (default: in memory). */
  store?: TeeAgentStore;
  /** Registration timestamps (default `Date.now`). */
  clock?: () => number;
  /** Replaces the guest API the config selects (tests, custom transports). */
  guest?: DstackGuest;
  /** How long a status probe waits for the TEE (default 2000 ms). */
  probeTimeoutMs?: number;
}

/** An agent's attested key, able to sign receipts; the key itself never leaves the TEE service. */
export interface AgentSigner {
  /** The agent's registration: its quote binds `publicKey`. */
  registration: TeeAgent;
  /** True unless the TEE is PRODUCTION: the key lives in a simulator and proves nothing about hardware. */
  simulator: boolean;
  /** Signs a receipt body with the agent's key. */
  sign(body: ReceiptBody): Receipt;
}

/** The TEE side of the server: agent registration, status and the attested agent list. Framework-free. */
export interface TeeService {
  readonly config: Readonly<Omit<TeeConfig, 'salt'>>;
  /**
   * Registers agents (call at start, and again when agents are added). Does not reject while the service is
   * open: when the TEE is unavailable it logs and keeps them pending, and `listAgents` retries. Resolves with
   * every registered agent.
   */
  register(agents: readonly TeeAgentInput[]): Promise<TeeAgent[]>;
  /** Body of `GET /api/tee/status`. */
  status(): Promise<TeeStatusResponse>;
  /**
   * Body of `GET /api/tee/agents`: registered agents and a fresh quote over all of them and `nonce`.
   * @throws ParleyError `BAD_REQUEST` for a nonce over 128 characters, `UNAVAILABLE` when the TEE is down.
   */
  listAgents(nonce?: string): Promise<TeeAgentsResponse>;
  /**
   * The signer of a registered agent (registering it first if it is pending); undefined when the TEE is OFF,
   * closed, or the agent is not registered.
   */
  signer(agentId: string): Promise<AgentSigner | undefined>;
  /** Stops using the TEE; later calls answer `UNAVAILABLE`. */
  close(): Promise<void>;
}

function guestFor(config: TeeConfig, salt: string): DstackGuest {
  return config.endpoint === undefined
    ? createDstackSimulator({ salt })
    : createDstackClient({ endpoint: config.endpoint });
}

/** Runs tasks one at a time, so registration and listing never race on the same agent. */
function createSerialQueue() {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(task: () => Promise<T>): Promise<T> => {
    const run = tail.then(task);
    tail = run.catch(() => undefined);
    return run;
  };
}

/**
 * Creates the TEE service from the parsed config. In OFF it answers `disabled` and an empty list without ever
 * touching a TEE. Otherwise it talks to dstack (PRODUCTION, DOCKER, LOCAL with an endpoint) or to the built-in
 * simulator (LOCAL). The salt is used for key derivation only: never logged, never returned.
 *
 * @example
 * const tee = createTeeService({ config: parseTeeConfig(env), logger });
 * await tee.register(agents.map(({ id, name }) => ({ agentId: id, name })));
 * app.route('/', teeRoutes(tee));
 */
export function createTeeService(options: TeeServiceOptions): TeeService {
  const { config } = options;
  const { salt, ...publicConfig } = config;
  const logger = options.logger.child({ component: 'tee' });
  const vendor = config.vendor;

  if (config.mode === 'OFF' || salt === undefined) {
    logger.debug({ mode: config.mode }, 'TEE disabled');
    return {
      config: publicConfig,
      register: () => Promise.resolve([]),
      status: () => Promise.resolve({ status: 'disabled', tee_enabled: false, vendor }),
      listAgents: () => Promise.resolve({ agents: [], attestation: '' }),
      signer: () => Promise.resolve(undefined),
      close: () => Promise.resolve(),
    };
  }

  const guest = options.guest ?? guestFor(config, salt);
  const context = {
    guest,
    salt,
    store: options.store ?? createMemoryTeeAgentStore(),
    clock: options.clock ?? Date.now,
    // A stored simulator quote is never served by a production TEE: it is quoted afresh there.
    simulatorQuotes: config.mode !== 'PRODUCTION',
    keys: new Map<string, string>(),
  };
  const probeTimeoutMs = options.probeTimeoutMs ?? 2000;
  const serial = createSerialQueue();
  const registered = new Map<string, TeeAgent>();
  const pending = new Map<string, TeeAgentInput>();
  let lastStatus: 'active' | 'unavailable' | undefined;
  let listCache: { digest: string; attestation: string; eventLog?: TeeEventLog } | undefined;
  let closed = false;
  /** Each agent's receipt signer, made once from its key (an OpenSSL key object). */
  const signers = new Map<string, { key: string; sign: AgentSigner['sign'] }>();

  logger.info({ mode: config.mode, vendor, endpoint: guest.endpoint }, 'TEE enabled');
  if (config.mode !== 'PRODUCTION') {
    logger.warn('TEE simulator in use: its attestations prove nothing about the hardware');
  }

  function noteStatus(next: 'active' | 'unavailable', error?: unknown) {
    if (next === lastStatus) return;
    lastStatus = next;
    if (next === 'active') logger.info({ endpoint: guest.endpoint }, 'TEE is answering');
    else
      logger.warn(
        { endpoint: guest.endpoint, reason: (error as Error).message },
        'TEE is unavailable',
      );
  }

  async function registerPending(): Promise<void> {
    for (const agent of [...pending.values()]) {
      try {
        const record = await registerAgent(context, agent);
        registered.set(agent.agentId, record);
        pending.delete(agent.agentId);
        noteStatus('active');
      } catch (error) {
        if (ParleyError.isInstance(error) && error.code === 'UNAVAILABLE') {
          noteStatus('unavailable', error);
          logger.warn(
            { pending: pending.size },
            'agents not registered yet; retrying on the next agents request',
          );
          return;
        }
        logger.error({ err: error, agentId: agent.agentId }, 'TEE registration failed');
      }
    }
  }

  function assertOpen() {
    if (closed) throw new ParleyError('UNAVAILABLE', 'The TEE service is closed');
  }

  /** The list quote and the event log the TEE returned with it (RTMR3 replays it). */
  async function attestList(
    agents: TeeAgent[],
    nonce: string | undefined,
  ): Promise<{ attestation: string; eventLog?: TeeEventLog }> {
    const reportData = agentsReportData(agents, nonce);
    const digest = Buffer.from(reportData).toString('hex');
    // Without a nonce the answer depends only on the list, so one quote serves until the list changes.
    if (!nonce && listCache?.digest === digest) return listCache;
    const answer = await guest.getQuote(reportData);
    const eventLog = parseEventLog(answer.event_log);
    if (answer.event_log && !eventLog)
      logger.warn('the TEE returned an event log Parley cannot read');
    const attested = { attestation: quoteToBase64(answer.quote), ...(eventLog && { eventLog }) };
    if (!nonce) listCache = { digest, ...attested };
    return attested;
  }

  return {
    config: publicConfig,
    async register(agents) {
      assertOpen();
      return serial(async () => {
        for (const agent of agents) {
          if (
            !registered.has(agent.agentId) ||
            registered.get(agent.agentId)?.agentName !== agent.name
          ) {
            pending.set(agent.agentId, agent);
          }
        }
        await registerPending();
        return [...registered.values()];
      });
    },

    async status() {
      try {
        assertOpen();
        await guest.info(probeTimeoutMs);
        noteStatus('active');
        return { status: 'active', tee_enabled: true, vendor };
      } catch (error) {
        noteStatus('unavailable', error);
        return { status: 'unavailable', tee_enabled: true, vendor };
      }
    },

    async listAgents(nonce) {
      if (nonce !== undefined && nonce.length > MAX_NONCE_LENGTH) {
        throw new ParleyError(
          'BAD_REQUEST',
          `nonce must be at most ${MAX_NONCE_LENGTH} characters`,
        );
      }
      assertOpen();
      return serial(async () => {
        if (pending.size > 0) await registerPending();
        const agents = [...registered.values()];
        try {
          const { attestation, eventLog } = await attestList(agents, nonce);
          return { agents, attestation, ...(eventLog && { eventLog }) };
        } catch (error) {
          if (ParleyError.isInstance(error) && error.code === 'UNAVAILABLE')
            noteStatus('unavailable', error);
          throw error;
        }
      });
    },

    async signer(agentId) {
      if (closed) return undefined;
      if (!registered.has(agentId) && pending.has(agentId)) {
        await serial(() => registerPending()).catch(() => undefined);
      }
      const registration = registered.get(agentId);
      const key = context.keys.get(agentId);
      if (!registration || !key) return undefined;
      let signer = signers.get(agentId);
      if (signer?.key !== key) {
        signer = { key, sign: createReceiptSigner(key) };
        signers.set(agentId, signer);
      }
      return { registration, simulator: config.mode !== 'PRODUCTION', sign: signer.sign };
    },

    async close() {
      closed = true;
      context.keys.clear();
      signers.clear();
      // Lets an in-flight registration finish so no store write is cut in half.
      await serial(() => Promise.resolve());
    },
  };
}
