import { randomUUID } from 'node:crypto';
import { Role, TaskState, type Task } from '@a2a-js/sdk';
import { ClientFactory, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { DefaultChatTransport, readUIMessageStream, type UIMessage } from 'ai';
import OpenAI from 'openai';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdOnABusyMachine, launchChromium } from './browser';
import { openChat, pageModel, startPageServer } from './chat-app';

holdOnABusyMachine();

/**
 * One agent, three clients' languages, one conversation each, with the clients people have (the `openai`
 * package, the AI SDK's own chat transport, the official A2A SDK): every reply is in its channel's history and
 * shows in the chat page like any conversation held there.
 */
describe('every client talks to the same agent, and the chat page shows each conversation', () => {
  const model = pageModel();
  let app: Awaited<ReturnType<typeof startPageServer>>;
  let browser: Browser;

  beforeAll(async () => {
    [app, browser] = await Promise.all([startPageServer({ model }), launchChromium()]);
  });

  afterAll(async () => {
    await browser?.close();
    await app?.server.stop();
  });

  /** The channel's messages, oldest first, as text. */
  async function history(channelId: string): Promise<string[]> {
    const response = await fetch(`${app.url}/api/messaging/channels/${channelId}/messages`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { data: { messages: { content: string }[] } };
    return body.data.messages.map((message) => message.content).reverse();
  }

  /** The conversation shown by the chat page opened on `channelId`: the user's bubble and the reply after it. */
  async function shownInChatPage(channelId: string, asked: string, answer: string) {
    const { context, page, problems } = await openChat(browser, `${app.url}/#channel=${channelId}`);
    try {
      // The client's person is someone else than the page's own visitor: their message shows as another's.
      const question = page.locator('li.message.other', { hasText: asked });
      await expect.poll(() => question.count()).toBe(1);
      const reply = question.locator('xpath=following-sibling::li[contains(@class,"agent")][1]');
      await expect.poll(() => reply.textContent()).toContain(answer);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  }

  it('the openai client (chat completions)', async () => {
    const openai = new OpenAI({ baseURL: `${app.url}/v1`, apiKey: 'unused-on-loopback' });
    const { data, response } = await openai.chat.completions
      .create({
        model: 'Eliza',
        messages: [{ role: 'user', content: 'echo: hello through openai' }],
        user: 'openai-person',
      })
      .withResponse();
    expect(data.choices[0]?.message.content).toBe('Echo:\nhello through openai');
    const channelId = response.headers.get('x-parley-channel-id')!;
    expect(await history(channelId)).toEqual([
      'echo: hello through openai',
      'Echo:\nhello through openai',
    ]);
    await shownInChatPage(channelId, 'echo: hello through openai', 'hello through openai');
  });

  it("the AI SDK's chat transport (useChat's)", async () => {
    const agentId = app.server.agents.defaultAgent.agentId;
    const transport = new DefaultChatTransport<UIMessage>({
      api: `${app.url}/api/messaging/ui-chat/${agentId}`,
    });
    const chatId = randomUUID();
    const stream = await transport.sendMessages({
      trigger: 'submit-message',
      chatId,
      messageId: undefined,
      messages: [
        {
          id: randomUUID(),
          role: 'user',
          parts: [{ type: 'text', text: 'echo: hello through ai' }],
        },
      ],
      abortSignal: undefined,
    });
    let built: UIMessage | undefined;
    for await (const message of readUIMessageStream({ stream })) built = message;
    const text = built?.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
    expect(text).toBe('Echo:\nhello through ai');
    expect(await history(chatId)).toEqual(['echo: hello through ai', 'Echo:\nhello through ai']);
    await shownInChatPage(chatId, 'echo: hello through ai', 'hello through ai');
  });

  it('the A2A SDK client', async () => {
    const client = await new ClientFactory({
      transports: [new JsonRpcTransportFactory({})],
    }).createFromUrl(app.url);
    const contextId = randomUUID();
    const task = (await client.sendMessage({
      tenant: '',
      message: {
        messageId: randomUUID(),
        contextId,
        taskId: '',
        role: Role.ROLE_USER,
        parts: [
          {
            content: { $case: 'text', value: 'echo: hello through a2a' },
            metadata: undefined,
            filename: '',
            mediaType: 'text/plain',
          },
        ],
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      },
      configuration: undefined,
      metadata: undefined,
    })) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(await history(contextId)).toEqual([
      'echo: hello through a2a',
      'Echo:\nhello through a2a',
    ]);
    await shownInChatPage(contextId, 'echo: hello through a2a', 'hello through a2a');
  });
});
