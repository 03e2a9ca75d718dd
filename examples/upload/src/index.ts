/**
 * @module @parley/example-upload
 * Example Parley plugin for SPEC.md's multipart reference route: `POST /upload`.
 */
export { uploadPlugin, uploadPlugin as default } from './upload-plugin';
export { uploadPluginTests } from './upload-plugin-tests';
export { uploadRoute } from './upload-route';
export type { UploadAttachment } from './upload-route';
export { formatSize } from './format-size';
