/** `sitesync fmt`: the config files (and the files they include) in the canonical layout. */
import { resolve } from 'node:path';
import { formatFile, formatFiles, type FormattedFile } from '../edit/fmt-files.js';
import { rewrite } from '../edit/file.js';
import { hasNoFolder } from '../config/read.js';
import { namesDescriptor, withFileLocks, writeFailure } from '../io/files.js';
import { renderFormatDiff } from '../render/format-diff.js';
import { printable } from '../messages/escape.js';
import type { Context } from '../io/context.js';
import { config, defineCommand, type CommandArgs } from './define.js';

const options = {
  // As every other command takes its file: `fmt -c FILE` is `fmt FILE`.
  config: { ...config, default: undefined, describe: 'The config file to format (as `fmt FILE`; default: sitesync.yaml)' },
  check: { type: 'boolean', describe: 'Write nothing; show the changes as a diff and exit 1 when a file is not formatted' },
  sort: { type: 'boolean', describe: 'Also sort the websites by domain' },
} as const;

const positionals = { files: { type: 'string', array: true, describe: 'The config files (default: sitesync.yaml)' } } as const;

export const fmtCommand = defineCommand({
  path: ['fmt'],
  describe: 'Rewrite config files in the canonical layout (and the files they include); offline',
  positionals,
  options,
  online: false,
  examples: [
    ['$0 fmt', 'Format sitesync.yaml and the files it includes'],
    ['$0 fmt --check', 'In CI: fail, with a diff, when a file is not formatted'],
    ['$0 fmt --sort sites/*.yaml', 'Format these files, websites in domain order'],
    ['$0 fmt -c clients/acme/websites.yaml', 'Format one file, named as every command names it'],
  ],
  run: runFmt,
});

async function runFmt(args: CommandArgs<typeof options, typeof positionals>, ctx: Context): Promise<number> {
  const given = [...(args.config !== undefined ? [args.config] : []), ...(args.files ?? [])];
  const named = given.length ? given : ['sitesync.yaml'];
  const sort = args.sort === true;
  // Every file is read and formatted before any is written: a YAML error anywhere writes nothing.
  const run = { files: await formatFiles(named.map((shown) => ({ path: resolve(ctx.cwd, shown), shown })), { cwd: ctx.cwd, sort }) };
  // A password written in clear is in the file already, but a diff must not carry it into a CI log.
  for (const f of run.files) for (const password of f.passwords) ctx.secrets.add(password);
  for (const f of run.files) {
    if (f.notSorted) ctx.stderr.write(`${ctx.err.dim(`Note: ${printable(`${f.shown}: --sort left ${f.notSorted.lists} in their order: ${f.notSorted.why}`)}`)}\n`);
  }
  const unformatted = run.files.filter((f) => f.after !== f.before);
  const say = (line: string) => ctx.stdout.write(`${printable(line)}\n`);
  // No claim of an order --sort could not give.
  const unsorted = (f: FormattedFile) => (f.notSorted ? `, ${f.notSorted.lists} left in their order (not sorted)` : '');

  if (args.check) {
    for (const f of run.files) if (f.after === f.before) say(`${f.shown} is already formatted${unsorted(f)}`);
    if (unformatted.length === 0) return 0;
    for (const f of unformatted) {
      const [before, after] = [diffText(f.before), diffText(f.after)];
      if (before === after) say(`${f.shown}: its lines end in both CRLF and LF; fmt ends every line with ${f.after.includes('\r\n') ? 'CRLF' : 'LF'}, as most of them`);
      else ctx.stdout.write(ctx.secrets.clean(renderFormatDiff(printable(f.shown), before, after, ctx.out)));
    }
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

  // One run at a time edits a file: what another run wrote since it was read is formatted, not lost.
  await withFileLocks(
    unformatted.map((f) => f.path),
    async () => {
      const current: FormattedFile[] = [];
      // (A pipe is read once: what was read is all there is, and its write is refused below.)
      for (const read of run.files) current.push(read.after === read.before || hasNoFolder(read.path) ? read : await formatFile(read.path, read.shown, sort));
      for (const f of current) {
        if (f.after === f.before) {
          say(`${f.shown} is already formatted${unsorted(f)}`);
          continue;
        }
        await rewrite(f.path, f.before, f.after, {
          changed: `fmt ${f.shown}: another program changed the file while it was being formatted; it was not written. Run fmt again`,
          failed: (error) => writeFailure(error, 'fmt', f.shown),
        });
        say(`Formatted ${f.shown}${unsorted(f)}`);
      }
    },
    { shown: (path) => run.files.find((f) => f.path === path)?.shown ?? path },
  );
  return 0;
}

/**
 * A file's text as the diff shows it: lines compared without their `\r` (fmt keeps the file's
 * line ending; a raw carriage return would garble the terminal), a byte-order mark left out.
 */
function diffText(text: string): string {
  return text.replace(/^\ufeff/, '').replace(/\r\n/g, '\n');
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
