import { z } from 'zod';

/** TEE modes (setting `TEE_MODE`). */
export const teeModeSchema = z.enum(['OFF', 'LOCAL', 'DOCKER', 'PRODUCTION']);

/** @see teeModeSchema */
export type TeeMode = z.infer<typeof teeModeSchema>;

/** An agent registered in the TEE with its attested public key. */
export const teeAgentSchema = z.object({
  id: z.string(),
  agentId: z.string(),
  agentName: z.string(),
  createdAt: z.number(),
  publicKey: z.string(),
  attestation: z.string(),
});

/** @see teeAgentSchema */
export type TeeAgent = z.infer<typeof teeAgentSchema>;

/** A remote attestation quote: base64-encoded quote bytes and when it was taken. */
export const remoteAttestationQuoteSchema = z.object({
  quote: z.string(),
  timestamp: z.number(),
});

/** @see remoteAttestationQuoteSchema */
export type RemoteAttestationQuote = z.infer<typeof remoteAttestationQuoteSchema>;

/** A message bound into an attestation. */
export const remoteAttestationMessageSchema = z.object({
  agentId: z.string(),
  timestamp: z.number(),
  message: z.object({ entityId: z.string(), roomId: z.string(), content: z.string() }),
});

/** @see remoteAttestationMessageSchema */
export type RemoteAttestationMessage = z.infer<typeof remoteAttestationMessageSchema>;

/** What a derived key's attestation binds. */
export const deriveKeyAttestationDataSchema = z.object({
  agentId: z.string(),
  publicKey: z.string(),
  subject: z.string().optional(),
});

/** @see deriveKeyAttestationDataSchema */
export type DeriveKeyAttestationData = z.infer<typeof deriveKeyAttestationDataSchema>;

/** Response of `GET /api/tee/status`. */
export const teeStatusResponseSchema = z.object({
  status: z.string(),
  tee_enabled: z.boolean(),
  vendor: z.string(),
});

/** @see teeStatusResponseSchema */
export type TeeStatusResponse = z.infer<typeof teeStatusResponseSchema>;

/**
 * One entry of the TEE's event log (dstack's field names): `digest` (hex SHA-384) was extended into RTMR `imr`;
 * `event` names it and `event_payload` (hex) is what was measured (for dstack runtime events, type 0x08000001).
 */
export const teeEventSchema = z.looseObject({
  imr: z.number().int().min(0).max(3),
  event_type: z.number().int(),
  digest: z.string(),
  event: z.string(),
  event_payload: z.string(),
});

/** @see teeEventSchema */
export type TeeEvent = z.infer<typeof teeEventSchema>;

/**
 * Response of `GET /api/tee/agents`: SPEC.md's `agents` and `attestation`, plus the event log the TEE returned
 * with the list attestation (when it returned one), so a verifier can replay RTMR3 and see which app runs.
 */
export const teeAgentsResponseSchema = z.object({
  agents: z.array(teeAgentSchema),
  attestation: z.string(),
  eventLog: z.array(teeEventSchema).optional(),
});

/** @see teeAgentsResponseSchema */
export type TeeAgentsResponse = z.infer<typeof teeAgentsResponseSchema>;
