/** `POST /api/messaging/channels/{channelId}/upload-media` (elizaOS's path): multipart, with its own size limit. */
const UPLOAD_MEDIA = /^\/api\/messaging\/channels\/[^/]+\/upload-media\/?$/;

/**
 * Whether a request is an attachment upload: its route reads the multipart body itself within
 * `ATTACHMENT_MAX_BYTES`, so the JSON body limit and the JSON content-type rule do not apply to it.
 */
export function isUploadRequest(method: string, path: string): boolean {
  return method === 'POST' && UPLOAD_MEDIA.test(path);
}
