/**
 * The command line's commands, in the order help lists them. Each command declares its own
 * words, options, examples and runner (src/commands/, through defineCommand); cli/parser.ts
 * declares them to yargs.
 */
import { accountCommand } from '../commands/account.js';
import { applyCommand } from '../commands/apply.js';
import { archiveCommand } from '../commands/archive.js';
import { ciApprovedCommand, ciCommentCommand, ciSummaryCommand } from '../commands/ci.js';
import { ciDriftCommand } from '../commands/ci-drift.js';
import { ciPlanOpenCommand } from '../commands/ci-plan-open.js';
import type { Command } from '../commands/define.js';
import { emulatorCommand } from '../commands/emulator.js';
import { exportCommand } from '../commands/export.js';
import { fmtCommand } from '../commands/fmt.js';
import { importCommand } from '../commands/import.js';
import { initCommand } from '../commands/init.js';
import { planCommand } from '../commands/plan.js';
import { showCommand } from '../commands/show.js';
import { validateCommand } from '../commands/validate.js';
import { verifyCommand } from '../commands/verify.js';

export { GLOBAL_OPTIONS, type Command, type OptionSpec } from '../commands/define.js';

export const COMMAND_TABLE: readonly Command[] = [
  validateCommand,
  fmtCommand,
  planCommand,
  applyCommand,
  initCommand,
  exportCommand,
  archiveCommand,
  importCommand,
  accountCommand,
  showCommand,
  verifyCommand,
  emulatorCommand,
  ciCommentCommand,
  ciSummaryCommand,
  ciDriftCommand,
  ciApprovedCommand,
  ciPlanOpenCommand,
];

/** Commands that only group others (`sitesync ci …`): what each says in the help, and without a sub-command. */
export const COMMAND_GROUPS: Readonly<Record<string, { describe: string; demand: string }>> = {
  ci: {
    describe: "Helpers for the CI recipes: the plan as one pull-request comment, the job summary, drift as issues, the merged request's approved plan, GitLab's open merge requests planned",
    demand: 'Say which: sitesync ci comment, sitesync ci summary, sitesync ci drift, sitesync ci approved or sitesync ci plan-open.',
  },
};
