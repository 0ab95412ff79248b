/** `sitesync validate`: offline; parse and check the file and every file it includes, report every problem. */
import { relative, resolve, sep } from 'node:path';
import { envValue } from '../config/interpolate.js';
import { includerOf, loadWorkspace, unsetKeyVariable, type Includer } from '../config/load.js';
import { NO_VERSION, NO_WEBSITES } from '../config/parse.js';
import { ConfigError, type Diagnostic } from '../messages/errors.js';
import type { Workspace } from '../model/types.js';
import { renderDiagnosticsJson, renderGithubAnnotations } from '../render/diagnostics.js';
import type { Context } from '../io/context.js';
import { renderWarnings } from '../render/diagnostics.js';
import { config, defineCommand, type CommandArgs } from './define.js';

const options = {
  config,
  format: {
    choices: ['text', 'github', 'json'],
    default: 'text',
    describe: 'text: FILE:LINE:COL lines; github: annotations on the pull request; json: the problems as data',
  },
  /** An unset `${NAME}` is an error, as for plan and apply (by default a warning: validate needs no secrets). */
  'strict-env': { type: 'boolean', describe: 'An unset ${NAME} is an error, as for plan and apply (default: a warning)' },
} as const;

export const validateCommand = defineCommand({
  path: ['validate'],
  describe: 'Check the config file offline: every problem as FILE:LINE:COL: message',
  options,
  online: false,
  examples: [
    ['$0 validate -c sites/prod.yaml', 'Check a file without network or key'],
    ['$0 validate --format github', 'In a GitHub workflow: each problem on its line of the pull request'],
  ],
  run: runValidate,
});

async function runValidate(args: CommandArgs<typeof options>, ctx: Context): Promise<number> {
  const format = args.format;
  let workspace: Workspace;
  try {
    workspace = await loadWorkspace(resolve(ctx.cwd, args.config), ctx.env, { missingEnvAsWarning: !args.strictEnv });
  } catch (error) {
    const file = resolve(ctx.cwd, args.config);
    // A file with no version of its own may be an included one: checked as the config that includes it checks it.
    const includer = error instanceof ConfigError && lacksVersion(error, file) ? await includerOf(file, ctx.env) : undefined;
    if (includer) return validateIncluded(file, includer, args.config, format, ctx);
    // text: the CLI prints a ConfigError as FILE:LINE:COL lines; the others print it as data.
    if (format === 'text' || !(error instanceof ConfigError)) throw error;
    return report(error.diagnostics, format, ctx);
  }
  const warnings = [...workspace.warnings, ...keyWarnings(workspace, ctx.env, args.strictEnv === true)];
  if (format !== 'text') return report(warnings, format, ctx, { keys: keyVariables(workspace, ctx.env, args.apiKeyFile) });
  if (warnings.some((w) => w.severity === 'error')) throw new ConfigError(warnings);
  ctx.stderr.write(renderWarnings(warnings, ctx.err, ctx.cwd));
  const n = workspace.configs.reduce((sum, c) => sum + c.websites.length, 0);
  const parts = [`${n} website${n === 1 ? '' : 's'}`];
  if (workspace.multi) parts.unshift(`${workspace.configs.length} account${workspace.configs.length === 1 ? '' : 's'}`);
  const included = workspace.files.length - 1;
  if (included) parts.push(`${included} included file${included === 1 ? '' : 's'}`);
  const warned = warnings.length ? `, ${warnings.length} warning${warnings.length === 1 ? '' : 's'}` : '';
  ctx.stdout.write(`${ctx.out.green('✓')} ${args.config} is valid: ${parts.join(', ')}${warned}.\n`);
  return 0;
}

/** The file was refused for having no `version`, and holds no `accounts:` (which only a main file has). */
function lacksVersion(error: ConfigError, file: string): boolean {
  const own = error.diagnostics.filter((d) => d.file === file && d.severity === 'error');
  return own.some((d) => d.message === NO_VERSION) && !own.some((d) => d.message.startsWith('"accounts"') || d.message === NO_WEBSITES);
}

/**
 * `validate -c clients/acme/websites.yaml`: an included file has no version of its own. It is
 * checked as the config that includes it checks it (its own problems only), and said so.
 */
function validateIncluded(file: string, includer: Includer, given: string, format: 'text' | 'github' | 'json', ctx: Context): number {
  const problems = includer.workspace.warnings.filter((d) => d.file === file);
  // Named from the working folder, a parent's too (../../sitesync.yaml), as the user would type it.
  const config = relative(ctx.cwd, includer.config).split(sep).join('/');
  const account = includer.account ? ` for account ${includer.account}` : '';
  const whole = `${config} includes it${account} (check the whole config: sitesync validate -c ${config})`;
  if (format !== 'text') return report(problems, format, ctx, { included_by: config, account: includer.account || null });
  if (problems.some((d) => d.severity === 'error')) {
    ctx.stderr.write(`${given} is an included file (no "version" of its own): ${whole}\n`);
    throw new ConfigError(problems);
  }
  ctx.stderr.write(renderWarnings(problems, ctx.err, ctx.cwd));
  const n = includer.workspace.configs.reduce((sum, c) => sum + c.websites.filter((w) => w.file === file).length, 0);
  const warned = problems.length ? `, ${problems.length} warning${problems.length === 1 ? '' : 's'}` : '';
  ctx.stdout.write(`${ctx.out.green('✓')} ${given} is a valid included file: ${n} website${n === 1 ? '' : 's'}${warned}. ${whole}.\n`);
  return 0;
}

function report(problems: Diagnostic[], format: 'github' | 'json', ctx: Context, extra: Record<string, unknown> = {}): number {
  const errors = problems.filter((d) => d.severity === 'error').length;
  if (format === 'json') {
    ctx.stdout.write(renderDiagnosticsJson(problems, ctx.cwd, extra));
  } else {
    // GitHub places annotations by paths from the repository's top, wherever the step runs.
    ctx.stdout.write(renderGithubAnnotations(problems, ctx.env.GITHUB_WORKSPACE || ctx.cwd));
    const warnings = problems.length - errors;
    ctx.stdout.write(errors ? `${errors} problem${errors === 1 ? '' : 's'} found.\n` : `Valid${warnings ? `, ${warnings} warning${warnings === 1 ? '' : 's'}` : ''}.\n`);
  }
  return errors ? 1 : 0;
}

/**
 * validate needs no key: an account whose key's variable is not set is a warning (an error
 * with --strict-env); for plan and apply it is an error.
 */
function keyWarnings(workspace: Workspace, env: Record<string, string | undefined>, strict: boolean): Diagnostic[] {
  return workspace.configs.flatMap((config) => {
    const unset = unsetKeyVariable(config, env);
    if (!unset) return [];
    const severity = strict ? ('error' as const) : ('warning' as const);
    return [{ file: workspace.file, ...config.account!.pos, severity, message: strict ? unset : `${unset}; plan and apply need it` }];
  });
}

/**
 * The variables that hold the run's keys, by name, and which are not set: a CI job can tell a
 * run that has no key at all (a fork's or Dependabot's pull request) from a broken one.
 */
function keyVariables(workspace: Workspace, env: Record<string, string | undefined>, apiKeyFile: string | undefined): { variables: string[]; unset: string[] } {
  const variables = workspace.multi ? workspace.configs.map((c) => c.account!.apiKeyEnv) : apiKeyFile === undefined ? ['SITESYNC_API_KEY'] : [];
  return { variables, unset: variables.filter((name) => !envValue(env, name)?.trim()) };
}
