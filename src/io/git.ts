/**
 * Running git, the one way sitesync does: without a shell, never prompting for credentials, in
 * the C locale (what it says is read), in the environment the run was given.
 */
import { execFile } from 'node:child_process';
import type { Env } from './context.js';

/** The environment git runs in: `env`, never prompting, in the C locale. */
export function gitEnv(env: Env): NodeJS.ProcessEnv {
  return { ...env, GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' };
}

export interface GitRun {
  /** A folder of the repository. */
  cwd: string;
  env: Env;
  /** Written to git's standard input. */
  input?: string;
  signal?: AbortSignal;
}

/** Runs git with `args`; its standard output, or an error carrying what it said (`said`: its standard error, trimmed). */
export function runGit(args: string[], { cwd, env, input = '', signal }: GitRun): Promise<Buffer> {
  return new Promise((done, fail) => {
    const child = execFile(
      'git',
      args,
      { cwd, env: gitEnv(env), signal, encoding: 'buffer', maxBuffer: Infinity, windowsHide: true },
      (error, stdout, stderr) => (error ? fail(Object.assign(error, { said: stderr.toString('utf8').trim() })) : done(stdout)),
    );
    // git may be done before it reads its input (an error): the closed pipe is its answer, not ours.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(input || undefined);
  });
}
