/**
 * Which live and listed websites a plan covers: not ignored by the file, matched by a --target
 * (all, without one), not matched by an --exclude. The one rule for a fresh plan, a saved plan
 * made again, and the comparison that says why a saved change is out of scope.
 */
import { GlobSet } from '../model/domain.js';
import type { Config } from '../model/types.js';

export interface ScopeOptions {
  /** `--target GLOB`…: only these domains. */
  targets?: readonly string[];
  /** `--exclude GLOB`…: not these domains (left alone, as if ignored). */
  excludes?: readonly string[];
}

export class Scope {
  private readonly ignore: GlobSet;
  private readonly targets: GlobSet | undefined;
  private readonly excludes: GlobSet | undefined;

  constructor(
    private readonly config: Pick<Config, 'ignore'>,
    private readonly options: ScopeOptions = {},
  ) {
    this.ignore = new GlobSet(config.ignore.map((p) => p.glob));
    this.targets = options.targets?.length ? new GlobSet([...options.targets]) : undefined;
    this.excludes = options.excludes?.length ? new GlobSet([...options.excludes]) : undefined;
  }

  /** Whether the plan is narrowed to part of the account (ignore, targets, excludes): the managed websites are then a part of the list. */
  get narrowed(): boolean {
    return this.ignore.globs.length > 0 || this.targets !== undefined || this.excludes !== undefined;
  }

  /** Matched by a --target, or every website without one: outside the targets nothing is planned, or counted. */
  targeted(domain: string): boolean {
    return !this.targets || this.targets.matches(domain);
  }

  /** Managed: targeted, and neither ignored nor excluded. */
  includes(domain: string): boolean {
    return this.targeted(domain) && !this.ignore.matches(domain) && !this.excludes?.matches(domain);
  }

  /** Why the file or the options leave a website alone; undefined when it is managed. */
  whyOut(domain: string, shownConfig: string): string | undefined {
    const ignoredBy = this.ignore.indexOf(domain);
    if (ignoredBy >= 0) return `${shownConfig} ignores it ("${this.config.ignore[ignoredBy]!.glob}")`;
    if (!this.targeted(domain)) return `no --target of the plan (${this.options.targets!.join(', ')}) matches it`;
    const excludedBy = this.excludes?.indexOf(domain) ?? -1;
    if (excludedBy >= 0) return `the plan's --exclude "${this.options.excludes![excludedBy]}" matches it`;
    return undefined;
  }
}
