import { h } from './dom';
import { applyTheme, readTheme, type ThemeChoice } from './theme';

/** The settings panel's parts the app reads and listens to. */
export interface SettingsDialog {
  dialog: HTMLDialogElement;
  /** Opens the panel; focus goes to `focus` (else its first control) and comes back to the opener on close. */
  open: (focus?: HTMLElement) => void;
  close: () => void;
  apiKeyForm: HTMLFormElement;
  apiKeyInput: HTMLInputElement;
  modeInputs: HTMLInputElement[];
  themeInputs: HTMLInputElement[];
}

function radio(name: string, value: string, label: string, checked: boolean): HTMLLabelElement {
  return h(
    'label',
    { className: 'choice' },
    h('input', { type: 'radio', name, value, checked }),
    ` ${label}`,
  );
}

const FOCUSABLE =
  'button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), a[href], [tabindex]:not([tabindex="-1"])';

/** Keeps Tab and Shift+Tab inside `container`, wrapping at both ends. */
export function trapFocus(container: HTMLElement, event: KeyboardEvent): void {
  if (event.key !== 'Tab') return;
  const focusable = [...container.querySelectorAll<HTMLElement>(FOCUSABLE)].filter(
    (element) => element.offsetParent !== null || element === document.activeElement,
  );
  const first = focusable[0];
  const last = focusable.at(-1);
  if (!first || !last) return;
  if (event.shiftKey && document.activeElement === first) {
    event.preventDefault();
    last.focus();
  } else if (!event.shiftKey && document.activeElement === last) {
    event.preventDefault();
    first.focus();
  }
}

/**
 * The settings panel: a modal dialog (the page behind it is inert, Escape closes it, Tab stays inside) with the
 * colour scheme, the transport ("Send through": socket, REST stream, REST sync) and the API key.
 */
export function buildSettingsDialog(): SettingsDialog {
  const theme = readTheme();
  applyTheme(theme, false);
  const themeInputs = [
    radio('theme', 'system', 'System', theme === 'system'),
    radio('theme', 'light', 'Light', theme === 'light'),
    radio('theme', 'dark', 'Dark', theme === 'dark'),
  ];
  const modeInputs = [
    radio('mode', 'socket', 'Socket', true),
    radio('mode', 'stream', 'REST stream', false),
    radio('mode', 'sync', 'REST sync', false),
  ];
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
    h('p', { className: 'hint' }, 'Kept for this tab only, sent as x-api-key.'),
  );
  const closeButton = h('button', { type: 'button', className: 'close' }, 'Close');
  const dialog = h(
    'dialog',
    { className: 'settings', 'aria-labelledby': 'settings-title' },
    h('h2', { id: 'settings-title' }, 'Settings'),
    h('fieldset', { className: 'choices' }, h('legend', {}, 'Colours'), ...themeInputs),
    h('fieldset', { className: 'choices modes' }, h('legend', {}, 'Send through'), ...modeInputs),
    apiKeyForm,
    closeButton,
  );
  let opener: HTMLElement | undefined;
  const close = () => dialog.close();
  closeButton.addEventListener('click', close);
  dialog.addEventListener('keydown', (event) => trapFocus(dialog, event));
  dialog.addEventListener('close', () => opener?.focus());
  // A click on the backdrop (outside the panel's box) closes it too.
  dialog.addEventListener('click', (event) => {
    if (event.target === dialog) {
      const box = dialog.getBoundingClientRect();
      const inside =
        event.clientX >= box.left &&
        event.clientX <= box.right &&
        event.clientY >= box.top &&
        event.clientY <= box.bottom;
      if (!inside) close();
    }
  });
  const themeRadios = themeInputs.map((label) => label.querySelector('input')!);
  for (const input of themeRadios) {
    input.addEventListener('change', () => applyTheme(input.value as ThemeChoice));
  }
  return {
    dialog,
    open: (focus) => {
      opener = document.activeElement instanceof HTMLElement ? document.activeElement : undefined;
      if (!dialog.open) dialog.showModal();
      (focus ?? themeRadios.find((input) => input.checked) ?? closeButton).focus();
    },
    close,
    apiKeyForm,
    apiKeyInput,
    modeInputs: modeInputs.map((label) => label.querySelector('input')!),
    themeInputs: themeRadios,
  };
}
