import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signToken, verifyToken } from '../../server/auth/tokens.ts';
import { decodeClaims } from '../../shared/claims.ts';

const secret = randomBytes(32);
const editor = { sub: 'u1', name: 'Ada', role: 'editor' as const };

function reencode(token: string, change: (claims: Record<string, unknown>) => void): string {
  const [payload, signature] = token.split('.');
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  change(claims);
  return Buffer.from(JSON.stringify(claims)).toString('base64url') + '.' + signature;
}

describe('signed tokens', () => {
  it('verifies a token it signed and returns its claims', () => {
    const token = signToken(secret, { ...editor, iat: 1_700_000_000 });
    expect(verifyToken(secret, token)).toEqual({ ...editor, iat: 1_700_000_000 });
  });

  it('stamps the time of issue in seconds when none is given', () => {
    const before = Math.floor(Date.now() / 1000);
    const claims = verifyToken(secret, signToken(secret, editor));
    expect(claims?.iat).toBeGreaterThanOrEqual(before);
    expect(claims?.iat).toBeLessThanOrEqual(before + 1);
  });

  it('keeps the document scope and the op allowlist of an agent', () => {
    const token = signToken(secret, { sub: 'a1', name: 'Bot', role: 'agent', doc: 'abc123', ops: ['delete_block'] });
    expect(verifyToken(secret, token)).toMatchObject({ role: 'agent', doc: 'abc123', ops: ['delete_block'] });
  });

  it('refuses a token signed with another secret', () => {
    const token = signToken(randomBytes(32), editor);
    expect(verifyToken(secret, token)).toBeNull();
  });

  it('refuses a token whose claims were changed after signing', () => {
    const token = signToken(secret, { ...editor, role: 'viewer' });
    expect(verifyToken(secret, reencode(token, (claims) => (claims.role = 'editor')))).toBeNull();
  });

  it('refuses a token whose signature was changed', () => {
    const token = signToken(secret, editor);
    const last = token.at(-1) === 'A' ? 'B' : 'A';
    expect(verifyToken(secret, token.slice(0, -1) + last)).toBeNull();
  });

  it('accepts exactly one spelling of a signature: every one-character change is refused', () => {
    const token = signToken(secret, editor);
    const dot = token.indexOf('.');
    for (let i = dot + 1; i < token.length; i++) {
      const other = token[i] === 'A' ? 'B' : 'A';
      expect(verifyToken(secret, token.slice(0, i) + other + token.slice(i + 1)), `position ${i}`).toBeNull();
    }
  });

  it.each([
    ['an empty string', ''],
    ['a single part', 'abc'],
    ['three parts', 'a.b.c'],
    ['characters outside base64url', 'ab+c.de/f'],
    ['a non-string', 42],
    ['undefined', undefined],
  ])('refuses %s', (_label, token) => {
    expect(verifyToken(secret, token)).toBeNull();
  });

  it('refuses a correctly signed payload that is not JSON claims', () => {
    const sign = (payload: string) => payload + '.' + createHmac('sha256', secret).update(payload).digest('base64url');
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    expect(verifyToken(secret, sign(Buffer.from('not json').toString('base64url')))).toBeNull();
    expect(verifyToken(secret, sign(encode({ ...editor, role: 'admin', iat: 1 })))).toBeNull();
    expect(verifyToken(secret, sign(encode({ ...editor, iat: -1 })))).toBeNull();
    expect(verifyToken(secret, sign(encode({ ...editor, sub: '', iat: 1 })))).toBeNull();
    expect(verifyToken(secret, sign(encode({ ...editor, doc: 'a/notes', iat: 1 })))).toBeNull();
    expect(verifyToken(secret, sign(encode({ ...editor, ops: ['delete_block'], iat: 1 })))).toBeNull();
    expect(verifyToken(secret, sign(encode([editor])))).toBeNull();
  });

  it.each([
    ['an unknown role', { ...editor, role: 'admin' }],
    ['ops on a role other than agent', { ...editor, ops: ['delete_block'] }],
    ['an unknown op kind', { sub: 'a', name: 'A', role: 'agent', ops: ['rewrite_everything'] }],
    ['a repeated op kind', { sub: 'a', name: 'A', role: 'agent', ops: ['delete_block', 'delete_block'] }],
    ['a malformed document id', { ...editor, doc: '../x' }],
    ['an empty principal id', { ...editor, sub: '' }],
  ])('will not sign claims with %s', (_label, claims) => {
    expect(() => signToken(secret, claims as never)).toThrow(RangeError);
  });

  it('lets anyone read the claims without the secret', () => {
    const token = signToken(secret, { ...editor, doc: 'd1', iat: 5 });
    expect(decodeClaims(token)).toEqual({ ...editor, doc: 'd1', iat: 5 });
    expect(decodeClaims('garbage')).toBeNull();
  });
});
