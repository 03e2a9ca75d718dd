/** How long a typing indicator stays without a fresh `userTyping` (the sender may have gone quiet). */
const TYPING_EXPIRY_MS = 8_000;

/**
 * Who else is in the room (from `userJoined` and `userLeft` since this page joined) and who is typing,
 * rendered as text into two live regions.
 */
export class RoomStatus {
  readonly #members = new Set<string>();
  readonly #typing = new Map<string, ReturnType<typeof setTimeout>>();
  readonly #names = new Map<string, string>();
  #replying: string | undefined;

  constructor(
    private readonly membersElement: HTMLElement,
    private readonly typingElement: HTMLElement,
  ) {}

  /** Forgets everything (another room was opened). */
  reset(): void {
    this.#members.clear();
    for (const timer of this.#typing.values()) clearTimeout(timer);
    this.#typing.clear();
    this.#replying = undefined;
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

  /** Shows that an agent is producing a reply (`undefined` clears it). */
  replying(agentName: string | undefined): void {
    this.#replying = agentName;
    this.#render();
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
    this.membersElement.textContent =
      members.length === 0 ? 'No one else here yet' : `Also here: ${members.join(', ')}`;
    const typing = [...this.#typing.keys()].map((id) => this.nameOf(id));
    const lines = [
      typing.length === 0
        ? ''
        : `${typing.join(', ')} ${typing.length === 1 ? 'is' : 'are'} typing…`,
      this.#replying === undefined ? '' : `${this.#replying} is replying…`,
    ];
    this.typingElement.textContent = lines.filter(Boolean).join(' ');
  }
}
