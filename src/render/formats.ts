/**
 * The plan's output formats: one list of renderers, which `plan --format`, `show --format`, the
 * CI and the library all choose from. A new format is one entry here.
 */
import pc from 'picocolors';
import type { AccountPlan } from '../model/types.js';
import type { Colors } from '../io/context.js';
import type { CutNote } from './markdown.js';
import { renderRunJson, renderRunMarkdown, renderRunText } from './run.js';

export interface PlanRenderOptions {
  /** Colours for text (none by default). */
  colors?: Colors;
  /** markdown: the most characters (a comment's or a job summary's limit). */
  limit?: number;
  /** markdown: which config's comment (its marker), for CI. */
  commentId?: string;
  /** markdown: what a cut says, and where the whole plan is. */
  cut?: CutNote;
  /** markdown: the SHA-256 of the config files planned from, for the hidden approved block (a pull request's plan comment). */
  configSha256?: string;
}

export const PLAN_FORMATS = {
  text: (accounts: AccountPlan[], o: PlanRenderOptions) => renderRunText(accounts, o.colors ?? pc.createColors(false)),
  markdown: (accounts: AccountPlan[], o: PlanRenderOptions) => `${renderRunMarkdown(accounts, o)}\n`,
  json: (accounts: AccountPlan[]) => renderRunJson(accounts),
} as const;

export type PlanFormat = keyof typeof PLAN_FORMATS;

/** The formats' names, for `--format`'s choices. */
export const PLAN_FORMAT_NAMES = Object.keys(PLAN_FORMATS) as PlanFormat[];

/** The accounts' plans in `format`. */
export function renderPlanAs(format: PlanFormat, accounts: AccountPlan[], options: PlanRenderOptions = {}): string {
  return PLAN_FORMATS[format](accounts, options);
}
