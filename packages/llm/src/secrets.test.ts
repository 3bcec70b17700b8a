// A server may echo the request's Authorization header in its error page or in a 2xx body's
// error; LlmError quotes what the server wrote, and docs-score and chunking-tool print it. The
// API key and the Basic-auth password must never arrive there (issue 15 probe: "Incorrect API
// key provided: Bearer sk-…" came back whole). The real client, a real local server: the
// probes are the embedding providers' own (embeddings' test-echoed-credentials.ts).
import { describeEchoedCredentials } from '../../embeddings/src/test-echoed-credentials.js';
import { createChatClient, LlmError } from './index.js';

describeEchoedCredentials({
  title: (kind) => `${kind} chat against a server that echoes the credentials it was sent (issue 15 probe)`,
  call: (settings, env) => createChatClient({ ...settings, backoffMs: 1, maxRetries: 0 }, env).chat([{ role: 'user', content: 'hi' }]),
  error: LlmError,
});
