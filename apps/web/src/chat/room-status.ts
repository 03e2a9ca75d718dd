/** How long a typing indicator stays without a fresh `userTyping` (the sender may have gone quiet). */
const TYPING_EXPIRY_MS = 8_000;

/** What the channel's agent is doing: nothing, producing a reply, or waiting for a person's decision. */
type AgentState =
  { doing: 'idle' } | { doing: 'replying'; name: string } | { doing: 'waiting'; name: string };

/**
 * Who else is in the room (from `userJoined` and `userLeft` since this page joined), who is typing and what the
 * agent is doing, rendered as text into two live regions. The lines say only what is so: an agent replying is
 * not "no one", and a reply waiting for an approval is not "replying".
 */
export class RoomStatus {
  readonly #members = new Set<string>();
  readonly #typing = new Map<string, ReturnType<typeof setTimeout>>();
  readonly #names = new Map<string, string>();
  #agent: AgentState = { doing: 'idle' };
  /** The channel's agent, for the presence line. */
  #agentName: string | undefined;

  constructor(
    private readonly membersElement: HTMLElement,
    private readonly typingElement: HTMLElement,
  ) {}

  /** Forgets everything (another room was opened). */
  reset(): void {
    this.#members.clear();
    for (const timer of this.#typing.values()) clearTimeout(timer);
    this.#typing.clear();
    this.#agent = { doing: 'idle' };
    this.#render();
  }

  /** The agent that answers in this channel (undefined: not known yet). */
  setAgent(name: string | undefined): void {
    this.#agentName = name;
    this.#render();
  }

  /** Learns a display name for an entity id (from messages), used instead of the id. */
  learnName(userId: string, name: string): void {
    if (!userId || !name || this.#names.get(userId) === name) return;
    this.#names.set(userId, name);
    this.#render();
  }

  /** The display name of an entity id. */
  nameOf(userId: string): string {
    // A chat page's id is `user-<uuid>` and its default name `Guest <4 hex>`: the best guess until it speaks.
    return (
      this.#names.get(userId) ??
      (/^user-[0-9a-f]{4}/.test(userId) ? `Guest ${userId.slice(5, 9)}` : userId)
    );
  }

  /** Shows that an agent is producing a reply (`undefined`: it is done, so idle). */
  replying(agentName: string | undefined): void {
    this.#agent =
      agentName === undefined ? { doing: 'idle' } : { doing: 'replying', name: agentName };
    this.#render();
  }

  /** Shows that an agent's reply waits for a person to approve or deny a call. */
  waiting(agentName: string): void {
    this.#agent = { doing: 'waiting', name: agentName };
    this.#render();
  }

  /** What the agent is doing, as the page shows it: `idle`, `replying` or `waiting`. */
  get agentState(): AgentState['doing'] {
    return this.#agent.doing;
  }

  joined(userId: string): void {
    this.#members.add(userId);
    this.#render();
  }

  left(userId: string): void {
    this.#members.delete(userId);
    this.#stopTyping(userId);
    this.#render();
  }

  typing(userId: string, isTyping: boolean): void {
    this.#stopTyping(userId);
    if (isTyping) {
      this.#members.add(userId);
      this.#typing.set(
        userId,
        setTimeout(() => {
          this.#typing.delete(userId);
          this.#render();
        }, TYPING_EXPIRY_MS),
      );
    }
    this.#render();
  }

  #stopTyping(userId: string) {
    const timer = this.#typing.get(userId);
    if (timer !== undefined) clearTimeout(timer);
    this.#typing.delete(userId);
  }

  #render() {
    const members = [...this.#members].map((id) => this.nameOf(id));
    const agent = this.#agent.doing === 'idle' ? this.#agentName : this.#agent.name;
    this.membersElement.textContent =
      members.length > 0
        ? `Also here: ${members.join(', ')}`
        : agent
          ? `You and ${agent}`
          : 'Just you';
    this.membersElement.dataset.agent = this.#agent.doing;
    const typing = [...this.#typing.keys()].map((id) => this.nameOf(id));
    const lines = [
      typing.length === 0
        ? ''
        : `${typing.join(', ')} ${typing.length === 1 ? 'is' : 'are'} typing…`,
      this.#agent.doing === 'replying'
        ? `${this.#agent.name} is replying…`
        : this.#agent.doing === 'waiting'
          ? `${this.#agent.name} is waiting for your approval`
          : '',
    ];
    this.typingElement.textContent = lines.filter(Boolean).join(' ');
  }
}
