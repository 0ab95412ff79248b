/**
 * Request input as a Laravel app sees it: form fields (or a JSON body), the last of repeated
 * fields winning, `name[]` fields as arrays, strings trimmed (except passwords) and empty
 * strings turned into null by the global middleware, before any validation runs.
 */

export type InputValue = string | number | boolean | null | InputValue[] | { [key: string]: InputValue };

export type Input = Map<string, InputValue>;

/** Laravel's TrimStrings leaves these alone. */
const UNTRIMMED = new Set(['password', 'password_confirmation', 'current_password']);

/** Laravel's TrimStrings also strips these besides white space. */
const TRIM = /^[\s\uFEFF\u200B]+|[\s\uFEFF\u200B]+$/gu;

function middleware(name: string, value: InputValue): InputValue {
  if (typeof value === 'string') {
    const trimmed = UNTRIMMED.has(name) ? value : value.replace(TRIM, '');
    return trimmed === '' ? null : trimmed;
  }
  if (Array.isArray(value)) return value.map((v) => middleware('', v));
  return value;
}

/** Query string or form body, as PHP reads it. */
export function fromParams(params: URLSearchParams): Input {
  const input: Input = new Map();
  for (const [key, value] of params) {
    const bracket = /^([^[\]]+)\[/.exec(key);
    if (bracket) {
      const name = bracket[1]!;
      const list = input.get(name);
      if (Array.isArray(list)) list.push(middleware(name, value));
      else input.set(name, [middleware(name, value)]);
    } else {
      input.set(key, middleware(key, value));
    }
  }
  return input;
}

/** A JSON body; anything but an object reads as no input (as Laravel does). */
export function fromJson(text: string): Input {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return new Map();
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return new Map();
  const input: Input = new Map();
  for (const [key, value] of Object.entries(json as Record<string, InputValue>)) input.set(key, middleware(key, value));
  return input;
}

/** The body's fields as strings, for fault hooks. */
export function bodyParams(contentType: string, text: string): URLSearchParams {
  if (!isJson(contentType)) return new URLSearchParams(text);
  const params = new URLSearchParams();
  for (const [key, value] of fromJson(text)) {
    params.append(key, value === null ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value));
  }
  return params;
}

export function parseBody(contentType: string, text: string): Input {
  return isJson(contentType) ? fromJson(text) : fromParams(new URLSearchParams(text));
}

function isJson(contentType: string): boolean {
  return /^application\/(?:[\w.+-]*\+)?json\b/i.test(contentType.trim());
}

/** PHP's truthiness, which the service applies to `favorite` on update. */
export function phpTruthy(value: InputValue | undefined): boolean {
  if (value === undefined || value === null || value === false || value === 0) return false;
  if (value === '' || value === '0') return false;
  if (Array.isArray(value)) return value.length > 0;
  return true;
}
