/** Runs the CLI in-process (cli.ts's `main`) with captured output and a given environment. */
import { PassThrough } from 'node:stream';
import { main } from '../../src/cli.js';

export interface InProcessResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runInProcess(argv: string[], env: Record<string, string>, cwd: string): Promise<InProcessResult> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, {
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t) },
    stdin: new PassThrough(),
    env,
    cwd,
  });
  return { code, stdout, stderr };
}
