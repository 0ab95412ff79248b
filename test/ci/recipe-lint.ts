/**
 * The recipe lint: every `sitesync` invocation in the CI examples, checked against the CLI's
 * own help (`<command> --help`, which yargs writes from the same definitions it parses with), so
 * a renamed command or flag fails a test instead of a user's pipeline. The help is asked of the
 * CLI's parser in this process (byte for byte what the built CLI prints: recipes.test.ts checks
 * it), not of a child process each: some twenty Node start-ups a file.
 *
 * Shell is read just well enough for CI scripts: quotes, `\` line continuations, `$(…)`,
 * `${{ … }}` expressions, redirections, `&&`/`||`/`;`/`|`, `if … then` and `npx`.
 */
import { parse } from 'yaml';
import { buildParser } from '../../src/cli/parser.js';

export interface Invocation {
  file: string;
  /** Where in the YAML, e.g. `jobs.plan.steps[4].run`. */
  where: string;
  /** The words after `sitesync`. */
  args: Word[];
}

export interface Word {
  /** Quotes removed; expansions kept as written. */
  text: string;
  /** Holds an expansion (`$X`, `$(…)`, `${{ … }}`): its value is unknown here. */
  expanded: boolean;
  /** Entirely inside quotes. */
  quoted: boolean;
}

export interface Problem {
  where: string;
  message: string;
}

type Token = ({ kind: 'word' } & Word) | { kind: 'control'; text: string } | { kind: 'redirect'; text: string };

const SCRIPT_KEYS = new Set(['run', 'script', 'before_script', 'after_script']);

/** Every shell script in a workflow or .gitlab-ci.yml: `run:` (GitHub), `script:` and friends (GitLab). */
export function scriptsOf(node: unknown, where = ''): Array<{ where: string; script: string }> {
  const out: Array<{ where: string; script: string }> = [];
  if (Array.isArray(node)) {
    node.forEach((item, i) => out.push(...scriptsOf(item, `${where}[${i}]`)));
  } else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      const at = where ? `${where}.${key}` : key;
      if (SCRIPT_KEYS.has(key)) {
        const lines = Array.isArray(value) ? value : [value];
        lines.forEach((line, i) => {
          if (typeof line === 'string') out.push({ where: Array.isArray(value) ? `${at}[${i}]` : at, script: line });
        });
      } else {
        out.push(...scriptsOf(value, at));
      }
    }
  }
  return out;
}

export function invocationsIn(yamlText: string, file: string): { invocations: Invocation[]; problems: Problem[] } {
  const invocations: Invocation[] = [];
  const problems: Problem[] = [];
  for (const { where, script } of scriptsOf(parse(yamlText))) {
    const found = sitesyncCalls(script);
    for (const args of found.calls) invocations.push({ file, where, args });
    for (const stray of found.strays) {
      problems.push({ where: `${file} (${where})`, message: `"${stray}" is not recognised as a sitesync invocation; write it as \`npx sitesync …\`` });
    }
  }
  return { invocations, problems };
}

/** The argument lists of every `sitesync` command in a script, and any `sitesync` word not in command position. */
export function sitesyncCalls(script: string): { calls: Word[][]; strays: string[] } {
  const calls: Word[][] = [];
  const strays: string[] = [];
  for (const words of simpleCommands(tokenize(script))) {
    const at = commandStart(words);
    words.forEach((w, i) => {
      if (!isSitesync(w)) return;
      if (i === at) calls.push(words.slice(i + 1));
      else strays.push(words.map((x) => x.text).join(' '));
    });
  }
  return { calls, strays };
}

function isSitesync(w: Word): boolean {
  return !w.quoted && !w.expanded && (w.text === 'sitesync' || w.text.endsWith('/sitesync'));
}

const PREFIX_WORDS = new Set(['if', 'then', 'else', 'elif', 'do', 'while', 'until', '!', 'time', 'exec', 'command', '{']);

/** The index of the word that names the command, past `if`, `VAR=x`, `npx [-y]`, `npm exec [--]`. */
function commandStart(words: Word[]): number {
  let i = 0;
  while (i < words.length) {
    const w = words[i]!.text;
    if (PREFIX_WORDS.has(w) || w === 'env' || /^[A-Za-z_][A-Za-z0-9_]*=/.test(w)) i++;
    else if (w === 'npx' || (w === 'npm' && words[i + 1]?.text === 'exec')) {
      i += w === 'npx' ? 1 : 2;
      while (i < words.length && words[i]!.text.startsWith('-')) i++;
    } else break;
  }
  return i;
}

/** Words grouped by command; redirections and their targets dropped. */
function simpleCommands(tokens: Token[]): Word[][] {
  const commands: Word[][] = [[]];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.kind === 'control') commands.push([]);
    else if (t.kind === 'redirect') i++; // its target
    else commands.at(-1)!.push({ text: t.text, expanded: t.expanded, quoted: t.quoted });
  }
  return commands.filter((c) => c.length > 0);
}

export function tokenize(input: string): Token[] {
  const s = input.replace(/\\\r?\n/g, ' ');
  const tokens: Token[] = [];
  let word: Word | undefined;
  let allQuoted = true;
  const part = (text: string, expanded: boolean, quoted: boolean) => {
    word ??= { text: '', expanded: false, quoted: true };
    word.text += text;
    word.expanded ||= expanded;
    allQuoted &&= quoted;
  };
  const end = () => {
    if (word) tokens.push({ kind: 'word', ...word, quoted: allQuoted });
    word = undefined;
    allQuoted = true;
  };
  let i = 0;
  while (i < s.length) {
    const c = s[i]!;
    const expansion = expansionEnd(s, i, false);
    if (c === ' ' || c === '\t') {
      end();
      i++;
    } else if (c === '#' && !word) {
      while (i < s.length && s[i] !== '\n') i++;
    } else if (expansion !== undefined) {
      part(s.slice(i, expansion), true, false);
      i = expansion;
    } else if (c === "'") {
      const close = s.indexOf("'", i + 1);
      const stop = close < 0 ? s.length : close;
      part(s.slice(i + 1, stop), false, true);
      i = stop + 1;
    } else if (c === '"') {
      i = doubleQuoted(s, i + 1, part);
    } else if (c === '\\') {
      part(s[i + 1] ?? '', false, false);
      i += 2;
    } else if (c === '>' || c === '<' || (c === '&' && s[i + 1] === '>')) {
      // `2>`, `2>&1`: a number right before the arrow is a file descriptor, not a word.
      if (word && /^\d+$/.test(word.text) && !word.expanded) word = undefined;
      end();
      const m = /^(&>>?|>>|>&|>\||<&|<<-?|<>|>|<)/.exec(s.slice(i))!;
      tokens.push({ kind: 'redirect', text: m[0] });
      i += m[0].length;
    } else if (c === '\n' || c === ';' || c === '|' || c === '&' || c === '(' || c === ')') {
      end();
      const m = /^(&&|\|\||;;|\n|;|\||&|\(|\))/.exec(s.slice(i))!;
      tokens.push({ kind: 'control', text: m[0] });
      i += m[0].length;
    } else {
      part(c, false, false);
      i++;
    }
  }
  end();
  return tokens;
}

/**
 * Where an expansion that starts at `i` ends (exclusive): `$(…)`, `${{ … }}`, `${…}`, `$NAME`,
 * and outside quotes `<(…)`/`>(…)`; undefined when none starts there.
 */
function expansionEnd(s: string, i: number, inQuotes: boolean): number | undefined {
  const two = s.slice(i, i + 2);
  if (two === '$(' || (!inQuotes && (two === '<(' || two === '>('))) return balanced(s, i + 1) + 1;
  const close = s.startsWith('${{', i) ? '}}' : two === '${' ? '}' : undefined;
  if (close) {
    const at = s.indexOf(close, i);
    return at < 0 ? s.length : at + close.length;
  }
  const name = /^\$([A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])/.exec(s.slice(i));
  return name ? i + name[0].length : undefined;
}

/** The index of the `)` that closes the `(` at `open`, skipping quotes and nested parentheses. */
function balanced(s: string, open: number): number {
  let depth = 0;
  for (let i = open; i < s.length; i++) {
    const c = s[i];
    if (c === '\\') i++;
    else if (c === "'") i = Math.max(i, s.indexOf("'", i + 1));
    else if (c === '"') i = doubleQuoted(s, i + 1, () => {}) - 1;
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i;
  }
  return s.length - 1;
}

/** Reads a double-quoted string from `start` (after the quote); returns the index after the closing quote. */
function doubleQuoted(s: string, start: number, part: (text: string, expanded: boolean, quoted: boolean) => void): number {
  let i = start;
  while (i < s.length && s[i] !== '"') {
    const expansion = expansionEnd(s, i, true);
    if (s[i] === '\\' && i + 1 < s.length) {
      part(s[i + 1]!, false, true);
      i += 2;
    } else if (expansion !== undefined) {
      part(s.slice(i, expansion), true, true);
      i = expansion;
    } else {
      part(s[i]!, false, true);
      i++;
    }
  }
  return i + 1;
}

// ---- what the CLI accepts, from its help ----

export interface OptionInfo {
  type?: string;
  choices?: string[];
}

export interface CommandInfo {
  subcommands: string[];
  /** `--name` and `-c`. */
  options: Map<string, OptionInfo>;
  /** How many positionals the usage line names. */
  positionals: number;
}

export function parseHelp(help: string, path: string[]): CommandInfo {
  const lines = help.split('\n');
  const usage = lines[0]!.trim().split(/\s+/).slice(1 + path.length);
  const info: CommandInfo = {
    subcommands: [],
    options: new Map(),
    // `[domains..]` takes any number of words.
    positionals: !path.length ? 0 : usage.some((w) => /\.\.[\]>]$/.test(w)) ? Infinity : usage.filter((w) => /^[[<]/.test(w) && w !== '[options]').length,
  };
  let section = '';
  let current: { names: string[]; text: string } | undefined;
  const flush = () => {
    if (!current) return;
    const text = current.text.replace(/\s+/g, ' ');
    const type = [...text.matchAll(/\[(boolean|string|number|array|count)\]/g)].at(-1)?.[1];
    const choices = /\[choices: ([^\]]+)\]/.exec(text)?.[1]?.split(', ').map((c) => c.replace(/^"|"$/g, ''));
    for (const name of current.names) info.options.set(name, { type, choices });
    current = undefined;
  };
  const prefix = ['sitesync', ...path].join(' ');
  for (const line of lines) {
    if (/^\S.*:$/.test(line)) {
      flush();
      section = line.slice(0, -1);
      continue;
    }
    if (section === 'Commands') {
      const m = new RegExp(`^  ${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} (\\S+)`).exec(line);
      if (m) info.subcommands.push(m[1]!);
    } else if (section === 'Options' || section === 'Global options') {
      const m = /^ {2}(?:-([A-Za-z]), | {4})--([A-Za-z0-9-]+)(.*)$/.exec(line);
      if (m) {
        flush();
        current = { names: [`--${m[2]}`, ...(m[1] ? [`-${m[1]}`] : [])], text: m[3]! };
      } else if (current && /^\s+\S/.test(line)) {
        current.text += ` ${line}`;
      } else {
        flush();
      }
    }
  }
  flush();
  return info;
}

/**
 * What `sitesync PATH --help` prints, from the CLI's own parser in this process: yargs gives a
 * parse callback the output it would have printed (without its final line break).
 */
export function helpOf(path: string[]): Promise<string> {
  const argv = [...path, '--help'];
  return new Promise((resolve, reject) => {
    buildParser(argv, async () => {}).parse(argv, {}, (error: unknown, _args: unknown, output: string) => (error ? reject(error) : resolve(`${output}\n`)));
  });
}

/** The CLI's help per command path, asked once each. */
export class CliSurface {
  private readonly cache = new Map<string, Promise<CommandInfo>>();

  command(path: string[]): Promise<CommandInfo> {
    const key = path.join(' ');
    let info = this.cache.get(key);
    if (!info) {
      info = helpOf(path).then((help) => parseHelp(help, path));
      this.cache.set(key, info);
    }
    return info;
  }

  async lint(inv: Invocation): Promise<Problem[]> {
    const shown = `sitesync ${inv.args.map((w) => w.text).join(' ')}`;
    const problems: Problem[] = [];
    const problem = (message: string) => problems.push({ where: `${inv.file} (${inv.where}): ${shown}`, message });
    const args = inv.args;
    const path: string[] = [];
    let node = await this.command(path);
    let i = 0;
    for (; i < args.length && node.subcommands.length > 0 && !args[i]!.text.startsWith('-'); i++) {
      const w = args[i]!;
      if (w.expanded || !node.subcommands.includes(w.text)) {
        problem(`no command "${['sitesync', ...path, w.text].join(' ')}" (there are: ${node.subcommands.join(', ')})`);
        return problems;
      }
      path.push(w.text);
      node = await this.command(path);
    }
    const wantsHelp = args.some((w) => ['--help', '-h', '--version', '-V'].includes(w.text));
    if (node.subcommands.length > 0 && !wantsHelp) {
      problem(`"${['sitesync', ...path].join(' ')}" needs a command: ${node.subcommands.join(', ')}`);
      return problems;
    }
    let positionals = 0;
    for (; i < args.length; i++) {
      const w = args[i]!;
      if (w.text === '--') {
        positionals += args.length - i - 1;
        break;
      }
      // "${args[@]}": a shell array of words, flags or not, whose count is unknown here.
      if (w.expanded && /^\$\{\w+\[@\]\}$/.test(w.text)) continue;
      if (w.expanded || !w.text.startsWith('-')) {
        positionals++;
        continue;
      }
      const eq = w.text.indexOf('=');
      const name = eq > 0 ? w.text.slice(0, eq) : w.text;
      const negated = name.startsWith('--no-') ? node.options.get(`--${name.slice(5)}`) : undefined;
      const option = node.options.get(name) ?? (negated?.type === 'boolean' ? negated : undefined);
      if (!option) {
        problem(`no flag ${name} for "${['sitesync', ...path].join(' ')}"`);
        continue;
      }
      if (option.type === 'boolean') continue;
      let value: Word | undefined;
      if (eq > 0) value = { text: w.text.slice(eq + 1), expanded: w.expanded, quoted: false };
      else value = args[++i];
      if (!value) problem(`${name} needs a value`);
      else if (option.choices && !value.expanded && !option.choices.includes(value.text)) {
        problem(`${name} ${value.text}: not one of ${option.choices.join(', ')}`);
      }
    }
    if (positionals > node.positionals) {
      problem(`"${['sitesync', ...path].join(' ')}" takes ${node.positionals} argument(s), given ${positionals}`);
    }
    return problems;
  }
}
