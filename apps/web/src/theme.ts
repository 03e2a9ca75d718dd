/** The page's colour scheme: the system's (`prefers-color-scheme`), or one a person picked. */
export type ThemeChoice = 'system' | 'light' | 'dark';

const KEY = 'parley.theme';

/** A stored value as a choice; anything else (storage is user-editable) is `system`. */
export function parseTheme(value: unknown): ThemeChoice {
  return value === 'light' || value === 'dark' ? value : 'system';
}

/** The remembered choice (`system` when none, or when storage is off). */
export function readTheme(): ThemeChoice {
  try {
    return parseTheme(localStorage.getItem(KEY));
  } catch {
    return 'system';
  }
}

/**
 * Applies and remembers a choice. `system` leaves the page to `prefers-color-scheme` (style.css); `light` and
 * `dark` set `data-theme` on the root element, which wins over the media query.
 */
export function applyTheme(choice: ThemeChoice, remember = true): void {
  const root = document.documentElement;
  if (choice === 'system') delete root.dataset.theme;
  else root.dataset.theme = choice;
  if (!remember) return;
  try {
    if (choice === 'system') localStorage.removeItem(KEY);
    else localStorage.setItem(KEY, choice);
  } catch {
    // Storage off: the choice lasts as long as the page.
  }
}
