// docs-serve --host given a URL or an address with a port (what a new user copies from the
// serving line or from another tool's config): it was "not an address of this machine
// (ENOTFOUND); use --host 127.0.0.1", which did not say what was wrong (probe). Now a usage
// error naming it and the options to give instead; bare addresses and names still listen.
import { expect, it } from 'vitest';
import { hostProblem, main } from './main.js';

const run = async (argv: string[]) => {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s) }, () => Promise.resolve('test'));
  return { code, stdout, stderr };
};
const usage = (what: string) => ({ code: 2, stdout: '', stderr: `docs-serve: ${what}\nRun docs-serve --help for usage.\n` });

it('a --host that is a URL or carries a port is a usage error saying what to give instead', async () => {
  const docs = import.meta.dirname; // any folder: the error comes before it is looked at
  expect(await run([docs, '--host', 'http://127.0.0.1:9000/'])).toEqual(usage('--host "http://127.0.0.1:9000/" is a URL; give the host alone (--host 127.0.0.1 --port 9000)'));
  expect(await run([docs, '--host', 'https://docs.example.org'])).toEqual(usage('--host "https://docs.example.org" is a URL; give the host alone (--host docs.example.org)'));
  expect(await run([docs, '--host', 'http://[::1]:8080'])).toEqual(usage('--host "http://[::1]:8080" is a URL; give the host alone (--host ::1 --port 8080)'));
  expect(await run([docs, '--host', '127.0.0.1:9000'])).toEqual(usage('--host "127.0.0.1:9000" carries a port; give it with --port (--host 127.0.0.1 --port 9000)'));
  expect(await run([docs, '--host', 'localhost:'])).toEqual(usage('--host "localhost:" carries a port; give it with --port (--host localhost)'));
  expect(await run([docs, '--host', '[::1]:8080'])).toEqual(usage('--host "[::1]:8080" carries a port; give it with --port (--host ::1 --port 8080)'));
  // Bare addresses and names are left to listen().
  for (const host of ['127.0.0.1', '::1', '[::1]', '0.0.0.0', '::', 'localhost', 'fe80::1', 'docs.internal']) expect(hostProblem(host), host).toBeNull();
  // And one still serves (loopback, a free port).
  const v4 = await run([docs, '--host', '127.0.0.1', '--port', '0']);
  expect(v4.code).toBe(0);
  expect(v4.stdout).toMatch(/serving .* at http:\/\/127\.0\.0\.1:\d+\//);
});

it('a --host holding a space or control character is a usage error naming it on one line (helper-78 probe: a CR LF in it went raw into the listen error, exit 1)', async () => {
  const docs = import.meta.dirname;
  for (const host of ['h\r\nFAKE: line', 'docs example.org', 'x\u001b[2J', '127.0.0.1\u202e', '\u0085localhost']) {
    const r = await run([docs, '--host', host]);
    expect(r, JSON.stringify(host)).toEqual(usage(`--host ${JSON.stringify(host).replace(/[\u007f-\u009f\u202a-\u202e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}: not a host name or address (it holds a space or control character); use --host 127.0.0.1, or an address this machine has`));
    expect(r.stderr.split('\n')).toHaveLength(3);
  }
});
