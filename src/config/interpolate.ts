/** `${NAME}` takes the environment variable NAME; `$${` writes a literal `${`. */

import type { Env } from '../io/context.js';
import type { PasswordSource } from '../model/types.js';

const TOKEN = /\$\$\{|\$\{([^}]*)\}?/g;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The variable `name`: an own string of `env`, never what every object inherits (`${toString}`, `api_key_env: constructor`). */
export function envValue(env: Env, name: string): string | undefined {
  return Object.hasOwn(env, name) ? env[name] : undefined;
}

/** Whether a match of TOKEN is a reference `${NAME}` (not `$${`, nor a malformed one). */
function isReference(match: string, name: string | undefined): name is string {
  return name !== undefined && match.endsWith('}') && NAME.test(name);
}

/** `text` with each `${NAME}` set, the names not set, the malformed references (`${}`, `${1X}`, an unclosed `${`), and whether it referenced any. */
export function interpolate(text: string, env: Env) {
  const result = { value: '', missing: [] as string[], malformed: [] as string[], referenced: false };
  if (!text.includes('$')) return { ...result, value: text };
  result.value = text.replace(TOKEN, (match, name: string | undefined) => {
    if (match === '$${') return '${';
    if (!isReference(match, name)) {
      result.malformed.push(match);
      return match;
    }
    result.referenced = true;
    const value = envValue(env, name);
    if (value === undefined) result.missing.push(name);
    return value ?? match;
  });
  return result;
}

/** `text` written so that it reads back as itself: a value from the service (an exclude_ips entry `${X}`) is no reference. */
export function literal(text: string): string {
  return text.replaceAll('${', () => '$${'); // (a function: '$$' in a replacement string is one '$')
}

/** The variables `template` reads (each once, in order), and whether it writes text in clear beside them; no value is read. */
export function passwordSource(template: string): PasswordSource {
  const variables = new Set<string>();
  const clear = template.replace(TOKEN, (match, name: string | undefined) => {
    if (!isReference(match, name)) return match;
    variables.add(name);
    return '';
  });
  return { variables: [...variables], clear: clear !== '' };
}
