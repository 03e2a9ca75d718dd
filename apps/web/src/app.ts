import {
  connectSocket,
  createParleyClient,
  type ParleyClient,
  type ParleySocket,
} from '@parley/client';
import type { AgentSummary } from '@parley/core';
import { decideApproval, type DecisionTransport } from './chat/decide-approval';
import { MessageList, type MessageRole } from './chat/message-list';
import { RoomStatus } from './chat/room-status';
import { fromBroadcast, fromStored } from './chat/to-chat-message';
import { listenToolEvents } from './chat/tool-events';
import { showConnectionState } from './connection-banner';
import { describeError } from './describe-error';
import { h, show } from './dom';
import type { Layout } from './layout';
import { isChannelId, parseRecent, rememberChannel, type RecentChannel } from './recent-channels';
import { apiKeySetting, identity, readRecent, saveName, writeRecent } from './settings';
import { sendMessage, type SendMode } from './send-message';
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
  readonly #me = identity();
  #client!: ParleyClient;
  #socket: ParleySocket | undefined;
  #agents: AgentSummary[] = [];
  #channelId = '';
  /** The agent that answers in the open channel, once known (from its history or the first send). */
  #channelAgentId: string | undefined;
  #oldest: string | undefined;
  /** The reply the Stop button cancels, while one streams. */
  #stopping: string | undefined;
  #recent: RecentChannel[] = parseRecent(readRecent());
  #typingTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(ui: Layout) {
    this.#ui = ui;
    this.#list = new MessageList(ui.messages, (request, approved, reason) =>
      decideApproval(this.#transport(), request, approved, reason),
    );
    this.#room = new RoomStatus(ui.members, ui.typing);
  }

  /** Connects, loads the agents and the TEE badge, and opens the channel of the address or a new one. */
  async start(): Promise<void> {
    this.#wire();
    this.#ui.nameInput.value = this.#me.name;
    this.#ui.apiKeyInput.value = apiKeySetting.get() ?? '';
    this.#renderRecent();
    await this.#connect(channelFromHash() ?? crypto.randomUUID());
  }

  #wire() {
    const ui = this.#ui;
    wireTeeBadge({ badge: ui.teeBadge, panel: ui.teePanel });
    ui.apiKeyForm.addEventListener('submit', (event) => {
      event.preventDefault();
      apiKeySetting.set(ui.apiKeyInput.value.trim());
      void this.#connect(this.#channelId);
    });
    ui.nameInput.addEventListener('change', () => {
      saveName(ui.nameInput.value);
      this.#me.name = ui.nameInput.value.trim() || this.#me.name;
    });
    ui.agentSelect.addEventListener('change', () => {
      // A channel belongs to the agent that first answered in it: another agent gets a new channel.
      if (this.#channelAgentId && this.#channelAgentId !== ui.agentSelect.value) {
        void this.#openChannel(crypto.randomUUID());
      }
    });
    ui.newChannelButton.addEventListener(
      'click',
      () => void this.#openChannel(crypto.randomUUID()),
    );
    ui.openChannelForm.addEventListener('submit', (event) => {
      event.preventDefault();
      const id = ui.openChannelInput.value.trim();
      if (!isChannelId(id)) {
        ui.channelError.textContent =
          'A channel id is a UUID, like 123e4567-e89b-42d3-a456-426614174000.';
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
      void this.#send();
    });
    window.addEventListener('hashchange', () => {
      const id = channelFromHash();
      if (id && id !== this.#channelId) void this.#openChannel(id);
    });
  }

  /** (Re)creates the client and the socket with the current API key, then reloads everything. */
  async #connect(channelId: string) {
    const apiKey = apiKeySetting.get();
    this.#client = createParleyClient({ baseUrl: location.origin, apiKey });
    this.#socket?.disconnect();
    const socket = connectSocket({
      baseUrl: location.origin,
      apiKey,
      reconnectionAttempts: Infinity,
    });
    this.#socket = socket;
    socket.onConnectionChange((state) => showConnectionState(this.#ui.banner, state));
    this.#listen(socket);
    void loadTee(this.#client, { badge: this.#ui.teeBadge, panel: this.#ui.teePanel });
    await this.#loadAgents();
    this.#channelId = '';
    await this.#openChannel(channelId);
  }

  #listen(socket: ParleySocket) {
    const agentName = () => this.#agentName(this.#channelAgentId ?? this.#ui.agentSelect.value);
    socket.on('messageBroadcast', (message) => {
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
    listenToolEvents(socket, this.#list, (replyId, name) => {
      this.#room.replying(name);
      this.#showStop(replyId);
    });
    socket.on('messageComplete', () => {
      this.#room.replying(undefined);
      this.#showStop(undefined);
    });
    socket.on('messageError', (error) => {
      if (error.code === 'CANCELLED') {
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
    }
  }

  async #openChannel(channelId: string) {
    const ui = this.#ui;
    const previous = this.#channelId;
    if (previous && previous !== channelId) await this.#socket?.leaveRoom(previous).catch(() => {});
    this.#channelId = channelId;
    this.#channelAgentId = this.#recent.find((entry) => entry.id === channelId)?.agentId;
    if (this.#channelAgentId && this.#isAgent(this.#channelAgentId)) {
      ui.agentSelect.value = this.#channelAgentId;
    }
    history.replaceState(null, '', `#channel=${channelId}`);
    ui.channelTitle.textContent = `Channel ${channelId}`;
    ui.channelError.textContent = '';
    ui.historyError.textContent = '';
    ui.sendError.textContent = '';
    this.#list.clear();
    this.#room.reset();
    this.#oldest = undefined;
    this.#renderRecent();
    try {
      await this.#socket?.joinRoom(channelId, this.#me.entityId);
    } catch (error) {
      ui.channelError.textContent = `Could not join the channel: ${describeError(error)}`;
    }
    await this.#loadHistory();
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
    } catch (error) {
      this.#ui.sendError.textContent = `Not stopped: ${describeError(error)}`;
    } finally {
      this.#ui.stopButton.disabled = false;
      this.#showStop(undefined);
    }
  }

  async #send() {
    const ui = this.#ui;
    const text = ui.textInput.value.trim();
    if (!text) return;
    const mode = this.#mode();
    const agentId = this.#channelAgentId ?? ui.agentSelect.value;
    ui.sendError.textContent = '';
    this.#typing(false);
    ui.sendButton.disabled = true;
    try {
      await sendMessage({
        mode,
        text,
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
      ui.textInput.value = '';
      this.#channelAgentId ??= agentId;
      const known = this.#recent.find((entry) => entry.id === this.#channelId);
      this.#remember({
        id: this.#channelId,
        agentId,
        title: known?.title ?? text.slice(0, 40),
        openedAt: Date.now(),
      });
    } catch (error) {
      ui.sendError.textContent = `Not sent: ${describeError(error)}`;
    } finally {
      ui.sendButton.disabled = false;
      ui.textInput.focus();
    }
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
    writeRecent(this.#recent);
    this.#renderRecent();
  }

  #renderRecent() {
    const ui = this.#ui;
    ui.recentList.replaceChildren(
      ...this.#recent.map((entry) => {
        const label = `${entry.title ?? entry.id.slice(0, 8)}${entry.agentId ? ` · ${this.#agentName(entry.agentId)}` : ''}`;
        return h(
          'li',
          {},
          h(
            'button',
            {
              type: 'button',
              'aria-current': entry.id === this.#channelId ? 'true' : undefined,
              title: entry.id,
              onclick: () => void this.#openChannel(entry.id),
            },
            label,
          ),
        );
      }),
    );
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
