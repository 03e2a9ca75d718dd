import type { ConnectionState } from '@parley/client';
import { describeError } from './describe-error';
import { show } from './dom';

/** Shows the socket's state in the banner: hidden while connected, a line while reconnecting or failed. */
export function showConnectionState(banner: HTMLElement, state: ConnectionState): void {
  banner.dataset.state = state.status;
  switch (state.status) {
    case 'connected':
      banner.textContent = '';
      show(banner, false);
      return;
    case 'reconnecting':
      banner.textContent = `Connection lost — reconnecting (attempt ${state.attempt})…`;
      break;
    case 'disconnected':
      banner.textContent = state.willReconnect
        ? 'Connection lost — reconnecting…'
        : `Disconnected (${state.reason}).`;
      break;
    case 'failed':
      banner.textContent = `Not connected: ${describeError(state.error)} Reload the page to try again.`;
      break;
  }
  show(banner, true);
}
