/**
 * @module models
 * The models agents answer with: the offline ELIZA-style default, any OpenAI-compatible endpoint, and the
 * choice between them from model settings (read from the environment in `config/`). `./testing/fake-openai-server` is a test helper and not exported here.
 */
export type * from './model-provider';
export { createElizaModel } from './eliza-model';
export type { ElizaModelOptions } from './eliza-model';
export type { ElizaKeyword, ElizaRule, ElizaScript } from './eliza/eliza-script';
export { DOCTOR_SCRIPT } from './eliza/doctor-script';
export { createOpenAICompatibleModel } from './openai-compatible-model';
export type { OpenAICompatibleModelOptions } from './openai-compatible-model';
export { createModel } from './model-from-env';
export type { ModelSettings } from './model-from-env';
export { toModelError } from './to-model-error';
export { streamModel } from './stream-model';
