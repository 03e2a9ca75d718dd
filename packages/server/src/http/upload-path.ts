/** `POST /api/messaging/channels/{channelId}/upload-media` (elizaOS's path): multipart, with its own size limit. */
const UPLOAD_MEDIA = /^\/api\/messaging\/channels\/[^/]+\/upload-media\/?$/;
/** `POST /api/agents/{agentId}/knowledge`: multipart or JSON, read within the KNOWLEDGE_* limits (knowledge-routes.ts). */
const KNOWLEDGE_UPLOAD = /^\/api\/agents\/[^/]+\/knowledge\/?$/;

/**
 * Whether a request is an upload (an attachment, knowledge): its route reads the body itself within its own
 * limit (`ATTACHMENT_MAX_BYTES`, `KNOWLEDGE_*`), so the JSON body limit and the JSON content-type rule do not apply to it.
 */
export function isUploadRequest(method: string, path: string): boolean {
  return method === 'POST' && (UPLOAD_MEDIA.test(path) || KNOWLEDGE_UPLOAD.test(path));
}
