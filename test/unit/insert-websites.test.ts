/** import's edit: entries appended in the list's own style, every other byte kept. */
import { describe, expect, it } from 'vitest';
import { insertWebsites } from '../../src/config/insert-websites.js';

const entry = { entry: { domain: 'new.example', email: true }, notes: [] };

describe('appending websites', () => {
  it('a list at column 0 gets its entries at column 0', () => {
    const text = 'version: 1\nwebsites:\n- domain: a.example\n# after\n';
    expect(insertWebsites(text, ['websites'], [entry], 'f')).toBe('version: 1\nwebsites:\n- domain: a.example\n- domain: new.example\n  email: true\n# after\n');
  });

  it('a list indented by four, with blank lines between items, keeps both', () => {
    const text = 'websites:\n    - domain: a.example\n\n    - domain: b.example\n      email: true  # yes\nprune: true\n';
    expect(insertWebsites(text, ['websites'], [entry], 'f')).toBe(
      'websites:\n    - domain: a.example\n\n    - domain: b.example\n      email: true  # yes\n\n    - domain: new.example\n      email: true\nprune: true\n',
    );
  });

  it('anchors and aliases elsewhere keep working; a note becomes a comment above the entry', () => {
    const text = 'defaults: &d {email: true}\nwebsites:\n  - domain: a.example\n';
    const out = insertWebsites(text, ['websites'], [{ entry: { domain: 'n.example' }, notes: ['why'] }], 'f');
    expect(out).toBe('defaults: &d {email: true}\nwebsites:\n  - domain: a.example\n  # why\n  - domain: n.example\n');
  });

  it('an empty or missing list is created through the document', () => {
    expect(insertWebsites('version: 1\nwebsites: []\n', ['websites'], [entry], 'f')).toBe('version: 1\nwebsites:\n  - domain: new.example\n    email: true\n');
    const accounts = 'accounts:\n  acme: # ours\n    base_url: https://a.example\n';
    expect(insertWebsites(accounts, ['accounts', 'acme', 'websites'], [entry], 'f')).toContain('# ours');
  });
});
