import { describe, expect, it } from 'vitest';
import { SecretValues } from '../../src/secrets/values.js';

describe('a secret cut short is still a secret', () => {
  const KEY = 'k'.repeat(4) + '0123456789abcdef'.repeat(3) + 'TAIL-END-1234'; // 65 characters
  const secrets = new SecretValues();
  secrets.add(KEY);

  it.each([
    ['clean', (t: string) => secrets.clean(t)],
    ['cleanData', (t: string) => secrets.cleanData(t)],
  ])('%s: a value that ends in the first 60 characters of a key, or in its first 8, ends in (redacted)', (_name, clean) => {
    expect(clean(`/login?key=${KEY.slice(0, 60)}`)).toBe('/login?key=(redacted)');
    expect(clean(`/login?key=${KEY.slice(0, 8)}`)).toBe('/login?key=(redacted)');
    // As a URL encodes it, cut too.
    expect(clean(`/a?k=${encodeURIComponent(KEY).slice(0, 30)}`)).toBe('/a?k=(redacted)');
    // Seven characters, or a prefix not at the end, are ordinary text.
    expect(clean(`/login?key=${KEY.slice(0, 7)}`)).toBe(`/login?key=${KEY.slice(0, 7)}`);
    expect(clean(`/login?key=${KEY.slice(0, 20)}&next=/`)).toBe(`/login?key=${KEY.slice(0, 20)}&next=/`);
    // The whole key, and a key followed by the start of another copy of it.
    expect(clean(`${KEY}/${KEY.slice(0, 10)}`)).toBe('(redacted)/(redacted)');
  });
});
