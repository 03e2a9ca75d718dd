import { describe, expect, it } from 'vitest';
import { asPerson, currentPerson } from '../messaging/person-scope';
import { currentLogFields, withLogFields } from './log-context';
import { currentScope, inScope } from './work-scope';

/**
 * The running work's scope: log fields and the person share one store, and a reply taken up in a queue's turn
 * re-enters the scope of the request that asked for it, not that of the request whose work started the turn.
 */
describe('the work scope', () => {
  it('carries the log fields and the person together, each set without losing the other', async () => {
    await withLogFields({ requestId: 'r1' }, () =>
      asPerson('alice', async () => {
        await Promise.resolve();
        expect(currentPerson()).toBe('alice');
        expect(currentLogFields()).toEqual({ requestId: 'r1' });
        await withLogFields({ socketId: 's1' }, async () => {
          await Promise.resolve();
          expect(currentLogFields()).toEqual({ requestId: 'r1', socketId: 's1' });
          expect(currentPerson()).toBe('alice');
        });
      }),
    );
    expect(currentScope()).toBeUndefined();
  });

  it("re-enters a captured scope exactly: nothing of the turn's own scope leaks in", async () => {
    // An admin's request (no person) queues its reply behind Alice's; the queue takes it up from the end of
    // Alice's work, in her scope.
    const asked = withLogFields({ requestId: 'admin-request' }, () => currentScope());
    const takeUp = () =>
      inScope(asked, async () => {
        await Promise.resolve();
        return { person: currentPerson(), fields: currentLogFields() };
      });
    const seen = await withLogFields({ requestId: 'alice-request' }, () =>
      asPerson('alice', async () => {
        await Promise.resolve();
        return takeUp();
      }),
    );
    expect(seen).toEqual({ person: undefined, fields: { requestId: 'admin-request' } });
    expect(inScope(undefined, () => currentPerson())).toBeUndefined();
  });
});
