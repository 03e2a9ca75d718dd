import {
  connectSocket,
  createParleyClient,
  ParleyClientError,
  type ParleyClient,
  type ParleySocket,
} from '@parley/client';
import type { AgentSummary } from '@parley/core';
import { Account } from './auth/account';
import { credential, credentialHeaders, offersSignIn } from './auth/credential';
import { ChannelList } from './channels/channel-list';
import { ensureChannel, makeChannel } from './channels/channel-actions';
import { channelNameFrom, displayName, NEW_CHANNEL_NAME } from './channels/channel-names';
import { ComposerFiles, downloadAttachment } from './chat/composer-files';
import { decideApproval, type DecisionTransport } from './chat/decide-approval';
import { MessageList, type MessageRole } from './chat/message-list';
import { RoomStatus } from './chat/room-status';
import { fromBroadcast, fromStored } from './chat/to-chat-message';
import { MemoriesPanel } from './chat/memories-panel';
import { listenToolEvents } from './chat/tool-events';
import { profileFrom, renderWelcome } from './chat/welcome';
import { showConnectionState } from './connection-banner';
import { describeError } from './describe-error';
import { h, show } from './dom';
import type { Layout } from './layout';
import { isChannelId, parseRecent, rememberChannel, type RecentChannel } from './recent-channels';
import {
  apiKeySetting,
  identity,
  modeSetting,
  readRecent,
  saveName,
  writeRecent,
} from './settings';
import { ReplyFailedError, sendMessage, type SendMode } from './send-message';
import { loadTee, wireTeeBadge } from './tee/tee-panel';

const HISTORY_PAGE = 50;
const TYPING_IDLE_MS = 3_000;

/** The channel id in the address (`#channel=<uuid>`), so a channel can be shared as a link. */
function channelFromHash(): string | undefined {
  const id = new URLSearchParams(location.hash.slice(1)).get('channel') ?? '';
  return isChannelId(id) ? id.toLowerCase() : undefined;
}

/** The chat page: wires the layout to the REST client and the socket. */
export class ChatApp {
  readonly #ui: Layout;
  readonly #list: MessageList;
  readonly #room: RoomStatus;
  /** Who this page is in the rooms: the signed-in person (or guest), else the browser's own name and id. */
  #me = identity();
  readonly #account: Account;
  #client!: ParleyClient;
  #socket: ParleySocket | undefined;
  #agents: AgentSummary[] = [];
  #channelId = '';
  /** The agent that answers in the open channel, once known (from its history or the first send). */
  #channelAgentId: string | undefined;
  #oldest: string | undefined;
  /** The reply the Stop button cancels, while one streams. */
  #stopping: string | undefined;
  /** The id of this browser's message being edited (Edit), until it is resent or the edit is cancelled. */
  #editing: string | undefined;
  #recent: RecentChannel[] = parseRecent(readRecent());
  #typingTimer: ReturnType<typeof setTimeout> | undefined;
  /**
   * Settles once the page is in the open channel's room (connected with the current key, joined, history read):
   * a send waits for it, so that the reply's live events reach this page.
   */
  #ready: Promise<void> = Promise.resolve();
  #readyNow = true;
  readonly #channels: ChannelList;
  readonly #files: ComposerFiles;
  readonly #memories: MemoriesPanel;

  constructor(ui: Layout) {
    this.#ui = ui;
    this.#list = new MessageList(
      ui.messages,
      (request, approved, reason) => decideApproval(this.#transport(), request, approved, reason),
      {
        download: downloadAttachment,
        receipt: (messageId) => this.#client.messageReceipt(messageId),
      },
      ui.announcer,
    );
    this.#room = new RoomStatus(ui.members, ui.typing);
    this.#channels = new ChannelList(ui.recentList, {
      open: (id) => void this.#openChannel(id),
      current: () => this.#channelId,
      agentName: (id) => this.#agentName(id),
      onDeleted: () => void this.#openChannel(crypto.randomUUID()),
    });
    this.#files = new ComposerFiles(ui.pendingFiles, ui.sendError);
    this.#account = new Account(ui.account, () => void this.#signedInAs());
    this.#memories = new MemoriesPanel(ui.memories, () => {
      const agentId = this.#channelAgentId ?? (ui.agentSelect.value || undefined);
      return {
        agentId,
        agentName: agentId ? this.#agentName(agentId) : 'the agent',
        entityId: this.#me.entityId,
      };
    });
  }

  /** Connects, loads the agents and the TEE badge, and opens the channel of the address or a new one. */
  async start(): Promise<void> {
    // Where people sign in, the page first learns who it is (or goes to the issuer and comes back).
    if ((await this.#account.start()) === 'leaving') return;
    this.#wire();
    this.#takeIdentity();
    this.#ui.apiKeyInput.value = apiKeySetting.get() ?? '';
    const mode = modeSetting.get();
    for (const input of this.#ui.modeInputs) input.checked = input.value === (mode ?? 'socket');
    await this.#connect(channelFromHash() ?? crypto.randomUUID());
  }

  /**
   * The page's identity: a signed-in person (or guest) is who the server says, with their name from the issuer;
   * the name field then shows it and cannot change it. Their recent channels are theirs, not the browser's.
   */
  #takeIdentity() {
    const person = this.#account.person;
    const ui = this.#ui;
    const browser = identity();
    this.#me = person
      ? {
          entityId: person.entityId,
          // A guest names themselves (the field); a person is named by the issuer.
          name: person.guest ? browser.name : (person.name ?? 'You'),
        }
      : browser;
    ui.nameInput.disabled = person !== undefined && !person.guest;
    ui.nameInput.value = this.#me.name;
    this.#recent = parseRecent(readRecent(person?.entityId));
    this.#renderRecent();
  }

  /** After a sign-out (or a new sign-in): the page takes the identity it now has and reconnects with it. */
  async #signedInAs() {
    this.#takeIdentity();
    await this.#connect(crypto.randomUUID());
  }

  #wire() {
    const ui = this.#ui;
    wireTeeBadge({ badge: ui.teeBadge, panel: ui.teePanel });
    ui.apiKeyForm.addEventListener('submit', (event) => {
      event.preventDefault();
      apiKeySetting.set(ui.apiKeyInput.value.trim());
      ui.settings.close();
      void this.#connect(this.#channelId);
    });
    for (const input of ui.modeInputs) {
      input.addEventListener('change', () => modeSetting.set(this.#mode()));
    }
    this.#files.wire(ui.fileInput, ui.root.querySelector('main')!, ui.textInput);
    ui.regenerateButton.addEventListener('click', () => void this.#regenerate());
    ui.editButton.addEventListener('click', () =>
      this.#editing === undefined ? this.#beginEdit() : this.#endEdit(),
    );
    ui.nameInput.addEventListener('change', () => {
      saveName(ui.nameInput.value);
      this.#me.name = ui.nameInput.value.trim() || this.#me.name;
    });
    ui.agentSelect.addEventListener('change', () => {
      void this.#showAgent();
      // A channel belongs to the agent that first answered in it: another agent gets a new channel.
      if (this.#channelAgentId && this.#channelAgentId !== ui.agentSelect.value) {
        void this.#openChannel(crypto.randomUUID());
      }
    });
    ui.newChannelButton.addEventListener('click', () => void this.#newChannel());
    ui.openChannelForm.addEventListener('submit', (event) => {
      event.preventDefault();
      // A shared link (…#channel=<id>) or the id alone.
      const given = ui.openChannelInput.value.trim();
      const id = /[#&]channel=([^&\s]+)/.exec(given)?.[1] ?? given;
      if (!isChannelId(id)) {
        ui.channelError.textContent =
          "That is not a channel's link: copy it from the address bar of a page showing the channel.";
        ui.openChannelInput.focus();
        return;
      }
      ui.openChannelInput.value = '';
      void this.#openChannel(id.toLowerCase());
    });
    ui.olderButton.addEventListener('click', () => void this.#loadHistory());
    ui.textInput.addEventListener('input', () => this.#typing(ui.textInput.value !== ''));
    ui.textInput.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        ui.composer.requestSubmit();
      }
    });
    ui.stopButton.addEventListener('click', () => void this.#stop());
    ui.composer.addEventListener('submit', (event) => {
      event.preventDefault();
      const text = ui.textInput.value.trim();
      void (this.#editing === undefined ? this.#send(text) : this.#resendEdited(text));
    });
    window.addEventListener('hashchange', () => {
      const id = channelFromHash();
      if (id && id !== this.#channelId) void this.#openChannel(id);
    });
  }

  /** Runs `work` (a (re)connection, a channel being opened) as what a send must wait for. */
  #whileJoining(work: Promise<void>): Promise<void> {
    const ready = work.catch(() => {});
    this.#ready = ready;
    this.#readyNow = false;
    void ready.then(() => {
      if (this.#ready === ready) this.#readyNow = true;
    });
    return work;
  }

  /** Resolves once the page is in its channel's room; the composer says it waits meanwhile. */
  async #untilJoined(): Promise<void> {
    const composer = this.#ui.composer;
    while (!this.#readyNow) {
      composer.dataset.waiting = 'room';
      await this.#ready;
    }
    delete composer.dataset.waiting;
  }

  /** (Re)creates the client and the socket with the current API key, then reloads everything. */
  #connect(channelId: string): Promise<void> {
    return this.#whileJoining(this.#reconnect(channelId));
  }

  async #reconnect(channelId: string) {
    this.#client = createParleyClient({ baseUrl: location.origin, apiKey: credential });
    this.#socket?.disconnect();
    const socket = connectSocket({
      baseUrl: location.origin,
      apiKey: credential,
      reconnectionAttempts: Infinity,
    });
    this.#socket = socket;
    socket.onConnectionChange((state) => showConnectionState(this.#ui.banner, state));
    this.#listen(socket);
    void loadTee(this.#client, { badge: this.#ui.teeBadge, panel: this.#ui.teePanel });
    await this.#loadAgents();
    this.#channelId = '';
    await this.#channels.load();
    await this.#openChannel(channelId);
  }

  /** A new channel: made on the server (so it lists, by name, everywhere), else just a fresh id. */
  async #newChannel() {
    const id = crypto.randomUUID();
    if (this.#channels.fromServer) {
      try {
        await makeChannel(this.#channels, id, this.#ui.agentSelect.value || undefined);
      } catch (error) {
        this.#ui.channelError.textContent = `Could not create a channel: ${describeError(error)}`;
      }
    }
    await this.#openChannel(id);
  }

  #listen(socket: ParleySocket) {
    const agentName = () => this.#agentName(this.#channelAgentId ?? this.#ui.agentSelect.value);
    socket.on('channelCreated', (channel) => this.#channels.upsert(channel));
    socket.on('channelUpdated', (channel) => {
      this.#channels.upsert(channel);
      if (channel.id === this.#channelId) this.#ui.channelTitle.textContent = displayName(channel);
    });
    socket.on('channelDeleted', ({ channelId }) => this.#channels.remove(channelId));
    socket.on('messageBroadcast', (message) => {
      this.#channels.seen(message.channelId, message.createdAt);
      this.#room.learnName(message.senderId, message.senderName);
      this.#list.upsert(fromBroadcast(message, (id) => this.#roleOf(id)));
      if (this.#isAgent(message.senderId)) this.#channelAgentId ??= message.senderId;
    });
    socket.on('messageStreamChunk', (chunk) => {
      // Newer servers name the replying agent in each chunk.
      const name = (chunk as { agentName?: string }).agentName ?? agentName();
      this.#room.replying(name);
      this.#showStop(chunk.messageId);
      this.#list.chunk(chunk.messageId, chunk.index, chunk.chunk, 'socket', name);
    });
    listenToolEvents(
      socket,
      this.#list,
      (replyId, name) => {
        this.#room.replying(name);
        this.#showStop(replyId);
      },
      (_replyId, name) => this.#room.waiting(name),
    );
    // A decision (by this page or another) lets the reply go on: its result arrives, then more text.
    socket.on('toolResult', ({ agentName }) => {
      if (this.#room.agentState === 'waiting') this.#room.replying(agentName);
    });
    socket.on('messageComplete', (complete) => {
      this.#room.replying(undefined);
      this.#showStop(undefined);
      // `messageId` is the message answered. A reply without text (`empty`, with its `replyId` on servers that
      // say so) is shown as an empty reply, never as silence.
      const { replyId, empty } = complete as { replyId?: string; empty?: boolean };
      if (empty) this.#list.finish(replyId ?? `empty:${complete.messageId}`, agentName());
      this.#updateRegenerate();
    });
    socket.on('messageError', (error) => {
      if (error.code === 'CANCELLED') {
        // `messageId` names the message answered: the reply that streamed is the one stopped.
        this.#list.stopStreaming();
        this.#list.notice('Reply stopped');
        return;
      }
      const text = `${error.message} (${error.code})`;
      if (!(error.messageId && this.#list.fail(error.messageId, text))) {
        this.#ui.sendError.textContent = text;
      }
    });
    socket.on('userJoined', ({ userId }) => {
      this.#room.joined(userId);
      this.#list.notice(`${this.#room.nameOf(userId)} joined`);
    });
    socket.on('userLeft', ({ userId }) => {
      this.#room.left(userId);
      this.#list.notice(`${this.#room.nameOf(userId)} left`);
    });
    socket.on('userTyping', ({ userId, isTyping }) => this.#room.typing(userId, isTyping));
    socket.on('controlMessage', ({ action }) => {
      this.#ui.textInput.disabled = action === 'disable_input';
    });
  }

  async #loadAgents() {
    const ui = this.#ui;
    ui.agentError.textContent = '';
    try {
      this.#agents = await this.#client.listAgents();
      const selected = ui.agentSelect.value;
      ui.agentSelect.replaceChildren(
        ...this.#agents.map((agent) => h('option', { value: agent.id }, agent.name)),
      );
      if (this.#agents.some((agent) => agent.id === selected)) ui.agentSelect.value = selected;
    } catch (error) {
      ui.agentError.textContent = `Could not load the agents: ${describeError(error)}`;
      // The server wants a key: the settings panel opens on its field (where people sign in, the header's Sign
      // in button is the way, and the error says so).
      if (ParleyClientError.isInstance(error) && error.code === 'UNAUTHORIZED' && !offersSignIn()) {
        ui.settings.open(ui.apiKeyInput);
      }
    }
  }

  #openChannel(channelId: string): Promise<void> {
    // An edit belongs to the channel it was begun in.
    if (this.#editing !== undefined) this.#endEdit();
    return this.#whileJoining(this.#enterChannel(channelId));
  }

  async #enterChannel(channelId: string) {
    const ui = this.#ui;
    const previous = this.#channelId;
    if (previous && previous !== channelId) await this.#socket?.leaveRoom(previous).catch(() => {});
    this.#channelId = channelId;
    this.#channelAgentId = this.#recent.find((entry) => entry.id === channelId)?.agentId;
    if (this.#channelAgentId && this.#isAgent(this.#channelAgentId)) {
      ui.agentSelect.value = this.#channelAgentId;
    }
    history.replaceState(null, '', `#channel=${channelId}`);
    const listed = this.#channels.find(channelId);
    ui.channelTitle.textContent = listed
      ? displayName(listed)
      : (this.#recent.find((entry) => entry.id === channelId)?.title ?? NEW_CHANNEL_NAME);
    this.#channels.seen(channelId);
    ui.channelError.textContent = '';
    ui.historyError.textContent = '';
    ui.sendError.textContent = '';
    this.#list.clear();
    this.#room.reset();
    void this.#showAgent();
    this.#oldest = undefined;
    this.#renderRecent();
    delete ui.messages.dataset.joined;
    try {
      await this.#socket?.joinRoom(channelId, this.#me.entityId);
      // From here on the room's live events reach this page (tests wait on it, not on time).
      if (channelId === this.#channelId) ui.messages.dataset.joined = channelId;
    } catch (error) {
      ui.channelError.textContent = `Could not join the channel: ${describeError(error)}`;
    }
    await this.#loadHistory();
  }

  /**
   * Says who answers in the open channel: the presence line names the agent, and an empty channel's first screen
   * greets with its name, its bio and prompts from its character (`GET /api/agents/{id}`; the name alone when
   * the details cannot be had).
   */
  async #showAgent() {
    const agentId = this.#channelAgentId ?? this.#ui.agentSelect.value;
    const name = this.#agentName(agentId);
    this.#room.setAgent(agentId ? name : undefined);
    this.#memories.refresh();
    if (!agentId) {
      this.#ui.welcome.hidden = true;
      return;
    }
    let details: unknown;
    try {
      const response = await fetch(`${location.origin}/api/agents/${encodeURIComponent(agentId)}`, {
        headers: credentialHeaders(),
      });
      if (response.ok) details = ((await response.json()) as { data?: unknown }).data;
    } catch {
      // The name alone.
    }
    if (agentId !== (this.#channelAgentId ?? this.#ui.agentSelect.value)) return;
    renderWelcome(this.#ui.welcome, profileFrom(details, name), (prompt) => {
      this.#ui.textInput.value = prompt;
      this.#ui.composer.requestSubmit();
    });
  }

  /** Loads the next page of history, older than what is shown. */
  async #loadHistory() {
    const ui = this.#ui;
    const channelId = this.#channelId;
    try {
      const page = await this.#client.channelMessages(channelId, {
        limit: HISTORY_PAGE,
        before: this.#oldest,
      });
      if (channelId !== this.#channelId) return;
      const oldestFirst = [...page].reverse();
      this.#oldest = oldestFirst[0]?.created_at ?? this.#oldest;
      for (const message of oldestFirst)
        this.#room.learnName(message.author_id, message.author_name);
      this.#list.prepend(
        oldestFirst.map((message) => fromStored(message, (id) => this.#roleOf(id))),
      );
      const agentMessage = oldestFirst.find((message) => this.#isAgent(message.author_id));
      if (agentMessage && !this.#channelAgentId) {
        this.#channelAgentId = agentMessage.author_id;
        ui.agentSelect.value = agentMessage.author_id;
      }
      show(ui.olderButton, page.length === HISTORY_PAGE);
      this.#updateRegenerate();
    } catch (error) {
      ui.historyError.textContent = `Could not load the history: ${describeError(error)}`;
    }
  }

  /** Shows the Stop button for `replyId` while it streams; hides it with undefined. */
  #showStop(replyId: string | undefined) {
    this.#stopping = replyId;
    this.#ui.stopButton.hidden = replyId === undefined;
  }

  /**
   * Cancels the reply being streamed. The server refuses a cancel the page may not make like it would refuse
   * a post; a reply that ended meanwhile is a 409, shown like any refusal.
   */
  async #stop() {
    const replyId = this.#stopping;
    if (!replyId) return;
    this.#ui.stopButton.disabled = true;
    try {
      await this.#client.cancelReply(replyId);
      this.#list.stopped(replyId);
    } catch (error) {
      this.#ui.sendError.textContent = `Not stopped: ${describeError(error)}`;
    } finally {
      this.#ui.stopButton.disabled = false;
      this.#showStop(undefined);
    }
  }

  /** Sends `text` (the composer's, or the last message again for Regenerate) with the waiting files. */
  async #send(text: string) {
    const ui = this.#ui;
    if (!text) return;
    // Sent before the page is in the channel's room (just after "Use key", a channel being opened), the reply
    // would be broadcast before the page could hear it: the send waits for the join.
    await this.#untilJoined();
    const mode = this.#mode();
    const agentId = this.#channelAgentId ?? ui.agentSelect.value;
    ui.sendError.textContent = '';
    this.#typing(false);
    ui.sendButton.disabled = true;
    ui.regenerateButton.hidden = true;
    let sent = false;
    try {
      const regenerating = text !== ui.textInput.value.trim();
      // A channel not made yet is made as `New chat`: the server names it after this message once it is
      // answered (a summary by the model, or the message's first words), and tells the room.
      if (!regenerating && this.#channels.fromServer) {
        await ensureChannel(this.#channels, this.#channelId, agentId || undefined);
      }
      const attachments = regenerating ? [] : await this.#files.upload(this.#channelId);
      await sendMessage({
        mode,
        text,
        attachments,
        channelId: this.#channelId,
        agentId,
        // Over the socket the channel's agent answers (the default agent in a new channel).
        socketReachesAgent: this.#channelAgentId !== undefined || agentId === this.#agents[0]?.id,
        me: this.#me,
        client: this.#client,
        socket: this.#socket,
        list: this.#list,
        agentName: this.#agentName(agentId),
        onReplying: (name) => {
          this.#room.replying(name);
          if (name === undefined) this.#showStop(undefined);
        },
        onReplyId: (replyId) => this.#showStop(replyId),
      });
      sent = true;
      // A channel made by its first message: the list learns it now, before it is renamed below (a list
      // fetched before the rename and arriving after it would bring the old name back).
      if (this.#channels.fromServer && !this.#channels.find(this.#channelId)) {
        await this.#channels.load();
        const named = this.#channels.find(this.#channelId);
        if (named) this.#ui.channelTitle.textContent = displayName(named);
      }
      if (!regenerating) {
        ui.textInput.value = '';
        this.#files.clear();
      }
      this.#channelAgentId ??= agentId;
      const known = this.#recent.find((entry) => entry.id === this.#channelId);
      this.#remember({
        id: this.#channelId,
        agentId,
        title: known?.title ?? channelNameFrom(text),
        openedAt: Date.now(),
      });
    } catch (error) {
      this.#list.endRegenerate();
      ui.sendError.textContent =
        error instanceof ReplyFailedError
          ? `The reply failed: ${describeError(error.cause)}`
          : `Not sent: ${describeError(error)}`;
    } finally {
      ui.sendButton.disabled = false;
      if (sent || ui.sendError.textContent) this.#updateRegenerate();
      ui.textInput.focus();
    }
  }

  /**
   * Regenerate: the server has the agent answer this browser's last message again. The new answer streams to
   * the room (this page hears it on the socket whatever "Send through" says) and takes the last answer's place;
   * the old one stays reachable (`‹ 1/2 ›`), after a reload and for other clients too, since the server keeps
   * both and marks the new one `regenerated`.
   */
  async #regenerate() {
    const ui = this.#ui;
    await this.#untilJoined();
    const messageId = this.#list.lastOwnId();
    if (!messageId) return;
    ui.sendError.textContent = '';
    ui.regenerateButton.hidden = true;
    this.#list.beginRegenerate(this.#list.lastOwnText() ?? '');
    const agentName = this.#agentName(this.#channelAgentId ?? ui.agentSelect.value);
    try {
      const replyId = await this.#answerAgain(messageId, 'regenerate');
      this.#room.replying(agentName);
      if (replyId) this.#showStop(replyId);
    } catch (error) {
      this.#list.endRegenerate();
      ui.sendError.textContent = `Not regenerated: ${describeError(error)}`;
      this.#updateRegenerate();
    }
  }

  /** Regenerate and Edit are offered once the channel holds a message of this browser's. */
  #updateRegenerate() {
    const none = this.#list.lastOwnText() === undefined;
    this.#ui.regenerateButton.hidden = none;
    this.#ui.editButton.hidden = none && this.#editing === undefined;
  }

  /** Edit: the composer takes this browser's last message; sending it again (Resend) replaces its text. */
  #beginEdit() {
    const ui = this.#ui;
    const messageId = this.#list.lastOwnId();
    const text = this.#list.lastOwnText();
    if (!messageId || text === undefined) return;
    this.#editing = messageId;
    ui.textInput.value = text;
    ui.sendButton.textContent = 'Resend';
    ui.editButton.textContent = 'Cancel edit';
    ui.editButton.setAttribute('aria-pressed', 'true');
    ui.regenerateButton.hidden = true;
    ui.textInput.focus();
  }

  /** Leaves Edit: the composer is empty and sends new messages again. */
  #endEdit() {
    const ui = this.#ui;
    this.#editing = undefined;
    ui.textInput.value = '';
    ui.sendButton.textContent = 'Send';
    ui.editButton.textContent = 'Edit';
    ui.editButton.setAttribute('aria-pressed', 'false');
    this.#updateRegenerate();
  }

  /**
   * Resend: the server stores the message's new text (the room, this page included, gets the message again with
   * it) and has the agent answer it again; the new answer takes the last answer's place, the old one a click
   * away, as with Regenerate.
   */
  async #resendEdited(text: string) {
    const ui = this.#ui;
    const messageId = this.#editing;
    if (!messageId || !text) return;
    await this.#untilJoined();
    ui.sendError.textContent = '';
    ui.sendButton.disabled = true;
    this.#list.beginRegenerate(text);
    const agentName = this.#agentName(this.#channelAgentId ?? ui.agentSelect.value);
    try {
      const replyId = await this.#answerAgain(messageId, 'edit', { text });
      this.#endEdit();
      this.#room.replying(agentName);
      if (replyId) this.#showStop(replyId);
    } catch (error) {
      this.#list.endRegenerate();
      ui.sendError.textContent = `Not resent: ${describeError(error)}`;
    } finally {
      ui.sendButton.disabled = false;
    }
  }

  /**
   * Has the agent answer this browser's message `messageId` again (`regenerate`), or after its new text (`edit`,
   * with `body`); the new reply's id. Rejects with the server's refusal.
   */
  async #answerAgain(
    messageId: string,
    route: 'regenerate' | 'edit',
    body?: { text: string },
  ): Promise<string | undefined> {
    const response = await fetch(
      `${location.origin}/api/messaging/channels/${encodeURIComponent(this.#channelId)}/messages/${encodeURIComponent(messageId)}/${route}`,
      {
        method: 'POST',
        headers: {
          ...(body ? { 'content-type': 'application/json' } : {}),
          ...credentialHeaders(),
        },
        ...(body ? { body: JSON.stringify(body) } : {}),
      },
    );
    const answer = (await response.json().catch(() => ({}))) as {
      data?: { replyId?: string };
      error?: { message?: string };
    };
    if (!response.ok) throw new Error(answer.error?.message ?? `HTTP ${response.status}`);
    return answer.data?.replyId;
  }

  /** The transport "Send through" picks. */
  #mode(): SendMode {
    return (this.#ui.modeInputs.find((input) => input.checked)?.value ?? 'socket') as SendMode;
  }

  /** What a decision on a waiting call goes over: the transport in use, with the page's API key. */
  #transport(): DecisionTransport {
    return {
      mode: this.#mode(),
      client: this.#client,
      socket: this.#socket,
      channelId: this.#channelId,
    };
  }

  #typing(isTyping: boolean) {
    clearTimeout(this.#typingTimer);
    const send = (value: boolean) =>
      this.#socket?.connected && this.#socket.setTyping(this.#channelId, this.#me.entityId, value);
    if (!isTyping) {
      if (this.#typingTimer !== undefined) send(false);
      this.#typingTimer = undefined;
      return;
    }
    if (this.#typingTimer === undefined) send(true);
    this.#typingTimer = setTimeout(() => this.#typing(false), TYPING_IDLE_MS);
  }

  #remember(channel: RecentChannel) {
    this.#recent = rememberChannel(this.#recent, channel);
    writeRecent(this.#recent, this.#account.person?.entityId);
    this.#renderRecent();
  }

  #renderRecent() {
    this.#channels.setRecent(this.#recent);
    this.#channels.render();
  }

  #isAgent(id: string): boolean {
    return this.#agents.some((agent) => agent.id === id);
  }

  #agentName(id: string): string {
    return this.#agents.find((agent) => agent.id === id)?.name ?? 'Agent';
  }

  #roleOf(senderId: string): MessageRole {
    if (senderId === this.#me.entityId) return 'own';
    return this.#isAgent(senderId) ? 'agent' : 'other';
  }
}
