import { describe, expect, it } from 'vitest';
import {
  isKeyFieldName, isKeySchema, keyFieldsOfSchema, redactSecretsDeep, redactServiceData,
} from '../../../main/api/redact.js';
import { SecretRegistry } from '../../../main/platform/secrets.js';
import { parseRedactionMark, redactionMark } from '../../../preload/contract/redaction.js';

const KEY = 'sk-live-7f3a9c1e5b2d4a68';

describe('redaction marks', () => {
  it('show the last four characters of a long key and nothing of a short one', () => {
    expect(redactionMark(KEY)).toBe('•••• 4a68');
    expect(redactionMark('abc1234')).toBe('••••');
    expect(parseRedactionMark('•••• 4a68')).toEqual({ hint: '4a68' });
    expect(parseRedactionMark('••••')).toEqual({ hint: null });
    for (const v of ['4a68', '•••• 4a689', '•••', null, 12]) expect(parseRedactionMark(v)).toBeNull();
  });
});

describe('key fields are recognised by what they are', () => {
  it('by name: the key itself, not what describes it', () => {
    for (const n of ['Key', 'key', 'apiKey', 'ApiKey', 'api_key', 'x-api-key', 'X-Api-Key', 'UserApiKey', 'SecretKey', 'AccessToken', 'Password']) expect(isKeyFieldName(n), n).toBe(true);
    for (const n of ['KeyName', 'KeyEnding', 'KeyId', 'keyLast4', 'keySet', 'Monkey', 'TenantId', 'Token', 'ContinuationToken']) expect(isKeyFieldName(n), n).toBe(false);
  });

  it('by schema: format password, a secret flag, or a description that says it is the API key', () => {
    expect(isKeySchema('Credential', { type: 'string', description: 'The API key itself, echoed back.' })).toBe(true);
    expect(isKeySchema('Value', { type: 'string', format: 'password' })).toBe(true);
    expect(isKeySchema('Opaque', { type: 'string', 'x-secret': true })).toBe(true);
    expect(isKeySchema('KeyEnding', { type: 'string', description: 'Last four characters of the API key.' })).toBe(false);
    expect(isKeySchema('MaxConcurrentConnections', { type: 'integer', description: 'Requests allowed in flight per API key.' })).toBe(false);
    expect(isKeySchema('KeyName', { type: 'string', description: 'Name of the API key.' })).toBe(false);
    expect(isKeySchema('Plan', { type: 'string' })).toBe(false);
  });

  it('collects marked fields at any depth of a response schema', () => {
    const schema = {
      type: 'object',
      properties: {
        Account: { type: 'object', properties: { Credential: { type: 'string', description: 'The API key.' }, Name: { type: 'string' } } },
        Keys: { type: 'array', items: { allOf: [{ type: 'object', properties: { Secret: { type: 'string' } } }] } },
        KeyEnding: { type: 'string', description: 'Last four characters of the key.' },
      },
    };
    expect([...keyFieldsOfSchema(schema)].sort()).toEqual(['Credential', 'Secret']);
  });
});

describe('redacting values', () => {
  it('masks registered keys anywhere in text, longest first', () => {
    const r = new SecretRegistry();
    r.add(KEY);
    r.add(`${KEY}-2`);
    r.add('abc');
    expect(r.size).toBe(2);
    expect(r.redactText(`a ${KEY}-2 and ${KEY}.`)).toBe('a •••• 4a68 and •••• 4a68.'.replace('•••• 4a68 and', `${redactionMark(`${KEY}-2`)} and`));
    expect(r.leaks(`x${KEY}x`)).toBe(true);
  });

  it('service data: key fields by name or by the specification, echoed keys in values and property names', () => {
    const r = new SecretRegistry();
    r.add(KEY);
    const data = {
      Key: 'another-key-from-the-service-0042', KeyEnding: '4a68', TenantId: 't1',
      Nested: [{ Credential: 'opaque-credential-9911', Note: `issued for ${KEY}` }],
      [KEY]: 1, Count: 3, Empty: null, apiKey: null,
    };
    const out = redactServiceData(data, r, new Set(['Credential']));
    expect(out).toEqual({
      Key: '•••• 0042', KeyEnding: '4a68', TenantId: 't1',
      Nested: [{ Credential: '•••• 9911', Note: 'issued for •••• 4a68' }],
      '•••• 4a68': 1, Count: 3, Empty: null, apiKey: null,
    });
    // Idempotent, and the input is untouched.
    expect(redactServiceData(out, r, new Set(['Credential']))).toEqual(out);
    expect(data.Key).toBe('another-key-from-the-service-0042');
  });

  it('the IPC last line masks values only: the app\'s own "key" fields stay', () => {
    const r = new SecretRegistry();
    expect(redactSecretsDeep({ key: 'tasking.orders.list' }, r)).toEqual({ key: 'tasking.orders.list' });
    r.add(KEY);
    const ipc = { ok: false, error: { kind: 'auth', message: `bad key ${KEY}`, fields: { key: [`${KEY} refused`] } }, operations: [{ key: 'billing.redeemVoucher' }] };
    expect(JSON.stringify(redactSecretsDeep(ipc, r))).not.toContain(KEY);
    expect(redactSecretsDeep(ipc, r).operations[0]!.key).toBe('billing.redeemVoucher');
    expect(redactSecretsDeep(ipc, r).error.message).toBe('bad key •••• 4a68');
  });
});
