/** Talking to an emulator over real HTTP, as a client would, with nothing hidden. */
import { startEmulator, type Emulator, type EmulatorOptions } from '../../src/emulator/index.js';

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed as JSON; undefined when it is not JSON. */
  json: any;
}

export interface CallOptions {
  /** The bearer key; null sends no Authorization header. Default: the emulator's first key. */
  key?: string | null;
  /** Form fields (sent urlencoded), or a string sent as is. */
  form?: Record<string, string | number | null | undefined> | string;
  /** A JSON body instead of a form. */
  json?: unknown;
  /** Default application/json; null sends none. */
  accept?: string | null;
  headers?: Record<string, string>;
}

export async function call(emu: Emulator, method: string, path: string, options: CallOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  const key = options.key === undefined ? emu.keys[0] : options.key;
  if (key !== null && key !== undefined) headers.authorization = `Bearer ${key}`;
  const accept = options.accept === undefined ? 'application/json' : options.accept;
  if (accept !== null) headers.accept = accept;
  let body: string | undefined;
  if (options.form !== undefined) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = typeof options.form === 'string' ? options.form : formBody(options.form);
  } else if (options.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.json);
  }
  const url = path.startsWith('http') ? path : `${emu.url}${path}`;
  const res = await fetch(url, { method, headers, body, redirect: 'manual' });
  const text = await res.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

export function formBody(fields: Record<string, string | number | null | undefined>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) params.append(k, v === null ? '' : String(v));
  return params.toString();
}

/** Starts emulators and closes every one of them after each test. */
export function emulators() {
  const started: Emulator[] = [];
  return {
    async start(options: EmulatorOptions = {}): Promise<Emulator> {
      const emu = await startEmulator({ port: 0, ...options });
      started.push(emu);
      return emu;
    },
    async closeAll(): Promise<void> {
      await Promise.all(started.splice(0).map((e) => e.close()));
    },
  };
}

export const create = (emu: Emulator, form: Record<string, string | number | null | undefined>, key?: string) =>
  call(emu, 'POST', '/api/v1/websites', { form, ...(key === undefined ? {} : { key }) });
