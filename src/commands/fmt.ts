/** `sitesync fmt`: the config files (and the files they include) in the canonical layout. */
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { formatFiles } from '../config/format-files.js';
import { namesDescriptor, writeAtomic } from '../files.js';
import { renderFormatDiff } from '../render/format-diff.js';
import { printable } from '../escape.js';
import type { Context } from '../terminal.js';
import { renderWarnings } from '../render/diagnostics.js';
import { writeFailure } from '../files.js';

export interface FmtArgs {
  files?: string[];
  check?: boolean;
  sort?: boolean;
}

export async function runFmt(args: FmtArgs, ctx: Context): Promise<number> {
  const named = args.files?.length ? args.files : ['sitesync.yaml'];
  const sort = args.sort === true;
  // Every file is read and formatted before any is written: a YAML error anywhere writes nothing.
  const run = await formatFiles(
    named.map((shown) => ({ path: resolve(ctx.cwd, shown), shown })),
    { cwd: ctx.cwd, sort },
  );
  ctx.stderr.write(renderWarnings(run.warnings, ctx.err));
  // A password written in clear is in the file already, but a diff must not carry it into a CI log.
  for (const f of run.files) for (const password of f.passwords) ctx.secrets.add(password);
  const unformatted = run.files.filter((f) => f.after !== f.before);
  const say = (line: string) => ctx.stdout.write(`${printable(line)}\n`);

  if (args.check) {
    for (const f of run.files) if (f.after === f.before) say(`${f.shown} is already formatted`);
    if (unformatted.length === 0) return 0;
    for (const f of unformatted) ctx.stdout.write(ctx.secrets.clean(renderFormatDiff(printable(f.shown), f.before, f.after, ctx.out)));
    // Standard input cannot be rewritten: the fix is fmt of the file itself.
    const piped = (args.files ?? []).some((f) => namesDescriptor(resolve(ctx.cwd, f)));
    const fix = piped
      ? 'run sitesync fmt on the file itself (standard input cannot be rewritten)'
      : `run: ${fixCommand(args.files ?? [], sort)}`;
    const list = unformatted.map((f) => f.shown).join(', ');
    ctx.stderr.write(
      `${ctx.err.red(printable(`${unformatted.length === 1 ? `${list} is` : `${unformatted.length} files are`} not formatted${unformatted.length === 1 ? '' : ` (${list})`}`))}; ${printable(fix)}\n`,
    );
    return 1;
  }

  for (const f of run.files) {
    if (f.after === f.before) {
      say(`${f.shown} is already formatted`);
      continue;
    }
    // The file keeps its permissions (a config with passwords in clear may be private).
    const mode = await stat(f.path).then((s) => s.mode & 0o777, () => undefined);
    await writeAtomic(f.path, f.after, mode).catch((error: unknown) => {
      throw writeFailure(error, 'fmt', f.shown);
    });
    say(`Formatted ${f.shown}`);
  }
  return 0;
}

/** The fmt that formats `files`: a name that begins with "-" comes after `--`, or it would read as a flag. */
function fixCommand(files: string[], sort: boolean): string {
  const words = files.map(shellWord);
  const flags = sort ? ['--sort'] : [];
  return (files.some((f) => f.startsWith('-')) ? ['sitesync fmt', ...flags, '--', ...words] : ['sitesync fmt', ...words, ...flags]).join(' ');
}

/** A file name as a shell word, quoted when it needs to be. */
function shellWord(word: string): string {
  return /^[\w./@%+=:,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
