import type { StoredMessage } from '@parley/core';
import type { Logger } from 'pino';
import type { AgentProfile } from '../agents/agent-profile';
import type { ModelProvider } from '../models/model-provider';
import type { MessageStore } from '../storage/message-store';
import { buildPrompt } from './build-prompt';
import { ChunkCoalescer } from './chunk-coalescer';
import type { ReplyExtractor } from './reply-extractor';
import { toReplyError } from './reply-failure';
import type { ReplyStream } from './reply-stream';

/** What producing a model reply needs. */
export interface ModelReplyContext {
  store: MessageStore;
  model: ModelProvider;
  logger: Logger;
  /** How many earlier messages of the channel the model sees. */
  historyLimit: number;
  createExtractor: () => ReplyExtractor;
  /**
   * The reply's own signal (its controller in the reply registry, which a stop of the server aborts): the reply
   * then ends with an error part.
   */
  signal: AbortSignal;
}

/**
 * Has `agent` answer `userMessage` into `stream`: the history, the model's streamed answer through the
 * extractor (text deltas as they come), then the stored reply, or an `error` part. Never rejects.
 */
export async function produceModelReply(
  context: ModelReplyContext,
  stream: ReplyStream,
  agent: AgentProfile,
  userMessage: StoredMessage,
): Promise<void> {
  const { store, model, logger, historyLimit, signal } = context;
  const { replyId, channelId } = stream;
  const agentName = agent.character.name;
  stream.write({
    type: 'reply-start',
    replyId,
    channelId,
    agentId: agent.agentId,
    agentName,
    inReplyTo: userMessage.id,
  });
  try {
    const recent = await store.recent(channelId, historyLimit);
    // The message being answered goes last, even when later messages arrived meanwhile.
    const history = recent.filter((message) => message.id !== userMessage.id);
    history.push(userMessage);
    const extractor = context.createExtractor();
    let index = 0;
    const chunks = new ChunkCoalescer((delta) => {
      stream.write({ type: 'text-delta', replyId, delta, index });
      index += 1;
    });
    signal.throwIfAborted();
    const pieces = model.stream({
      messages: buildPrompt(agent.character, agent.agentId, history),
      signal,
      agentName,
    });
    try {
      for await (const piece of pieces) chunks.push(extractor.push(piece));
      chunks.push(extractor.flush());
    } finally {
      // Every delta goes out before the reply's last part.
      chunks.flush();
    }

    // Cancelled while the last piece came: nothing of a cancelled reply is stored.
    signal.throwIfAborted();
    const { text, actions, thought } = extractor.result();
    if (text.trim() === '' || !actions.includes('REPLY')) {
      const reason = actions.includes('REPLY') || actions.length === 0 ? 'empty' : 'ignored';
      logger.info(
        { agent: agentName, agentId: agent.agentId, channelId, replyId, reason, actions },
        'the agent chose not to reply',
      );
      stream.write({ type: 'reply-end', replyId, message: null, text, actions, thought, reason });
      return;
    }
    const message = await store.insert({
      id: replyId,
      channelId,
      serverId: userMessage.server_id,
      authorId: agent.agentId,
      authorName: agentName,
      content: text,
      sourceType: 'agent_response',
      rawMessage: thought === undefined ? { text, actions } : { text, thought, actions },
      metadata: { agent_id: agent.agentId, agentName },
      inReplyTo: userMessage.id,
      createdAt: new Date(),
    });
    stream.write({ type: 'reply-end', replyId, message, text, actions, thought });
  } catch (error) {
    // A cancel already ended the stream with its own part; the abort it caused is no failure to log.
    if (signal.aborted && stream.final) return;
    stream.write(
      toReplyError(error, replyId, logger, {
        agentId: agent.agentId,
        channelId,
        messageId: userMessage.id,
      }),
    );
  }
}
