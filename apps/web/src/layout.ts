import { h } from './dom';
import { buildSettingsDialog, type SettingsDialog } from './settings-dialog';

/** Every element the app drives, built once. */
export interface Layout {
  root: HTMLElement;
  /** The settings panel: colours, transport, API key. */
  settings: SettingsDialog;
  settingsButton: HTMLButtonElement;
  /** Sign in / who is signed in, where the server lets people sign in (auth/account.ts). */
  account: HTMLElement;
  apiKeyForm: HTMLFormElement;
  apiKeyInput: HTMLInputElement;
  agentSelect: HTMLSelectElement;
  agentError: HTMLElement;
  teeBadge: HTMLButtonElement;
  teePanel: HTMLElement;
  nameInput: HTMLInputElement;
  /** What the agent remembers about this page's person (chat/memories-panel.ts). */
  memories: HTMLDetailsElement;
  newChannelButton: HTMLButtonElement;
  openChannelForm: HTMLFormElement;
  openChannelInput: HTMLInputElement;
  channelError: HTMLElement;
  /** The channels: the server's list (or, when it cannot be had, the ones this browser used). */
  recentList: HTMLUListElement;
  channelsHeading: HTMLElement;
  channelTitle: HTMLElement;
  members: HTMLElement;
  banner: HTMLElement;
  olderButton: HTMLButtonElement;
  historyError: HTMLElement;
  messages: HTMLOListElement;
  /** The first screen of an empty channel: the agent's greeting and suggested prompts. */
  welcome: HTMLElement;
  typing: HTMLElement;
  composer: HTMLFormElement;
  textInput: HTMLTextAreaElement;
  modeInputs: HTMLInputElement[];
  sendButton: HTMLButtonElement;
  /** Stops the reply being streamed; shown only while one is. */
  stopButton: HTMLButtonElement;
  sendError: HTMLElement;
  /** Sends the last message again, for a new reply. */
  regenerateButton: HTMLButtonElement;
  editButton: HTMLButtonElement;
  /** The attach button's file picker, and the files waiting to go with the next message. */
  fileInput: HTMLInputElement;
  attachButton: HTMLButtonElement;
  pendingFiles: HTMLUListElement;
  /** Where replies are announced to screen readers, once each. */
  announcer: HTMLElement;
  /** On a narrow screen, shows and hides the channel list and the header's settings. */
  menuButton: HTMLButtonElement;
}

/** Builds the page: header (agent, TEE badge, API key), channel sidebar, and the conversation. */
export function buildLayout(): Layout {
  const settings = buildSettingsDialog();
  const settingsButton = h(
    'button',
    { type: 'button', className: 'settings-button', 'aria-haspopup': 'dialog' },
    'Settings',
  );
  settingsButton.addEventListener('click', () => settings.open());
  const account = h('div', { className: 'account', 'aria-label': 'Account', role: 'group' });
  account.hidden = true;
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
  const memories = h('details', { className: 'memories' });
  const newChannelButton = h('button', { type: 'button' }, 'New channel');
  const openChannelInput = h('input', {
    id: 'open-channel',
    placeholder: 'a link someone shared',
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
  // Folded away: a shared channel opens from its link; this is for pasting one.
  const openChannelFold = h(
    'details',
    { className: 'open-channel-fold' },
    h('summary', {}, 'Open a shared channel'),
    openChannelForm,
  );
  const channelError = h('p', { id: 'channel-error', className: 'error', role: 'alert' });
  const channelsHeading = h('h2', { id: 'channels-heading' }, 'Channels');
  const recentList = h('ul', { className: 'recent', 'aria-labelledby': 'channels-heading' });

  const channelTitle = h('h2', { id: 'channel-title' });
  const members = h('p', { className: 'members', 'aria-live': 'polite' });
  const banner = h('p', { className: 'banner', role: 'status' });
  banner.hidden = true;
  const olderButton = h('button', { type: 'button', className: 'older' }, 'Load older messages');
  olderButton.hidden = true;
  const historyError = h('p', { className: 'error', role: 'alert' });
  // Not a live region: it would read every chunk of a reply. `announcer` says each reply once, when it ends.
  const messages = h('ol', {
    className: 'messages',
    role: 'log',
    'aria-live': 'off',
    'aria-labelledby': 'channel-title',
  });
  const announcer = h('div', {
    className: 'visually-hidden',
    role: 'status',
    'aria-live': 'polite',
    'aria-atomic': 'true',
  });
  const typing = h('p', { className: 'typing', 'aria-live': 'polite' });
  const welcome = h('section', { className: 'welcome', 'aria-label': 'Welcome', hidden: true });

  const textInput = h('textarea', {
    id: 'message',
    rows: 2,
    required: true,
    placeholder: 'Write a message — Enter sends, Shift+Enter adds a line',
  });
  const fileInput = h('input', { type: 'file', id: 'attach-file', multiple: true, hidden: true });
  const attachButton = h(
    'button',
    { type: 'button', className: 'attach', 'aria-controls': 'pending-files' },
    'Attach',
  );
  attachButton.addEventListener('click', () => fileInput.click());
  const pendingFiles = h('ul', {
    id: 'pending-files',
    className: 'pending-files',
    'aria-label': 'Files to send',
  });
  pendingFiles.hidden = true;
  const regenerateButton = h(
    'button',
    { type: 'button', className: 'regenerate', hidden: true },
    'Regenerate',
  );
  const editButton = h(
    'button',
    { type: 'button', className: 'edit', hidden: true, 'aria-pressed': 'false' },
    'Edit',
  );
  const sendButton = h('button', { type: 'submit', className: 'send' }, 'Send');
  const stopButton = h('button', { type: 'button', className: 'stop', hidden: true }, 'Stop');
  const sendError = h('p', { id: 'send-error', className: 'error', role: 'alert' });
  const composer = h(
    'form',
    { className: 'composer', 'aria-describedby': 'send-error' },
    h('label', { for: 'message', className: 'visually-hidden' }, 'Message'),
    textInput,
    pendingFiles,
    h(
      'div',
      { className: 'composer-tools' },
      attachButton,
      fileInput,
      editButton,
      regenerateButton,
    ),
    h('div', { className: 'composer-send' }, stopButton, sendButton),
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
      account,
      settingsButton,
    ),
    teePanel,
    h(
      'nav',
      { id: 'channels', className: 'sidebar', 'aria-label': 'Channels' },
      h('label', { for: 'name' }, 'Your name'),
      nameInput,
      memories,
      newChannelButton,
      openChannelFold,
      channelError,
      channelsHeading,
      recentList,
    ),
    h(
      'main',
      {},
      h('div', { className: 'channel-head' }, channelTitle, members),
      banner,
      h('div', { className: 'scroller' }, olderButton, historyError, messages, welcome),
      typing,
      composer,
      sendError,
      announcer,
    ),
    settings.dialog,
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
    settings,
    settingsButton,
    account,
    apiKeyForm: settings.apiKeyForm,
    apiKeyInput: settings.apiKeyInput,
    agentSelect,
    agentError,
    teeBadge,
    teePanel,
    nameInput,
    memories,
    newChannelButton,
    openChannelForm,
    openChannelInput,
    channelError,
    recentList,
    channelsHeading,
    channelTitle,
    members,
    banner,
    olderButton,
    historyError,
    messages,
    welcome,
    typing,
    composer,
    textInput,
    modeInputs: settings.modeInputs,
    sendButton,
    stopButton,
    sendError,
    regenerateButton,
    editButton,
    fileInput,
    attachButton,
    pendingFiles,
    announcer,
    menuButton,
  };
}
