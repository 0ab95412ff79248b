/** Laravel-style 422 answers on store and update, over real HTTP (the full profile; deployed.test.ts has the product's own). */
import { afterEach, describe, expect, it } from 'vitest';
import { call, create, emulators } from './helpers.js';

const emus = emulators();
afterEach(() => emus.closeAll());

async function storeErrors(form: Record<string, string | number | null | undefined>) {
  const emu = await emus.start({ profile: 'full' });
  const r = await create(emu, form);
  expect(r.status).toBe(422);
  expect(emu.websites(emu.keys[0]!)).toEqual([]);
  return r.json as { message: string; errors: Record<string, string[]> };
}

describe('store validation', () => {
  it('requires the domain', async () => {
    for (const form of [{}, { domain: '' }, { domain: '   ' }, { domain: 'https://www.' }]) {
      expect(await storeErrors(form)).toEqual({
        message: 'The domain field is required.',
        errors: { domain: ['The domain field is required.'] },
      });
    }
  });

  it('sums up the other errors in the message', async () => {
    const body = await storeErrors({ privacy: 5, email: 'yes', exclude_bots: 3 });
    expect(body).toEqual({
      message: 'The domain field is required. (and 3 more errors)',
      errors: {
        domain: ['The domain field is required.'],
        privacy: ['The privacy must be between 0 and 2.'],
        email: ['The email must be an integer.'],
        exclude_bots: ['The exclude bots must be between 0 and 1.'],
      },
    });
    expect((await storeErrors({ domain: 'ok.com', privacy: 9, email: 2 })).message).toBe(
      'The privacy must be between 0 and 2. (and 1 more error)',
    );
  });

  it('checks the domain syntax and length', async () => {
    for (const domain of ['not a domain', 'localhost', 'exa_mple.com', '-bad.com', 'example.com/path', 'bücher.de', 'a..com']) {
      expect((await storeErrors({ domain })).errors.domain, domain).toEqual(['The domain must be a valid domain name.']);
    }
    const long = `${'a'.repeat(60)}.`.repeat(5) + 'com';
    expect((await storeErrors({ domain: long })).errors.domain).toEqual([
      'The domain must not be greater than 255 characters.',
      'The domain must be a valid domain name.',
    ]);
  });

  it('requires a password for privacy 2, of 1 to 128 characters', async () => {
    expect(await storeErrors({ domain: 'p.com', privacy: 2 })).toEqual({
      message: 'The password field is required when privacy is 2.',
      errors: { password: ['The password field is required when privacy is 2.'] },
    });
    expect((await storeErrors({ domain: 'p.com', privacy: '2', password: '' })).errors).toEqual({
      password: ['The password field is required when privacy is 2.'],
    });
    expect((await storeErrors({ domain: 'p.com', privacy: 2, password: 'x'.repeat(129) })).errors).toEqual({
      password: ['The password must be between 1 and 128 characters.'],
    });
    const emu = await emus.start({ profile: 'full' });
    expect((await create(emu, { domain: 'p.com', privacy: 2, password: 'x'.repeat(128) })).status).toBe(201);
  });

  it('checks integers and ranges', async () => {
    expect((await storeErrors({ domain: 'i.com', privacy: '1.5' })).errors).toEqual({ privacy: ['The privacy must be an integer.'] });
    expect((await storeErrors({ domain: 'i.com', privacy: -1 })).errors).toEqual({ privacy: ['The privacy must be between 0 and 2.'] });
    expect((await storeErrors({ domain: 'i.com', email: 2 })).errors).toEqual({ email: ['The email must be between 0 and 1.'] });
    // exclude_bots is not nullable: sent empty, it is not an integer.
    expect((await storeErrors({ domain: 'i.com', exclude_bots: '' })).errors).toEqual({
      exclude_bots: ['The exclude bots must be an integer.'],
    });
    expect((await storeErrors({ domain: 'i.com', exclude_bots: 'on' })).errors).toEqual({
      exclude_bots: ['The exclude bots must be an integer.'],
    });
  });

  it('caps the newline lists', async () => {
    const body = await storeErrors({ domain: 'l.com', exclude_params: 'x'.repeat(65536), exclude_ips: 'y'.repeat(65536) });
    expect(body.errors).toEqual({
      exclude_params: ['The exclude params must not be greater than 65535 characters.'],
      exclude_ips: ['The exclude ips must not be greater than 65535 characters.'],
    });
  });

  it('refuses arrays where it wants a value', async () => {
    const emu = await emus.start({ profile: 'full' });
    const r = await call(emu, 'POST', '/api/v1/websites', { form: 'domain=a.com&privacy[]=1&exclude_ips[]=1.2.3.4' });
    expect(r.status).toBe(422);
    expect(r.json.errors).toEqual({ privacy: ['The privacy must be an integer.'], exclude_ips: ['The exclude ips must be a string.'] });
    const json = await call(emu, 'POST', '/api/v1/websites', { json: { domain: 42 } });
    expect(json.json.errors).toEqual({ domain: ['The domain must be a string.'] });
  });

  it('accepts empty optional values as null, trims all but the password', async () => {
    const emu = await emus.start({ profile: 'full' });
    const r = await create(emu, { domain: ' t.com ', privacy: '', email: '', exclude_ips: ' 1.2.3.4\n5.6.7.8 \n', password: ' pw ' });
    expect(r.status).toBe(201);
    expect(emu.websites(emu.keys[0]!)[0]).toMatchObject({
      domain: 't.com',
      privacy: null,
      email: null,
      exclude_ips: '1.2.3.4\n5.6.7.8',
      password: ' pw ',
    });
  });
});

describe('update validation', () => {
  it('checks the same fields, and does not change anything when one is wrong', async () => {
    const emu = await emus.start({ profile: 'full' });
    const [w] = emu.seed(emu.keys[0]!, [{ domain: 'u.com', privacy: 0, email: 0 }]);
    const r = await call(emu, 'PATCH', `/api/v1/websites/${w!.id}`, { form: { email: 1, privacy: 7, exclude_bots: 'x' } });
    expect(r.status).toBe(422);
    expect(r.json).toEqual({
      message: 'The privacy must be between 0 and 2. (and 1 more error)',
      errors: { privacy: ['The privacy must be between 0 and 2.'], exclude_bots: ['The exclude bots must be an integer.'] },
    });
    expect(emu.websites(emu.keys[0]!)[0]!.email).toBe(0);
  });

  it('requires a password to turn privacy to 2 unless the website has one', async () => {
    const emu = await emus.start({ profile: 'full' });
    const [open, guarded] = emu.seed(emu.keys[0]!, [{ domain: 'open.com', privacy: 0 }, { domain: 'guarded.com', privacy: 1, password: 'old' }]);
    const missing = await call(emu, 'PUT', `/api/v1/websites/${open!.id}`, { form: { privacy: 2 } });
    expect(missing.status).toBe(422);
    expect(missing.json.errors).toEqual({ password: ['The password field is required when privacy is 2.'] });
    expect((await call(emu, 'PUT', `/api/v1/websites/${open!.id}`, { form: { privacy: 2, password: 'new' } })).status).toBe(200);
    expect((await call(emu, 'PUT', `/api/v1/websites/${guarded!.id}`, { form: { privacy: 2 } })).status).toBe(200);
    const emptied = await call(emu, 'PUT', `/api/v1/websites/${guarded!.id}`, { form: { privacy: 2, password: '' } });
    expect(emptied.status).toBe(422);
    expect(emu.websites(emu.keys[0]!).map((w) => [w.privacy, w.password])).toEqual([
      [2, 'new'],
      [2, 'old'],
    ]);
  });

  it('deployed: validates before it fails on an unknown id', async () => {
    const emu = await emus.start();
    expect((await call(emu, 'PATCH', '/api/v1/websites/42', { form: { privacy: 9 } })).status).toBe(422);
    expect((await call(emu, 'PATCH', '/api/v1/websites/42', { form: { privacy: 1 } })).status).toBe(500);
  });
});
