/**
 * @module models
 * The models agents answer with: the offline ELIZA-style default, any OpenAI-compatible endpoint, and the
 * choice between them from settings. `./testing/fake-openai-server` is a test helper and not exported here.
 */
export type { ModelMessage, ModelProvider, ModelRequest } from './model-provider';
export { createElizaModel } from './eliza-model';
export type { ElizaModelOptions } from './eliza-model';
export type { ElizaKeyword, ElizaRule, ElizaScript } from './eliza/eliza-script';
export { DOCTOR_SCRIPT } from './eliza/doctor-script';
export { createOpenAICompatibleModel } from './openai-compatible-model';
export type { OpenAICompatibleModelOptions } from './openai-compatible-model';
export { createModelFromEnv } from './model-from-env';
export { toModelError } from './to-model-error';
