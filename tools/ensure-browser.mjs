#!/usr/bin/env node
// Run first by `npm test`: the inspector's browser tests drive a real Chromium through
// playwright-core, which never downloads a browser. This makes the README's test command
// whole on a fresh Debian machine that has only Node and npm: it installs Debian's chromium
// when it is missing and this is root (or passwordless sudo works), and otherwise stops with a
// message that says exactly what to install. CHROMIUM_PATH names a browser of your own.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];
const found = () => (process.env.CHROMIUM_PATH ? [process.env.CHROMIUM_PATH] : CANDIDATES).find((p) => existsSync(p));

if (found()) process.exit(0);
if (process.env.CHROMIUM_PATH) {
  console.error(`npm test: CHROMIUM_PATH=${process.env.CHROMIUM_PATH} does not exist.`);
  process.exit(1);
}

const has = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
const asRoot = process.getuid?.() === 0;
const viaSudo = !asRoot && has('sudo') && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0;

if (!has('apt-get') || (!asRoot && !viaSudo)) {
  console.error(
    'npm test: the inspector tests need Chromium, and none was found at ' + CANDIDATES.join(' or ') + '.\n' +
      "  Debian/Ubuntu: sudo apt-get install -y --no-install-recommends chromium\n" +
      '  elsewhere:     install Chromium and set CHROMIUM_PATH=/path/to/chromium',
  );
  process.exit(1);
}

const run = (args) => {
  const [cmd, ...rest] = viaSudo ? ['sudo', '-n', ...args] : args;
  console.error(`npm test: ${[cmd, ...rest].join(' ')}`);
  const r = spawnSync(cmd, rest, { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  if (r.status !== 0) {
    console.error(`npm test: installing Chromium failed (exit ${r.status}); install it by hand or set CHROMIUM_PATH.`);
    process.exit(1);
  }
};
console.error("npm test: Chromium is missing; installing Debian's package for the inspector's browser tests");
run(['apt-get', 'update', '-q']);
run(['apt-get', 'install', '-y', '-q', '--no-install-recommends', 'chromium']);
if (!found()) {
  console.error('npm test: apt-get installed chromium, but no binary is at ' + CANDIDATES.join(' or ') + '; set CHROMIUM_PATH.');
  process.exit(1);
}
