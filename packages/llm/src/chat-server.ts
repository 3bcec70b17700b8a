/**
 * Test support (not exported by the package): a real HTTP server on 127.0.0.1 that speaks both
 * documented chat APIs, answering from a deterministic function of the messages:
 *
 *   OpenAI  POST /v1/chat/completions {model, messages, temperature}
 *           → {id, object: 'chat.completion', created, model, choices: [{index, message, finish_reason}], usage}
 *   Ollama  POST /api/chat {model, messages, stream: false, options: {temperature}}
 *           → {model, created_at, message: {role, content}, done: true, done_reason, …}
 *
 * Built on the embeddings tests' server, which records every request.
 */
import type { ServerResponse } from 'node:http';
import { sendJson, startServer, type RecordedRequest, type TestServer } from '../../embeddings/src/test-server.js';

export type { RecordedRequest, TestServer } from '../../embeddings/src/test-server.js';

export interface ChatBody {
  model: string;
  messages: { role: string; content: string }[];
  temperature?: number;
  stream?: boolean;
  options?: { temperature?: number };
}

/** The reply to a request; may return a delay in ms to wait before answering. */
export type Answer = (body: ChatBody, req: RecordedRequest) => string | { text: string; delayMs?: number; status?: number };

export async function startChatServer(answer: Answer): Promise<TestServer> {
  return startServer(async (req: RecordedRequest, res: ServerResponse) => {
    const body = req.body as ChatBody;
    const openai = req.method === 'POST' && req.path === '/v1/chat/completions';
    const ollama = req.method === 'POST' && req.path === '/api/chat';
    if (!openai && !ollama) return sendJson(res, 404, openai ? { error: { message: 'not found' } } : { error: `no route ${req.method} ${req.path}` });
    const a = answer(body, req);
    const { text, delayMs = 0, status = 200 } = typeof a === 'string' ? { text: a } : a;
    if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
    if (status !== 200) return sendJson(res, status, ollama ? { error: text } : { error: { message: text, type: 'server_error' } });
    if (openai) {
      sendJson(res, 200, {
        id: 'chatcmpl-test',
        object: 'chat.completion',
        created: 1_700_000_000,
        model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content: text, refusal: null }, logprobs: null, finish_reason: 'stop' }],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      });
    } else {
      sendJson(res, 200, {
        model: body.model,
        created_at: '2026-11-23T00:00:00Z',
        message: { role: 'assistant', content: text },
        done: true,
        done_reason: 'stop',
        total_duration: 1,
        load_duration: 0,
        prompt_eval_count: 1,
        eval_count: 1,
      });
    }
  });
}

/** The user message of a chat body. */
export const userText = (body: ChatBody): string => body.messages.find((m) => m.role === 'user')?.content ?? '';
