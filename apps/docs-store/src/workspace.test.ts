import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@chunkyard/config';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadWorkspaceConfig } from './workspace.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'docs-store-workspace-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('loadWorkspaceConfig', () => {
  it('a config that is not UTF-8 is a config error saying so and to save it as UTF-8, as the other tools say (issue 15 probe)', () => {
    // Decoded with replacement characters, UTF-16 was "expected a mapping of settings at the top
    // level" and a Latin-1 byte became U+FFFD inside a value.
    const file = join(root, 'chunkyard.config.yaml');
    writeFileSync(file, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('chunking:\n  maxTokens: 300\n', 'utf16le')]));
    expect(() => loadWorkspaceConfig(root)).toThrow(new ConfigError(file, null, 'UTF-16 (little-endian) text (it starts with that byte order mark), not UTF-8; save it as UTF-8'));
    const latin1 = join(root, 'latin1.yaml');
    writeFileSync(latin1, Buffer.from('chunking:\n  strategy: sem\xe9antic\n', 'latin1'));
    expect(() => loadWorkspaceConfig(root, latin1)).toThrow(new ConfigError(latin1, null, 'not valid UTF-8 (first bad byte at offset 25); save it as UTF-8'));
    // UTF-8 with its byte order mark is UTF-8.
    writeFileSync(file, '\uFEFFchunking:\n  maxTokens: 300\n');
    expect(loadWorkspaceConfig(root).config.chunking.maxTokens).toBe(300);
  });
});
