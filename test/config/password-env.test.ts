/** `password_env` globs: `*` matches any run of characters of a variable's name, in linear time. */
import { describe, expect, it } from 'vitest';
import { wildcardMatches } from '../../src/model/domain.js';
import { passwordSource } from '../../src/config/interpolate.js';

describe('a password_env glob', () => {
  it.each([
    ['ACME_*', 'ACME_SHOP_PW', true],
    ['ACME_*', 'ACME_', true],
    ['ACME_*', 'GLOBEX_SHOP_PW', false],
    ['*_PW', 'ACME_SHOP_PW', true],
    ['A*E*W', 'ACME_SHOP_PW', true],
    ['SHOP_PW', 'SHOP_PW', true],
    ['SHOP_PW', 'SHOP_PW2', false],
    ['SHOP_PW', 'shop_pw', false],
    ['*', 'ANY', true],
    ['**X', 'X', true],
  ])('%s matches %s: %s', (glob, name, expected) => {
    expect(wildcardMatches(glob, name)).toBe(expected);
  });

  it('takes milliseconds with 30 stars against a long name that almost matches', () => {
    const glob = `${'*A'.repeat(30)}*B`;
    const name = 'A'.repeat(200);
    expect(wildcardMatches(glob, name)).toBe(false);
  });
});

describe('where a password comes from', () => {
  it.each([
    ['${A}', { variables: ['A'], clear: false }],
    ['${A}${B}${A}', { variables: ['A', 'B'], clear: false }],
    ['x-${A}', { variables: ['A'], clear: true }],
    ['in-clear', { variables: [], clear: true }],
    ['$${A}', { variables: [], clear: true }],
  ])('%s: %j', (template, expected) => {
    expect(passwordSource(template)).toEqual(expected);
  });
});
