import type { AttachmentRef } from '@parley/core';
import { h } from '../dom';
import { credentialHeaders } from '../auth/credential';
import { formatBytes } from './attachment-view';

/** Files waiting to go with one message, at most. */
export const MAX_PENDING_FILES = 8;

/** The upload path of a channel (elizaOS's path). */
export function uploadPath(channelId: string): string {
  return `/api/messaging/channels/${encodeURIComponent(channelId)}/upload-media`;
}

/** Uploads one file to a channel; resolves with what the message's `metadata.attachments` lists. */
export async function uploadFile(channelId: string, file: File): Promise<AttachmentRef> {
  const body = new FormData();
  body.append('file', file, file.name);
  const response = await fetch(uploadPath(channelId), {
    method: 'POST',
    headers: credentialHeaders(),
    body,
  });
  const json = (await response.json().catch(() => undefined)) as
    { success?: boolean; data?: AttachmentRef; error?: { message?: string } } | undefined;
  if (!response.ok || !json?.success || !json.data) {
    throw new Error(`${file.name}: ${json?.error?.message ?? `HTTP ${response.status}`}`);
  }
  return json.data;
}

/** Downloads an attachment with the page's key and saves it under its name. */
export async function downloadAttachment(attachment: AttachmentRef): Promise<void> {
  const response = await fetch(attachment.url, { headers: credentialHeaders() });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  const url = URL.createObjectURL(await response.blob());
  const link = h('a', { href: url, download: attachment.name });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/**
 * The files picked (the Attach button), dropped on the conversation or pasted into the message box, shown
 * above the composer with a Remove button each until the message is sent.
 */
export class ComposerFiles {
  readonly #list: HTMLUListElement;
  readonly #error: HTMLElement;
  #files: File[] = [];

  constructor(list: HTMLUListElement, error: HTMLElement) {
    this.#list = list;
    this.#error = error;
  }

  /** Listens to the file picker, drops on `dropZone` and pastes into `textInput`. */
  wire(fileInput: HTMLInputElement, dropZone: HTMLElement, textInput: HTMLTextAreaElement): void {
    fileInput.addEventListener('change', () => {
      this.add([...(fileInput.files ?? [])]);
      fileInput.value = '';
    });
    dropZone.addEventListener('dragover', (event) => {
      if (event.dataTransfer?.types.includes('Files')) {
        event.preventDefault();
        dropZone.dataset.dropping = 'true';
      }
    });
    dropZone.addEventListener('dragleave', () => delete dropZone.dataset.dropping);
    dropZone.addEventListener('drop', (event) => {
      delete dropZone.dataset.dropping;
      const files = [...(event.dataTransfer?.files ?? [])];
      if (files.length === 0) return;
      event.preventDefault();
      this.add(files);
      textInput.focus();
    });
    textInput.addEventListener('paste', (event) => {
      const files = [...(event.clipboardData?.files ?? [])];
      if (files.length === 0) return;
      event.preventDefault();
      this.add(files);
    });
  }

  /** The files waiting. */
  get files(): readonly File[] {
    return this.#files;
  }

  add(files: File[]): void {
    this.#error.textContent = '';
    const room = MAX_PENDING_FILES - this.#files.length;
    if (files.length > room) {
      this.#error.textContent = `At most ${MAX_PENDING_FILES} files go with one message.`;
    }
    this.#files = [...this.#files, ...files.slice(0, Math.max(0, room))];
    this.#render();
  }

  clear(): void {
    this.#files = [];
    this.#render();
  }

  /** Uploads every waiting file to `channelId`, in order. */
  async upload(channelId: string): Promise<AttachmentRef[]> {
    const refs: AttachmentRef[] = [];
    for (const [index, file] of this.#files.entries()) {
      this.#list.children[index]?.setAttribute('data-state', 'uploading');
      refs.push(await uploadFile(channelId, file));
      this.#list.children[index]?.setAttribute('data-state', 'uploaded');
    }
    return refs;
  }

  #render() {
    this.#list.hidden = this.#files.length === 0;
    this.#list.replaceChildren(
      ...this.#files.map((file, index) =>
        h(
          'li',
          {},
          `📎 ${file.name} (${formatBytes(file.size)}) `,
          h(
            'button',
            {
              type: 'button',
              'aria-label': `Remove ${file.name}`,
              onclick: () => {
                this.#files = this.#files.filter((_, at) => at !== index);
                this.#render();
              },
            },
            '×',
          ),
        ),
      ),
    );
  }
}
