/**
 * What apply says about the plan a pull request approved (`apply --approved FILE`): "as
 * approved", or each change that differs and why, on the terminal and in the `--report`
 * markdown. Pure: the comparison in, text out.
 */
import pc from 'picocolors';
import { markdownCode, markdownText, printable } from '../messages/escape.js';
import type { ApprovalCheck, ApprovalDifference } from '../model/types.js';
import type { Colors } from '../io/context.js';

const changes = (n: number) => `${n} change${n === 1 ? '' : 's'}`;

/** `added      [acme] update shop.example.com (id 3)` */
function differenceText(d: ApprovalDifference): string {
  const account = d.account ? `[${d.account}] ` : '';
  const change = d.change ? `${d.change.action} ${d.change.domain}${d.change.id != null ? ` (id ${d.change.id})` : ''}` : '';
  const note = d.note ? (change ? ` (${d.note})` : d.note) : '';
  return printable(`${d.kind.padEnd(10)} ${account}${change}${note}`);
}

export function renderApprovalText(check: ApprovalCheck, c: Colors = pc.createColors(false)): string {
  if (check.unavailable) return `${c.yellow(`Not compared with an approved plan: ${printable(check.unavailable)}.`)}\n`;
  if (check.differences.length === 0) return `${c.green(`As approved: the plan is the one approved in ${printable(check.file)} (${changes(check.count)}).`)}\n`;
  const n = check.differences.length;
  const head = `Not as approved: ${n} ${n === 1 ? 'difference' : 'differences'} from the plan approved in ${printable(check.file)}, ${check.why}:`;
  return `${[c.yellow(head), ...check.differences.map((d) => `  ${differenceText(d)}`)].join('\n')}\n`;
}

export function renderApprovalMarkdown(check: ApprovalCheck): string {
  if (check.unavailable) return `_Not compared with an approved plan: ${markdownText(check.unavailable)}._\n`;
  if (check.differences.length === 0) return `**As approved**: the plan applied is the one approved in ${markdownCode(check.file)} (${changes(check.count)}).\n`;
  const n = check.differences.length;
  const lines = [
    '> [!WARNING]',
    `> **Not as approved**: ${n} ${n === 1 ? 'difference' : 'differences'} from the plan approved in ${markdownCode(check.file)}, ${check.why}:`,
    '>',
    ...check.differences.map((d) => {
      const account = d.account ? `${markdownCode(d.account)}: ` : '';
      const change = d.change ? `${d.change.action} ${markdownCode(d.change.domain)}${d.change.id != null ? ` (id ${d.change.id})` : ''}` : '';
      const note = d.note ? markdownText(change ? ` (${d.note})` : d.note) : '';
      return `> - ${d.kind}: ${account}${change}${note}`;
    }),
  ];
  return `${lines.join('\n')}\n`;
}
