/** The schema refuses `${` outside a website's password; `$${` is a literal there, and a password reads ${NAME}. */
import { describe, expect, it } from 'vitest';
import { schemaValidator } from '../../src/schema/validators.js';

const valid = (data: unknown) => schemaValidator('config')(data);

describe('${NAME} outside a password, in the schema', () => {
  it('is refused in every string the file may hold but a password: domains, lists, base_url, include, archive, patterns', () => {
    const site = { domain: 'a.example' };
    for (const data of [
      { version: 1, websites: [{ domain: '${X}.example' }] },
      { version: 1, websites: [{ ...site, exclude_ips: ['${X}'] }] },
      { version: 1, websites: [{ ...site, exclude_params: 'a\n${X}' }] },
      { version: 1, defaults: { exclude_params: ['x${X}'] }, websites: [] },
      { version: 1, api: { base_url: 'https://${HOST}' }, websites: [] },
      { version: 1, include: ['${DIR}/*.yaml'], websites: [] },
      { version: 1, archive: '${DIR}', websites: [] },
      { version: 1, protect: ['${X}'], websites: [] },
      { version: 1, accounts: { a: { base_url: 'https://${HOST}', api_key_env: 'A_KEY', websites: [] } } },
      { version: 1, websites: [{ domain: 'b${' }] },
    ]) {
      expect(valid(data), JSON.stringify(data)).toBe(false);
    }
  });

  it('takes a literal $${ anywhere, and ${NAME} in a website password', () => {
    expect(valid({ version: 1, websites: [{ domain: 'a.example', exclude_ips: ['$${X}', '$$${X}', 'cost $5'], privacy: 'password', password: '${PW}' }] })).toBe(true);
  });
});
