/** The docs and the GitHub recipes agree: the agency layout keeps node_modules/ out of git, and examples/github/README.md lists every workflow. */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root } from '../helpers/cli.js';
import { sectionText } from '../helpers/docs.js';

describe('the docs and the GitHub recipes agree', () => {
  it("the agency layout keeps node_modules/ out of the config repository's git", async () => {
    const layout = sectionText('docs/accounts.md', "An agency's repository");
    expect(layout).toMatch(/\n├── \.gitignore +# node_modules\/ and \.\*\.sitesync-lock: never committed\n/);
  });

  it('examples/github/README.md counts and lists every workflow, and forbids no trigger a workflow uses', async () => {
    const dir = join(root, 'examples/github');
    const workflows = (await readdir(dir)).filter((f) => f.endsWith('.yml'));
    const text = await readFile(join(dir, 'README.md'), 'utf8');
    const words = ['', 'One', 'Two', 'Three', 'Four', 'Five', 'Six'];
    expect(text).toMatch(new RegExp(`^${words[workflows.length]} workflows`, 'm'));
    for (const file of workflows) expect(text).toContain(`| \`${file}\` |`);
    for (const file of workflows) {
      const triggers = (await readFile(join(dir, file), 'utf8')).match(/^ {2}(pull_request_target|pull_request|push|schedule|workflow_dispatch):/gm) ?? [];
      for (const trigger of triggers) expect(text, `${file} uses ${trigger.trim()}`).not.toMatch(new RegExp(`[Dd]o not use \`${trigger.trim().slice(0, -1)}\``));
    }
  });
});
