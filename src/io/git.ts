/**
 * Running git, the one way sitesync does: without a shell, never prompting for credentials, in
 * the C locale (what it says is read), in the environment the run was given.
 */
import { spawn } from 'node:child_process';
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
  /**
   * Reads git's output as it comes, instead of collecting it (a listing too large to hold):
   * returns why to stop, and git is then stopped and the run fails with `stopped` set to it.
   */
  each?: (chunk: Buffer) => string | undefined;
}

/**
 * Runs git with `args`; its standard output (empty when `each` read it), or an error carrying
 * what it said (`said`: its standard error, trimmed) and, when `each` stopped it, `stopped`.
 */
export function runGit(args: string[], { cwd, env, input = '', signal, each }: GitRun): Promise<Buffer> {
  return new Promise((done, fail) => {
    const child = spawn('git', args, { cwd, env: gitEnv(env), signal, stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let stopped: string | undefined;
    child.stdout.on('data', (chunk: Buffer) => {
      if (stopped !== undefined) return;
      if (!each) return void out.push(chunk);
      stopped = each(chunk);
      if (stopped !== undefined) child.kill();
    });
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    const said = () => Buffer.concat(err).toString('utf8').trim();
    child.on('error', (error) => fail(Object.assign(error, { said: said() })));
    child.on('close', (code) => {
      if (stopped !== undefined) fail(Object.assign(new Error(`git ${args[0]}: stopped`), { stopped, said: said() }));
      else if (code !== 0) fail(Object.assign(new Error(`git ${args[0]}: exit ${code}`), { said: said() }));
      else done(Buffer.concat(out));
    });
    // git may be done before it reads its input (an error): the closed pipe is its answer, not ours.
    child.stdin.on('error', () => undefined);
    child.stdin.end(input || undefined);
  });
}

/** The commit `ref` names (a full SHA) in the repository at `cwd`, or undefined when it names none. */
export async function commitOf(cwd: string, env: Env, ref: string): Promise<string | undefined> {
  const out = await runGit(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { cwd, env }).catch(() => undefined);
  return out?.toString('utf8').trim() || undefined;
}
