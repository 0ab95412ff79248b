/** `sitesync fmt [FILE…] [--check] [--sort]`: each file, and the files it includes, in the canonical layout. */
import { dirname, relative, resolve } from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { glob } from 'tinyglobby';
import { parseDocument } from 'yaml';
import { formatConfig } from '../config/format.js';
import { readTextFile } from '../config/read.js';
import { writeAtomic } from '../files.js';
import { printable } from '../render/escape.js';
import type { Context } from '../terminal.js';
import { writeFailure } from './shared.js';

export interface FmtArgs {
  files?: string[];
  check?: boolean;
  sort?: boolean;
}

export async function runFmt(args: FmtArgs, ctx: Context): Promise<number> {
  const given = args.files?.length ? args.files : ['sitesync.yaml'];
  const files = await withIncluded(given.map((f) => resolve(ctx.cwd, f)));
  const unformatted: string[] = [];
  for (const file of files) {
    const shown = relative(ctx.cwd, file) || file;
    const text = await readTextFile(file);
    const formatted = formatConfig(text, shown, { sort: args.sort });
    if (formatted === text) {
      ctx.stderr.write(`${printable(shown)} is formatted.\n`);
      continue;
    }
    unformatted.push(shown);
    if (args.check) {
      ctx.stdout.write(colourDiff(createTwoFilesPatch(shown, shown, text, formatted, '', '', { context: 3 }), ctx));
      continue;
    }
    await writeAtomic(file, formatted).catch((error: unknown) => {
      throw writeFailure(error, 'fmt', shown);
    });
    ctx.stderr.write(`${ctx.err.green('Formatted')} ${printable(shown)}\n`);
  }
  if (args.check && unformatted.length) {
    const n = unformatted.length;
    ctx.stderr.write(
      `${ctx.err.red(`${n} file${n === 1 ? ' is' : 's are'} not formatted`)}: run sitesync fmt ${given.map(printable).join(' ')}${args.sort ? ' --sort' : ''}\n`,
    );
    return 1;
  }
  return 0;
}

/** The files and, after each, the files its `include:` globs match (at the top or in an account). */
async function withIncluded(files: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const file of files) {
    if (!out.includes(file)) out.push(file);
    let data: unknown;
    try {
      data = parseDocument(await readTextFile(file)).toJS({ maxAliasCount: 100 });
    } catch {
      continue; // formatting the file itself reports what is wrong with it
    }
    const globs: string[] = [];
    const collect = (holder: unknown) => {
      const list = (holder as { include?: unknown } | null)?.include;
      if (Array.isArray(list)) for (const g of list) if (typeof g === 'string' && g.trim()) globs.push(g.trim());
    };
    collect(data);
    const accounts = (data as { accounts?: unknown } | null)?.accounts;
    if (accounts && typeof accounts === 'object') for (const account of Object.values(accounts)) collect(account);
    if (!globs.length) continue;
    const matches = await glob(globs, { cwd: dirname(file), absolute: true, onlyFiles: true, expandDirectories: false });
    for (const match of matches.map((m) => resolve(m)).sort()) if (!out.includes(match)) out.push(match);
  }
  return out;
}

function colourDiff(patch: string, ctx: Context): string {
  return patch
    .split('\n')
    .map((line) => {
      const shown = printable(line);
      if (line.startsWith('+') && !line.startsWith('+++')) return ctx.out.green(shown);
      if (line.startsWith('-') && !line.startsWith('---')) return ctx.out.red(shown);
      if (line.startsWith('@@')) return ctx.out.cyan(shown);
      return shown;
    })
    .join('\n');
}
