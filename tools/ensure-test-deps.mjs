#!/usr/bin/env node
// Run first by `npm test`: some tests use programs from outside npm, real ones, never stand-ins.
// The inspector's browser tests drive a real Chromium through playwright-core, which never
// downloads a browser; the topic-spec.md test reads the front matter with Python's PyYAML, the
// YAML reader a docs team's own scripts use; the killed-run tests (fs-atomic, chunking-tool)
// SIGKILL a real process at its k-th rename(2) with strace's fault injection. This makes the
// README's test command whole on a fresh Debian machine that has only Node and npm: it installs
// Debian's chromium, python3-yaml and strace when they are missing and this is root (or
// passwordless sudo works), and otherwise stops with a message that says exactly what to
// install. CHROMIUM_PATH names a browser of your own.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];
const browser = () => (process.env.CHROMIUM_PATH ? [process.env.CHROMIUM_PATH] : CANDIDATES).find((p) => existsSync(p));
const pyYaml = () => spawnSync('python3', ['-c', 'import yaml'], { stdio: 'ignore' }).status === 0;

if (process.env.CHROMIUM_PATH && !browser()) {
  console.error(`npm test: CHROMIUM_PATH=${process.env.CHROMIUM_PATH} does not exist.`);
  process.exit(1);
}
const has = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
const missing = [];
if (!browser()) missing.push('chromium');
if (!pyYaml()) missing.push('python3-yaml');
if (!has('strace')) missing.push('strace');
if (missing.length === 0) process.exit(0);

const asRoot = process.getuid?.() === 0;
const viaSudo = !asRoot && has('sudo') && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0;

if (!has('apt-get') || (!asRoot && !viaSudo)) {
  console.error(
    `npm test: missing ${missing.join(' and ')} (the inspector tests need Chromium at ${CANDIDATES.join(' or ')}; the topic-spec.md test needs python3 with PyYAML; the killed-run tests need strace).\n` +
      `  Debian/Ubuntu: sudo apt-get install -y --no-install-recommends ${missing.join(' ')}\n` +
      '  elsewhere:     install Chromium (and set CHROMIUM_PATH=/path/to/chromium), python3 with PyYAML (pip install pyyaml) and strace',
  );
  process.exit(1);
}

const run = (args) => {
  const [cmd, ...rest] = viaSudo ? ['sudo', '-n', ...args] : args;
  console.error(`npm test: ${[cmd, ...rest].join(' ')}`);
  const r = spawnSync(cmd, rest, { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  if (r.status !== 0) {
    console.error(`npm test: installing ${missing.join(' and ')} failed (exit ${r.status}); install by hand (or set CHROMIUM_PATH).`);
    process.exit(1);
  }
};
console.error(`npm test: ${missing.join(' and ')} missing; installing Debian's packages for the tests that use them`);
run(['apt-get', 'update', '-q']);
run(['apt-get', 'install', '-y', '-q', '--no-install-recommends', ...missing]);
if (!browser()) {
  console.error('npm test: apt-get installed chromium, but no binary is at ' + CANDIDATES.join(' or ') + '; set CHROMIUM_PATH.');
  process.exit(1);
}
if (!has('strace')) {
  console.error('npm test: apt-get installed strace, but `command -v strace` still finds none; install strace.');
  process.exit(1);
}
if (!pyYaml()) {
  console.error('npm test: apt-get installed python3-yaml, but `python3 -c "import yaml"` still fails (another python3 first on PATH?); install PyYAML for it.');
  process.exit(1);
}
