import { ParleyError } from '@parley/core';
import type { Context } from 'hono';
import type { AppEnv } from '../http/app-env';
import { isAdmin } from './identity';

/**
 * The entity whose memories the caller of `/api/agents/{id}/memories` may see and delete, given the one asked
 * for: an admin (or everyone, without identities) any; a person only their own, whatever they ask for (asking
 * for another's is a 403).
 */
export function ownMemories(c: Context<AppEnv>, requested: string | undefined): string | undefined {
  const who = c.get('identity');
  if (who === undefined || isAdmin(who)) return requested;
  if (requested !== undefined && requested !== who.entityId) {
    throw new ParleyError(
      'FORBIDDEN',
      'You may see and delete only what agents remember about you',
    );
  }
  return who.entityId;
}
