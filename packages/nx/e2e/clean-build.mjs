// @ts-check
// What an incremental build is compared with: a clean build of the same sources (every output
// deleted, no Nx cache, no embedding cache) in a second temp workspace.
import { cpSync, existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { readTree, runNx } from './temp-workspace.mjs';

/** A file the pipeline writes under the docs root (README.md, "What you get per topic"). */
export const isOutput = (/** @type {string} */ rel) =>
  /(^|\/)(_chunks|_keywords)\//.test(rel) || /(^|\/)(topic-spec\.md|index\.json|llms\.txt|llms-full\.txt)$/.test(rel);

/**
 * Every output under `<root>/<docs>`, path -> text.
 * @param {string} root
 * @param {string} [docs]
 * @returns {Record<string, string>}
 */
export function outputTree(root, docs = 'docs') {
  if (!existsSync(join(root, docs))) return {};
  return Object.fromEntries(
    Object.entries(readTree(join(root, docs)))
      .filter(([k]) => isOutput(k))
      .map(([k, v]) => [k, v.toString('utf8')]),
  );
}

/** @param {string} dir */
function removeOutputs(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory() && (e.name === '_chunks' || e.name === '_keywords')) rmSync(p, { recursive: true });
    else if (e.isDirectory()) removeOutputs(p);
    else if (isOutput(e.name)) rmSync(p);
  }
}

/**
 * Builds the sources of `ws` (its docs folder, nx.json, config) from nothing in `clean`, and
 * returns its outputs.
 * @param {import('./temp-workspace.mjs').TempWorkspace} ws
 * @param {import('./temp-workspace.mjs').TempWorkspace} clean
 * @returns {Record<string, string>}
 */
export function cleanBuildOf(ws, clean) {
  rmSync(join(clean.root, 'docs'), { recursive: true, force: true });
  cpSync(join(ws.root, 'docs'), join(clean.root, 'docs'), { recursive: true });
  for (const f of ['nx.json', 'chunkyard.config.yaml']) cpSync(join(ws.root, f), join(clean.root, f));
  removeOutputs(join(clean.root, 'docs'));
  rmSync(join(clean.root, '.embedding-cache'), { recursive: true, force: true });
  const r = runNx(clean, ['run-many', '-t', 'index', '--skip-nx-cache', '--outputStyle=static']);
  if (r.status !== 0) throw new Error(`the clean build failed:\n${r.output}`);
  return outputTree(clean.root);
}
