import { describe, expect, it } from 'vitest';
import {
  CONTRACT_VERSION,
  channelNames,
  channels,
  errorKinds,
  eventNames,
  events,
  fail,
  methodName,
  ok,
  type MethodName,
} from '../../preload/contract';
import * as contract from '../../preload/contract';

describe('contract', () => {
  it('derives camelCase method names from channel names', () => {
    expect(methodName('app:info')).toBe('appInfo');
    expect(methodName('service:ping')).toBe('servicePing');
    expect(methodName('billing:redeem-voucher')).toBe('billingRedeemVoucher');
    const typed: MethodName<'billing:redeem-voucher'> = 'billingRedeemVoucher';
    expect(typed).toBe(methodName('billing:redeem-voucher'));
  });

  it('gives every channel a unique method name that does not clash with on', () => {
    const names = channelNames.map((c) => methodName(c));
    expect(new Set(names).size).toBe(names.length);
    expect(names).not.toContain('on');
    for (const name of channelNames) expect(name).toMatch(/^[a-z]+(-[a-z]+)*:[a-z]+(-[a-z]+)*$/);
  });

  it("joins the features' channel maps: every channel is declared in one feature's file, none in two", () => {
    const featureMaps = Object.entries(contract).filter(([name]) => name.endsWith('Channels') && name !== 'channels') as [string, object][];
    const declared = featureMaps.flatMap(([, map]) => Object.keys(map));
    expect(featureMaps.length).toBeGreaterThan(15);
    expect(new Set(declared).size).toBe(declared.length);
    expect([...declared].sort()).toEqual([...channelNames].sort());
  });

  it('defines app:info, service:ping and connection:state with the agreed shapes', () => {
    expect(channelNames).toEqual(expect.arrayContaining(['app:info', 'service:ping']));
    expect(eventNames).toEqual(['connection:state', 'contract:notice', 'download:progress', 'job:state', 'library:changed', 'library:overview-progress', 'updates:state', 'app:command', 'watch:changed', 'spend:changed', 'notification', 'team:status', 'fields:progress', 'fields:changed']);
    expect(CONTRACT_VERSION).toBe('1.0.0');
    expect(
      channels['app:info'].response.parse({
        version: '1',
        platform: 'darwin',
        service: { label: 'x', baseUrl: 'http://x', demo: false },
        contractVersion: '1.0.0',
      }),
    ).toBeTruthy();
    expect(() => channels['app:info'].response.parse({ version: '1' })).toThrow();
    expect(channels['service:ping'].response.parse({ reachable: false, latencyMs: 0 })).toEqual({ reachable: false, latencyMs: 0 });
    expect(() => events['connection:state'].parse({ state: 'unknown' })).toThrow();
    expect(events['connection:state'].parse({ state: 'connecting', detail: 'x' })).toEqual({ state: 'connecting', detail: 'x' });
  });

  it('refuses an undeclared field in every request (a misspelt field is an error, not ignored)', () => {
    for (const name of channelNames) {
      const r = channels[name].request.safeParse({ zzUndeclared: 1 });
      expect(r.success, name).toBe(false);
      const unrecognised = r.error!.issues.filter((i) => i.code === 'unrecognized_keys').flatMap((i) => (i as { keys: string[] }).keys);
      expect(unrecognised, name).toEqual(['zzUndeclared']);
    }
  });

  it('lists the error kinds of the architecture and builds results', () => {
    expect([...errorKinds]).toEqual(['validation', 'auth', 'not-found', 'rate-limited', 'transient', 'keychain', 'io', 'cancelled']);
    expect(ok(1)).toEqual({ ok: true, data: 1 });
    expect(fail('auth', 'no')).toEqual({ ok: false, error: { kind: 'auth', message: 'no' } });
    expect(fail('validation', 'bad', { a: ['x'] })).toEqual({ ok: false, error: { kind: 'validation', message: 'bad', fields: { a: ['x'] } } });
  });

  it('imports nothing outside itself except zod and the neutral core (common/)', async () => {
    const { readdirSync, readFileSync } = await import('node:fs');
    const dir = new URL('../../preload/contract/', import.meta.url);
    for (const file of readdirSync(dir)) {
      const source = readFileSync(new URL(file, dir), 'utf8');
      for (const [, spec] of source.matchAll(/from\s+'([^']+)'/g)) {
        expect(spec === 'zod' || spec!.startsWith('./') || /^\.\.\/\.\.\/common\/[\w-]+$/.test(spec!), `${file} imports ${spec}`).toBe(true);
      }
    }
  });
});
