// @ts-check
'use strict';
/**
 * The docs repo's own package manager, told by the lockfile at its root, for the commands the
 * plugin's messages give: `npm i -D` in a pnpm or Yarn repo would write a second lockfile and,
 * with chunkyard installed from tarballs, ask the registry for @chunkyard/nx (404).
 */
const { existsSync } = require('node:fs');
const { join } = require('node:path');

/** Lockfile -> the command that adds @chunkyard/nx again; npm's lockfiles first, as Nx checks them. */
const ADD_AGAIN = /** @type {const} */ ([
  ['package-lock.json', 'npm i -D @chunkyard/nx'],
  ['npm-shrinkwrap.json', 'npm i -D @chunkyard/nx'],
  ['pnpm-lock.yaml', 'pnpm add -D @chunkyard/nx'],
  ['yarn.lock', 'yarn add -D @chunkyard/nx'],
  ['bun.lock', 'bun add -d @chunkyard/nx'],
  ['bun.lockb', 'bun add -d @chunkyard/nx'],
]);

/**
 * How to reinstall @chunkyard/nx in the workspace at `root`: npm's command when no lockfile says
 * otherwise.
 * @param {string} root
 */
function reinstallCommand(root) {
  for (const [lockfile, command] of ADD_AGAIN) if (existsSync(join(root, lockfile))) return command;
  return 'npm i -D @chunkyard/nx';
}

module.exports = { reinstallCommand };
