import { h } from './dom';

/** Every element the app drives, built once. */
export interface Layout {
  root: HTMLElement;
  apiKeyForm: HTMLFormElement;
  apiKeyInput: HTMLInputElement;
  agentSelect: HTMLSelectElement;
  agentError: HTMLElement;
  teeBadge: HTMLButtonElement;
  teePanel: HTMLElement;
  nameInput: HTMLInputElement;
  newChannelButton: HTMLButtonElement;
  openChannelForm: HTMLFormElement;
  openChannelInput: HTMLInputElement;
  channelError: HTMLElement;
  recentList: HTMLUListElement;
  channelTitle: HTMLElement;
  members: HTMLElement;
  banner: HTMLElement;
  olderButton: HTMLButtonElement;
  historyError: HTMLElement;
  messages: HTMLOListElement;
  typing: HTMLElement;
  composer: HTMLFormElement;
  textInput: HTMLTextAreaElement;
  modeInputs: HTMLInputElement[];
  sendButton: HTMLButtonElement;
  /** Stops the reply being streamed; shown only while one is. */
  stopButton: HTMLButtonElement;
  sendError: HTMLElement;
  /** On a narrow screen, shows and hides the channel list and the header's settings. */
  menuButton: HTMLButtonElement;
}

function modeOption(value: string, label: string, checked: boolean): HTMLLabelElement {
  return h(
    'label',
    { className: 'mode' },
    h('input', { type: 'radio', name: 'mode', value, checked }),
    ` ${label}`,
  );
}

/** Builds the page: header (agent, TEE badge, API key), channel sidebar, and the conversation. */
export function buildLayout(): Layout {
  const apiKeyInput = h('input', {
    id: 'api-key',
    type: 'password',
    autocomplete: 'off',
    placeholder: 'only if the server has one',
  });
  const apiKeyForm = h(
    'form',
    { className: 'api-key' },
    h('label', { for: 'api-key' }, 'API key'),
    apiKeyInput,
    h('button', { type: 'submit' }, 'Use key'),
  );
  const agentSelect = h('select', { id: 'agent', 'aria-describedby': 'agent-error' });
  const agentError = h('p', { id: 'agent-error', className: 'error', role: 'alert' });
  const teeBadge = h('button', {
    type: 'button',
    className: 'tee-badge',
    'aria-expanded': 'false',
    'aria-controls': 'tee-panel',
  });
  const teePanel = h('section', { id: 'tee-panel', className: 'tee-panel', 'aria-label': 'TEE' });
  teePanel.hidden = true;

  const nameInput = h('input', { id: 'name', autocomplete: 'nickname', maxLength: 256 });
  const newChannelButton = h('button', { type: 'button' }, 'New channel');
  const openChannelInput = h('input', {
    id: 'open-channel',
    placeholder: 'channel id (UUID)',
    autocomplete: 'off',
    spellcheck: false,
    'aria-describedby': 'channel-error',
  });
  const openChannelForm = h(
    'form',
    { className: 'open-channel' },
    h('label', { for: 'open-channel' }, 'Open a channel'),
    openChannelInput,
    h('button', { type: 'submit' }, 'Open'),
  );
  const channelError = h('p', { id: 'channel-error', className: 'error', role: 'alert' });
  const recentList = h('ul', { className: 'recent', 'aria-label': 'Recent channels' });

  const channelTitle = h('h2', { id: 'channel-title' });
  const members = h('p', { className: 'members', 'aria-live': 'polite' });
  const banner = h('p', { className: 'banner', role: 'status' });
  banner.hidden = true;
  const olderButton = h('button', { type: 'button', className: 'older' }, 'Load older messages');
  olderButton.hidden = true;
  const historyError = h('p', { className: 'error', role: 'alert' });
  const messages = h('ol', {
    className: 'messages',
    role: 'log',
    'aria-live': 'polite',
    'aria-labelledby': 'channel-title',
  });
  const typing = h('p', { className: 'typing', 'aria-live': 'polite' });

  const textInput = h('textarea', {
    id: 'message',
    rows: 2,
    required: true,
    placeholder: 'Write a message — Enter sends, Shift+Enter adds a line',
  });
  const modeInputs = [
    modeOption('socket', 'Socket', true),
    modeOption('stream', 'REST stream', false),
    modeOption('sync', 'REST sync', false),
  ];
  const sendButton = h('button', { type: 'submit', className: 'send' }, 'Send');
  const stopButton = h('button', { type: 'button', className: 'stop', hidden: true }, 'Stop');
  const sendError = h('p', { id: 'send-error', className: 'error', role: 'alert' });
  const composer = h(
    'form',
    { className: 'composer', 'aria-describedby': 'send-error' },
    h('label', { for: 'message', className: 'visually-hidden' }, 'Message'),
    textInput,
    h('fieldset', { className: 'modes' }, h('legend', {}, 'Send through'), ...modeInputs),
    sendButton,
    stopButton,
  );

  const menuButton = h(
    'button',
    {
      type: 'button',
      className: 'menu-toggle',
      'aria-expanded': 'false',
      'aria-controls': 'channels',
    },
    'Channels',
  );

  const root = h(
    'div',
    { className: 'app', 'data-menu': 'closed' },
    h(
      'header',
      {},
      h('h1', {}, 'Parley'),
      h(
        'div',
        { className: 'agent-picker' },
        h('label', { for: 'agent' }, 'Agent'),
        agentSelect,
        agentError,
      ),
      menuButton,
      teeBadge,
      h('a', { href: './api/docs', className: 'docs-link' }, 'API docs'),
      apiKeyForm,
    ),
    teePanel,
    h(
      'nav',
      { id: 'channels', className: 'sidebar', 'aria-label': 'Channels' },
      h('label', { for: 'name' }, 'Your name'),
      nameInput,
      newChannelButton,
      openChannelForm,
      channelError,
      h('h2', {}, 'Recent channels'),
      recentList,
    ),
    h(
      'main',
      {},
      h('div', { className: 'channel-head' }, channelTitle, members),
      banner,
      h('div', { className: 'scroller' }, olderButton, historyError, messages),
      typing,
      composer,
      sendError,
    ),
  );
  // A narrow screen shows the conversation, and the channel list only when asked for (style.css): the menu
  // closes again once a channel is picked.
  const setMenu = (open: boolean) => {
    root.dataset.menu = open ? 'open' : 'closed';
    menuButton.setAttribute('aria-expanded', String(open));
  };
  menuButton.addEventListener('click', () => setMenu(root.dataset.menu !== 'open'));
  newChannelButton.addEventListener('click', () => setMenu(false));
  openChannelForm.addEventListener('submit', () => setMenu(false));
  recentList.addEventListener('click', (event) => {
    if ((event.target as Element).closest('button')) setMenu(false);
  });

  return {
    root,
    apiKeyForm,
    apiKeyInput,
    agentSelect,
    agentError,
    teeBadge,
    teePanel,
    nameInput,
    newChannelButton,
    openChannelForm,
    openChannelInput,
    channelError,
    recentList,
    channelTitle,
    members,
    banner,
    olderButton,
    historyError,
    messages,
    typing,
    composer,
    textInput,
    modeInputs: modeInputs.map((label) => label.querySelector('input')!),
    sendButton,
    stopButton,
    sendError,
    menuButton,
  };
}
