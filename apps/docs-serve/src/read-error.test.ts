// A file that opens but cannot be read: the operator's log line names it. Linux's
// /sys/class/net/lo/speed is a real one (a regular file of 4096 bytes whose read fails with
// EINVAL), served here as a docs root of its own; skipped where there is no such file.
import { readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startServer } from './server.js';

const ROOT = '/sys/class/net/lo';
const readFails = (() => {
  try {
    readFileSync(join(ROOT, 'speed'));
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EINVAL';
  }
})();

describe('docs-serve: a read error', () => {
  it.runIf(readFails)('is 500, and the log line names the file (it was "EINVAL: invalid argument, read")', async () => {
    const lines: string[] = [];
    const srv = await startServer({ root: ROOT, port: 0, inspector: false, log: (line) => lines.push(line) });
    try {
      const res = await fetch(`${srv.url}speed`);
      expect(res.status).toBe(500);
      await res.arrayBuffer();
      expect(lines).toEqual([`${join(realpathSync(ROOT), 'speed')}: EINVAL: invalid argument, read`]);
    } finally {
      await srv.close();
    }
  });
});

// No file here fails part way through its read, so one is made to: fs.read, which Node's
// ReadStream calls through the fs module object, fails with EIO for reads past the first 64 KiB
// of one file while the request runs. Everything else is real: the server, its socket, fetch.
describe('docs-serve: a read error part way through a file', () => {
  it('cuts the connection, logs the file, and the server goes on serving (it exited: ERR_HTTP_HEADERS_SENT)', async () => {
    const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
    const fs = (await import('node:fs')).default;
    const { tmpdir } = await import('node:os');
    const root = mkdtempSync(join(tmpdir(), 'serve-midread-'));
    writeFileSync(join(root, 'big.md'), 'x'.repeat(1 << 20));
    writeFileSync(join(root, 'small.md'), 'fine');
    const lines: string[] = [];
    const srv = await startServer({ root, port: 0, inspector: false, log: (line) => lines.push(line) });
    const realRead = fs.read;
    try {
      // Only reads at a position past 64 KiB fail: the first chunk of big.md (and any small file) reads.
      fs.read = ((fd: number, buffer: NodeJS.ArrayBufferView, offset: number, length: number, position: number | null, callback: (err: NodeJS.ErrnoException | null, bytesRead: number, buffer: NodeJS.ArrayBufferView) => void) => {
        if (typeof position === 'number' && position >= 65536) {
          const err: NodeJS.ErrnoException = Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO', errno: -5, syscall: 'read' });
          process.nextTick(() => callback(err, 0, buffer));
          return;
        }
        realRead(fd, buffer, offset, length, position, callback);
      }) as typeof fs.read;
      const res = await fetch(`${srv.url}big.md`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-length')).toBe(String(1 << 20));
      // The body stops short: the connection is cut, not ended as if the file were whole.
      await expect(res.arrayBuffer()).rejects.toThrow();
      fs.read = realRead;
      expect(lines).toEqual([`${join(realpathSync(root), 'big.md')}: input/output error (EIO); check the disk`]);
      const after = await fetch(`${srv.url}small.md`);
      expect(after.status).toBe(200);
      expect(await after.text()).toBe('fine');
    } finally {
      fs.read = realRead;
      await srv.close();
      rmSync(root, { recursive: true, force: true });
    }
  });
});

// The inspector's route serves its files with send too, and answered a failed read with the
// file's own headers left on: a Content-Length far past the short error body (the client waited),
// or, part way through, a second status line (ERR_HTTP_HEADERS_SENT: the server exited).
describe('docs-serve: a read error in the inspector route', () => {
  async function withFailingReads(fromPosition: number, run: (url: string, lines: string[]) => Promise<void>): Promise<void> {
    const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
    const fs = (await import('node:fs')).default;
    const { tmpdir } = await import('node:os');
    const inspector = mkdtempSync(join(tmpdir(), 'serve-inspector-'));
    const docs = mkdtempSync(join(tmpdir(), 'serve-docs-'));
    writeFileSync(join(inspector, 'index.html'), '<p>' + 'x'.repeat(1 << 20));
    writeFileSync(join(docs, 'small.md'), 'fine');
    const lines: string[] = [];
    const srv = await startServer({ root: docs, port: 0, inspector, log: (line) => lines.push(line) });
    const realRead = fs.read;
    try {
      fs.read = ((fd: number, buffer: NodeJS.ArrayBufferView, offset: number, length: number, position: number | null, callback: (err: NodeJS.ErrnoException | null, bytesRead: number, buffer: NodeJS.ArrayBufferView) => void) => {
        if (typeof position === 'number' && position >= fromPosition && length > 4) {
          const err: NodeJS.ErrnoException = Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO', errno: -5, syscall: 'read' });
          process.nextTick(() => callback(err, 0, buffer));
          return;
        }
        realRead(fd, buffer, offset, length, position, callback);
      }) as typeof fs.read;
      await run(srv.url, lines);
    } finally {
      fs.read = realRead;
      await srv.close();
      rmSync(inspector, { recursive: true, force: true });
      rmSync(docs, { recursive: true, force: true });
    }
  }

  it('answers 500 with its own short body when the first read fails', async () => {
    await withFailingReads(0, async (url) => {
      const res = await fetch(`${url}_inspect/`);
      expect(res.status).toBe(500);
      const body = await res.text();
      expect(body).toBe('Error\n');
      expect(res.headers.get('content-length')).not.toBe(String((1 << 20) + 3));
      expect(res.headers.get('etag')).toBeNull();
    });
  });

  it('cuts the connection when a read fails part way, and the server goes on', async () => {
    await withFailingReads(65536, async (url) => {
      const res = await fetch(`${url}_inspect/`);
      expect(res.status).toBe(200);
      await expect(res.arrayBuffer()).rejects.toThrow();
      const after = await fetch(`${url}small.md`);
      expect(await after.text()).toBe('fine');
    });
  });
});
