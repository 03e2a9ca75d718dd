/** Longer announcements are cut: the message itself is in the list, to be read in full. */
const MAX_SPOKEN = 600;

/**
 * The page's polite live region for replies: each reply is said once, when it ends (not every chunk), and a
 * question (an approval) when it is asked. Without an element it says nothing.
 */
export class Announcer {
  readonly #region: HTMLElement | undefined;
  readonly #said = new Set<string>();

  constructor(region?: HTMLElement) {
    this.#region = region;
  }

  /** Forgets what was said (another channel was opened). */
  reset(): void {
    this.#said.clear();
  }

  /** Whether message `id` was announced. */
  has(id: string): boolean {
    return this.#said.has(id);
  }

  /** Says a finished message once: `Eliza: …`. */
  message(id: string, sender: string, text: string): void {
    if (this.#said.has(id)) return;
    this.#said.add(id);
    this.say(`${sender}: ${text.trim() || 'empty reply'}`);
  }

  /** Marks `id` as said without saying it (the same reply under its real id). */
  alias(id: string): void {
    this.#said.add(id);
  }

  say(text: string): void {
    if (!this.#region) return;
    this.#region.textContent = text.length > MAX_SPOKEN ? `${text.slice(0, MAX_SPOKEN)}…` : text;
  }
}
