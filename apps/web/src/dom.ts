/** Attributes of {@link h}: DOM properties, `data-*`/`aria-*` attributes, and `on*` listeners. */
export type Attributes = Record<string, string | number | boolean | undefined | EventListener>;

/**
 * Creates an element. Text children become text nodes, so no string is ever parsed as HTML: message text,
 * names and keys from the server are always shown as text.
 *
 * @example
 * h('button', { type: 'button', onclick: () => send() }, 'Send');
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: (Node | string | undefined | false)[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') {
      element.addEventListener(name.slice(2), value);
    } else if (name.includes('-') || name === 'for' || name === 'role') {
      element.setAttribute(name, value === true ? '' : String(value));
    } else {
      (element as unknown as Record<string, unknown>)[name] = value;
    }
  }
  for (const child of children) {
    if (child !== undefined && child !== false) element.append(child);
  }
  return element;
}

/** Shows or hides an element (the `hidden` attribute, so assistive technology agrees). */
export function show(element: HTMLElement, visible: boolean): void {
  element.hidden = !visible;
}
