/** Small pieces the command files share. */
import { formatDiagnostic, type Diagnostic } from '../errors.js';
import { printable } from '../render/escape.js';
import type { Context } from '../terminal.js';

export function printWarnings(warnings: Diagnostic[], ctx: Context): void {
  for (const w of warnings) ctx.stderr.write(`${ctx.err.yellow(printable(formatDiagnostic(w)))}\n`);
}
