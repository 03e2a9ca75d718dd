import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors/config-error';
import { createModelFromEnv } from './model-settings';
import { startFakeOpenAIServer } from '../models/testing/fake-openai-server';

describe('createModelFromEnv', () => {
  it('uses the offline model when MODEL_PROVIDER is unset or eliza', () => {
    expect(createModelFromEnv({}).name).toBe('eliza');
    expect(createModelFromEnv({ MODEL_PROVIDER: ' Eliza ' }).name).toBe('eliza');
  });

  it('uses an OpenAI-compatible endpoint with the configured model, key and address', async () => {
    const seen: unknown[] = [];
    await using upstream = await startFakeOpenAIServer({
      reply: 'hi from upstream',
      onRequest: ({ headers, body }) => seen.push({ authorization: headers.authorization, body }),
    });
    const model = createModelFromEnv({
      MODEL_PROVIDER: 'openai',
      OPENAI_BASE_URL: upstream.url,
      OPENAI_API_KEY: 'sk-env',
      MODEL: 'llama3.2',
    });
    let text = '';
    for await (const piece of model.stream({
      agentName: 'Eliza',
      messages: [{ role: 'user', content: 'hi' }],
    })) {
      if (piece.type === 'text-delta') text += piece.delta;
    }
    expect(text).toBe('hi from upstream');
    expect(seen).toEqual([
      { authorization: 'Bearer sk-env', body: expect.objectContaining({ model: 'llama3.2' }) },
    ]);
  });

  it('requires MODEL for the openai provider', () => {
    expect(() => createModelFromEnv({ MODEL_PROVIDER: 'openai' })).toThrow(
      new ConfigError(
        'MODEL is required when MODEL_PROVIDER=openai (for example MODEL=gpt-4o-mini)',
      ),
    );
  });

  it('rejects an unknown provider, a bad address and a bad timeout, naming the setting', () => {
    expect(() => createModelFromEnv({ MODEL_PROVIDER: 'gemini' })).toThrow(/MODEL_PROVIDER/);
    const openai = { MODEL_PROVIDER: 'openai', MODEL: 'm', OPENAI_API_KEY: 'sk-secret' };
    expect(() => createModelFromEnv({ ...openai, OPENAI_BASE_URL: 'not a url' })).toThrow(
      /OPENAI_BASE_URL/,
    );
    expect(() => createModelFromEnv({ ...openai, OPENAI_BASE_URL: 'ftp://host/v1' })).toThrow(
      /OPENAI_BASE_URL/,
    );
    expect(() => createModelFromEnv({ ...openai, MODEL_TIMEOUT_MS: '-5' })).toThrow(
      /MODEL_TIMEOUT_MS/,
    );
    expect(() => createModelFromEnv({ ...openai, MODEL_TIMEOUT_MS: 'soon' })).toThrow(ConfigError);
  });
});
