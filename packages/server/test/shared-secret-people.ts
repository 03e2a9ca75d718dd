import { SignJWT } from 'jose';
import { entityIdOf } from '../src/identity/identity';
import { answerFromResults } from './agent-loop-fixture';
import type { ScriptedBehaviour } from './scripted-model';

/**
 * People signed in with HS256 tokens the server verifies with `AUTH_JWT_SECRET` = `secretText`: their entity ids
 * (as the server derives them from a shared-secret token's subject) and fresh tokens with the roles given.
 */
export function sharedSecretPeople(secretText: string) {
  const secret = new TextEncoder().encode(secretText);
  return {
    idOf: (person: string) => entityIdOf('urn:parley:shared-secret', person),
    tokenFor: (subject: string, roles: string[] = ['user']) =>
      new SignJWT({ roles, name: subject })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(subject)
        .setIssuedAt()
        .setExpirationTime('10m')
        .sign(secret),
  };
}

/** A model that calls GET_WEATHER(Paris) as `call_1` when a person says `weather?`, answers from results, else `Hi!`. */
export function weatherWhenAsked(): ScriptedBehaviour {
  return {
    toolCalls: (request) =>
      request.messages.at(-1)?.role === 'user' && request.messages.at(-1)?.content === 'weather?'
        ? [{ toolCallId: 'call_1', toolName: 'GET_WEATHER', input: '{"city":"Paris"}' }]
        : undefined,
    reply: (request) =>
      request.messages.at(-1)?.role === 'tool' ? answerFromResults(request) : 'Hi!',
    plain: true,
  };
}
