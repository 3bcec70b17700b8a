// The docs-store CLI run in-process in a test workspace: its exit code and what it printed.
// CI=1 as a CI machine has it (no TTY progress); the workspace's own chunkyard.config.yaml applies.
import { main } from './main.js';

export async function runStore(cwd: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(args, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), cwd, env: { CI: '1' } });
  return { code, stdout, stderr };
}
