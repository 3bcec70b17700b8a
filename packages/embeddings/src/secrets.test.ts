// Issue 15: a server that echoes the credentials it was sent gets them back redacted in every
// error message (the probes, shared with @chunkyard/llm's chat client, are in
// test-echoed-credentials.ts), and redactSecrets, which does it, on its own.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MIN_REDACTED_LENGTH, redactSecrets } from './attempt.js';
import { createProvider, EmbeddingError } from './index.js';
import { describeEchoedCredentials, KEY } from './test-echoed-credentials.js';

describeEchoedCredentials({
  title: (kind) => `${kind} provider against a server that echoes the credentials it was sent (issue 15 probe)`,
  call: (settings, env) => createProvider({ ...settings, backoffMs: 1, maxRetries: 0 }, env).embed(['a']),
  error: EmbeddingError,
  kindOf: (err) => err.kind,
});

describe('redactSecrets', () => {
  it('replaces every occurrence of each secret, and leaves short ones (a dummy key such as "x") alone', () => {
    expect(redactSecrets(`a ${KEY} b ${KEY}`, [KEY])).toBe('a [redacted] b [redacted]');
    expect(redactSecrets('x marks the spot', ['x'])).toBe('x marks the spot');
  });

  it('never leaves a secret of redactable length in the text, wherever it is planted', () => {
    // Keys and tokens are of these characters (base64 adds + / =), none of them a bracket, so a
    // marker put in cannot join with its neighbours into a secret.
    const secretArb = fc.stringMatching(new RegExp(`^[A-Za-z0-9_+/=-]{${MIN_REDACTED_LENGTH},40}$`));
    fc.assert(
      fc.property(fc.array(secretArb, { minLength: 1, maxLength: 3 }), fc.array(fc.string({ maxLength: 20 }), { maxLength: 6 }), (secrets, pieces) => {
        // Each secret planted between the pieces, the secrets also side by side (overlaps).
        const text = pieces.reduce((acc, p, i) => `${acc}${p}${secrets[i % secrets.length]!}`, secrets.join(''));
        const out = redactSecrets(text, secrets);
        // A secret the redaction marker itself spells cannot be told apart; none of these can.
        for (const s of secrets) if (!'[redacted]'.includes(s)) expect(out).not.toContain(s);
      }),
    );
  });
});

describe('redactSecrets on a quote cut inside a secret', () => {
  it('redacts the start of a secret that a cut quote ends with, `…` or not (helper-36 probe: the 300-character cut left the key\'s first part)', () => {
    const body = `Incorrect API key provided: Bearer ${KEY}. See the docs.`;
    const at = body.indexOf(KEY);
    for (let cut = at + 4; cut < at + KEY.length; cut++) {
      for (const ellipsis of ['…', '']) {
        const out = redactSecrets(`${body.slice(0, cut)}${ellipsis}`, [KEY]);
        expect(out).toBe(`${body.slice(0, at)}[redacted]${ellipsis}`);
      }
    }
    // Under four characters of it: nothing of a key, and ordinary text is left alone.
    expect(redactSecrets(`${body.slice(0, at + 3)}…`, [KEY])).toBe(`${body.slice(0, at + 3)}…`);
    // A whole secret and a cut one in the same quote.
    expect(redactSecrets(`${KEY} and ${KEY.slice(0, 10)}…`, [KEY])).toBe('[redacted] and [redacted]…');
  });

  it('leaves no four-character start of the secret at the end of any cut (property)', () => {
    fc.assert(
      fc.property(fc.string({ minLength: MIN_REDACTED_LENGTH, maxLength: 40 }), fc.string({ maxLength: 30 }), fc.nat(), (secret, before, at) => {
        const text = `${before}${secret}`;
        const cut = before.length + 4 + (at % Math.max(1, secret.length - 4));
        const out = redactSecrets(`${text.slice(0, cut)}…`, [secret]);
        for (let k = 4; k < secret.length; k++) expect(out.slice(0, -1).endsWith(secret.slice(0, k))).toBe(false);
      }),
    );
  });
});
