// The official SDK's Client over StreamableHTTPClientTransport, driven over stdin/stdout by
// mcp-http.test.ts: one JSON line in ({ method, args }), one JSON line out ({ value } or
// { error: { message, code } }). It runs as a plain Node process because the tests' Vite
// resolver loads eventsource-parser (imported by the SDK's HTTP client) from its TypeScript
// sources, which Node cannot run.
//
//   node sdk-http-client.mjs <url> [token]
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [url, token] = process.argv.slice(2);
const client = new Client({ name: 'docs-store-http-test', version: '0.0.0' });
const reply = (obj) => process.stdout.write(`${JSON.stringify(obj)}\n`);
const failure = (err) => ({ error: { message: err instanceof Error ? err.message : String(err), code: err?.code } });

try {
  await client.connect(new StreamableHTTPClientTransport(new URL(url), token ? { requestInit: { headers: { Authorization: `Bearer ${token}` } } } : {}));
  reply({ value: 'connected' });
} catch (err) {
  reply(failure(err));
  process.exit(0);
}
for await (const line of createInterface({ input: process.stdin })) {
  const { method, args } = JSON.parse(line);
  try {
    reply({ value: await client[method](args) });
  } catch (err) {
    reply(failure(err));
  }
}
await client.close();
