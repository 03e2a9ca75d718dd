import { describe, expect, it } from 'vitest';
import { asksForMore } from './offline-note';

describe('asksForMore', () => {
  it('takes requests for work or knowledge as more than the offline model can do', () => {
    for (const text of [
      'Write me a poem about the sea',
      'Can you summarise this article?',
      'please translate "good morning" into French',
      'What is the capital of France?',
      "what's the weather in Paris",
      'How do I deploy this to Kubernetes?',
      'Tell me about the Roman empire',
      'Explain quantum computing',
      'Could you please book a table for two',
      'run DEPLOY', // a tool that is not offered: the model found no call for it
      'What is 2 + 2?', // arithmetic without a calculator offered
    ]) {
      expect(asksForMore(text), text).toBe(true);
    }
  });

  it('leaves conversation, and questions about the two speakers, to ELIZA', () => {
    for (const text of [
      'Hello',
      'I feel sad today',
      'My mother hates me.',
      'How are you?',
      'What is your name?',
      'Who are you?',
      'Tell me about my mother',
      'Why do you say that?',
      'Explain yourself',
      'I want to write a novel',
      'Thanks',
      '',
    ]) {
      expect(asksForMore(text), text).toBe(false);
    }
  });
});
