import type { TeeAgentsResponse } from '@parley/core';

/** One event-log entry as a Parley server serves it (dstack field names). */
export type TeeEvent = NonNullable<TeeAgentsResponse['eventLog']>[number];

/** dstack's event type for runtime events (app id, compose hash, instance id…); not a TCG type. */
export const DSTACK_RUNTIME_EVENT_TYPE = 0x08000001;
