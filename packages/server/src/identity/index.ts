import { ParleyError } from '@parley/core';
import { authSettingsSchema } from './auth-settings';
import { createIdentityResolver, type IdentityResolver } from './resolve-identity';

export * from './identity';
export * from './guard';
export { authSettingsSchema, authConfigured, type AuthSettings } from './auth-settings';
export {
  createIdentityResolver,
  type IdentityResolver,
  AuthError,
  GUEST_ISSUER,
} from './resolve-identity';
export {
  identityRoutes,
  resourceMetadataUrl,
  GUEST_PATH,
  RESOURCE_METADATA_PATH,
} from './identity-routes';
export { isAdminOnly } from './admin-only';
export { signInRoutes, SIGN_IN_CONFIG_PATH, TOKEN_EXCHANGE_PATH } from './sign-in-routes';

/** The resolver the `AUTH_*` settings in `env` describe (none set: not configured, today's behaviour). */
export function identityFromEnv(
  env: Record<string, string | undefined>,
  operatorToken: string | undefined,
): IdentityResolver {
  const parsed = authSettingsSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`);
    throw new ParleyError('BAD_REQUEST', `Invalid identity settings: ${problems.join('; ')}`);
  }
  return createIdentityResolver({ settings: parsed.data, operatorToken });
}
