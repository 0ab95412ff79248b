/**
 * Runs the CLI: as a child process of the built bundle, the way users and CI run it (runCli), or
 * in this process through the same entry, main(argv, io) (runCliHere): the same command line,
 * environment, folder and input, the same outputs and exit code, without a Node start-up of a
 * few hundred milliseconds of CPU. A test whose point is the process itself (signals, a closed
 * pipe, a terminal, standard input as a file, yargs' own --help and --version, the bundle) runs
 * it as a process.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { main } from '../../src/cli.js';

export const root = join(import.meta.dirname, '../..');
export const bin = join(root, 'bin/sitesync.cjs');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  env?: Record<string, string | undefined>;
  cwd?: string;
  input?: string;
  timeoutMs?: number;
  /** Run as a child process even where the caller runs the CLI in this process. */
  process?: boolean;
  /** The child's reader of standard output goes away after the first chunk, as `| head -1` does. */
  closeStdoutEarly?: boolean;
}

/** A clean environment: nothing of the developer's SITESYNC_*, colour or CI settings leaks in (a test says which CI it is). */
export function cleanEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || k.startsWith('SITESYNC_') || ['NO_COLOR', 'FORCE_COLOR', 'CI', 'GITHUB_ACTIONS', 'GITLAB_CI'].includes(k)) continue;
    env[k] = v;
  }
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) env[k] = v;
  return env;
}

export function runCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd: options.cwd ?? root,
      env: cleanEnv(options.env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      if (options.closeStdoutEarly) child.stdout.destroy();
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}

/**
 * The CLI run in this process, through main(argv, io) as bin/sitesync.cjs calls it, with the
 * environment a child would get. Standard input is `input` (not a terminal), as for a child.
 */
export async function runCliHere(args: string[], options: CliOptions = {}): Promise<CliResult> {
  if (options.process) return runCli(args, options);
  // Here these would name the test runner's own descriptors (its standard input never ends).
  const descriptor = args.find((a) => /^\/(dev\/(stdin|stdout|stderr|fd\/)|proc\/)/.test(a));
  if (descriptor) throw new Error(`${descriptor} names a descriptor of the process: run this CLI call with { process: true }`);
  let stdout = '';
  let stderr = '';
  const code = await main(args, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    stdin: Readable.from([options.input ?? '']),
    env: cleanEnv(options.env),
    cwd: options.cwd ?? root,
  });
  return { code, stdout, stderr };
}
