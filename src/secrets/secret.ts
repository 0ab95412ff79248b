/**
 * A website's password as the config file gives it: its `${NAME}` (or, discouraged, the value
 * written in clear) and the value now. The value is read only by the code that sends it; every
 * way of showing the object (`JSON.stringify`, `util.inspect`, `console.log`, a template string)
 * shows `(sensitive)`, so a library user who prints a loaded config prints no password.
 */
import { inspect } from 'node:util';

const SHOWN = '(sensitive)';

export class Secret {
  readonly #value: string;

  constructor(
    /** As written in the file: `${NAME}`, or the value itself. */
    readonly template: string,
    value: string,
    /** Where the password is written (in the file of its website). */
    readonly pos: { line: number; col: number },
  ) {
    this.#value = value;
  }

  /** The password itself: for the request that sends it, and nothing else. */
  get value(): string {
    return this.#value;
  }

  toJSON(): string {
    return SHOWN;
  }

  toString(): string {
    return SHOWN;
  }

  [inspect.custom](): string {
    return SHOWN;
  }
}
