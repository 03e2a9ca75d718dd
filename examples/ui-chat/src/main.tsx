import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport, lastAssistantMessageIsCompleteWithApprovalResponses } from 'ai';
import { useState } from 'react';
import { createRoot } from 'react-dom/client';

/** The agent and token, from the page's address: `?agent=<agentId>&token=<server token>`. */
const params = new URLSearchParams(location.search);
const agentId = params.get('agent') ?? '';
const token = params.get('token') ?? '';

function Chat() {
  const { messages, sendMessage, addToolApprovalResponse, status, error } = useChat({
    transport: new DefaultChatTransport({
      api: `/api/messaging/ui-chat/${encodeURIComponent(agentId)}`,
      headers: { 'x-api-key': token },
    }),
    // An approval answered here sends the chat again: the agent's reply goes on from where it paused.
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  });
  const [input, setInput] = useState('');

  return (
    <main>
      {messages.map((message) => (
        <div key={message.id}>
          <b>{message.role}: </b>
          {message.parts.map((part, index) => {
            if (part.type === 'text') return <span key={index}>{part.text}</span>;
            if (!part.type.startsWith('tool-') || !('state' in part)) return null;
            const tool = part as {
              type: string;
              state: string;
              input?: unknown;
              output?: unknown;
              approval?: { id: string };
            };
            return (
              <div key={index}>
                <code>
                  {tool.type.slice(5)}({JSON.stringify(tool.input)}) {tool.state}{' '}
                  {tool.output === undefined ? '' : JSON.stringify(tool.output)}
                </code>
                {tool.state === 'approval-requested' && tool.approval && (
                  <>
                    <button
                      onClick={() =>
                        void addToolApprovalResponse({ id: tool.approval!.id, approved: true })
                      }
                    >
                      Approve
                    </button>
                    <button
                      onClick={() =>
                        void addToolApprovalResponse({ id: tool.approval!.id, approved: false })
                      }
                    >
                      Deny
                    </button>
                  </>
                )}
              </div>
            );
          })}
        </div>
      ))}
      {error && <p role="alert">{error.message}</p>}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (input.trim() === '') return;
          void sendMessage({ text: input });
          setInput('');
        }}
      >
        <input value={input} onChange={(event) => setInput(event.target.value)} />
        <button disabled={status !== 'ready'}>Send</button>
      </form>
    </main>
  );
}

createRoot(document.getElementById('root')!).render(<Chat />);
