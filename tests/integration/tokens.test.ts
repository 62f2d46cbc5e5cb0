import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SignJWT } from 'jose';
import { signToken, verifyToken } from '../../server/auth/tokens.ts';
import { addKey, fixedKeyRing, keyId, openKeyRing, readKeys, type SigningKey } from '../../server/auth/keys.ts';
import { parseLifetime } from '../../server/auth/expiry.ts';
import { decodeClaims } from '../../shared/protocol/claims.ts';

const key = (secret = randomBytes(32)): SigningKey => ({ kid: keyId(secret), secret });
const current = key();
const keys = fixedKeyRing([current]);
const editor = { sub: 'u1', name: 'Ada', role: 'editor' as const };
const now = () => Math.floor(Date.now() / 1000);

const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
/** A compact JWS over `header` and `payload`, HMAC-SHA256 with `secret` (whatever the header says). */
function hmacJws(header: unknown, payload: unknown, secret: Uint8Array = current.secret): string {
  const input = `${encode(header)}.${encode(payload)}`;
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
}
const validPayload = () => ({ ...editor, iat: now(), jti: 'j1' });
const validHeader = { alg: 'HS256', typ: 'JWT', kid: current.kid };

async function claimsOf(token: string) {
  const check = await verifyToken(keys, token);
  return check.ok ? check.claims : check.reason;
}

describe('signed tokens', () => {
  it('verifies a token it signed and returns its claims with a token id', async () => {
    const token = await signToken(keys, { ...editor, iat: 1_700_000_000 });
    const claims = await claimsOf(token);
    expect(claims).toEqual({ ...editor, iat: 1_700_000_000, jti: expect.stringMatching(/^[0-9a-z]{20}$/) });
  });

  it('[TOKEN1] is a JWT with an HS256 header naming its key', async () => {
    const token = await signToken(keys, editor);
    const [header] = token.split('.');
    expect(JSON.parse(Buffer.from(header, 'base64url').toString())).toEqual({ alg: 'HS256', typ: 'JWT', kid: current.kid });
  });

  it('gives every token its own id', async () => {
    const [a, b] = await Promise.all([signToken(keys, editor), signToken(keys, editor)]);
    expect(decodeClaims(a)?.jti).not.toBe(decodeClaims(b)?.jti);
  });

  it('keeps the document scope, the op allowlist and the expiry', async () => {
    const exp = now() + 60;
    const token = await signToken(keys, { sub: 'a1', name: 'Bot', role: 'agent', doc: 'abc123', ops: ['delete_block'], exp });
    expect(await claimsOf(token)).toMatchObject({ role: 'agent', doc: 'abc123', ops: ['delete_block'], exp });
  });

  it('[TOKEN1] accepts a standard JWT made by another HS256 signer with a kept key', async () => {
    const token = await new SignJWT(validPayload()).setProtectedHeader(validHeader).sign(current.secret);
    expect(await claimsOf(token)).toEqual(validPayload());
    expect(await claimsOf(hmacJws(validHeader, validPayload()))).toEqual(validPayload());
  });

  it('[TOKEN1] refuses a token signed with a key it does not keep', async () => {
    const token = await signToken(fixedKeyRing([key()]), editor);
    expect(await claimsOf(token)).toBe('invalid');
  });

  it('[TOKEN1] refuses a token whose payload was changed after signing', async () => {
    const token = await signToken(keys, { ...editor, role: 'viewer' });
    const [header, payload, signature] = token.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const tampered = `${header}.${encode({ ...claims, role: 'editor' })}.${signature}`;
    expect(await claimsOf(tampered)).toBe('invalid');
  });

  it('[TOKEN1] refuses every one-character change of the signature', async () => {
    const token = await signToken(keys, editor);
    const start = token.lastIndexOf('.') + 1;
    for (let i = start; i < token.length; i++) {
      const other = token[i] === 'A' ? 'B' : 'A';
      expect(await claimsOf(token.slice(0, i) + other + token.slice(i + 1)), `position ${i}`).toBe('invalid');
    }
  });

  it('[TOKEN1] refuses the other spellings of a signature, whose last character differs only in unused bits', async () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const token = await signToken(keys, editor);
    const last = alphabet.indexOf(token.at(-1)!);
    for (const unused of [1, 2, 3]) {
      const respelled = token.slice(0, -1) + alphabet[last ^ unused];
      expect(Buffer.from(respelled.split('.')[2], 'base64url')).toEqual(Buffer.from(token.split('.')[2], 'base64url'));
      expect(await claimsOf(respelled), `unused bits ${unused}`).toBe('invalid');
    }
  });

  it('[TOKEN1] refuses a token whose kid names another key, or no key', async () => {
    const other = key();
    const both = fixedKeyRing([current, other]);
    const signedWithCurrentNamingOther = hmacJws({ ...validHeader, kid: other.kid }, validPayload());
    expect((await verifyToken(both, signedWithCurrentNamingOther)).ok).toBe(false);
    expect(await claimsOf(hmacJws({ ...validHeader, kid: 'unknown' }, validPayload()))).toBe('invalid');
    expect(await claimsOf(hmacJws({ alg: 'HS256', typ: 'JWT' }, validPayload()))).toBe('invalid');
  });

  it('[TOKEN1] refuses alg none and every algorithm but HS256', async () => {
    const unsigned = `${encode({ alg: 'none', typ: 'JWT', kid: current.kid })}.${encode(validPayload())}.`;
    expect(await claimsOf(unsigned)).toBe('invalid');
    expect(await claimsOf(unsigned.slice(0, -1))).toBe('invalid');
    expect(await claimsOf(hmacJws({ ...validHeader, alg: 'HS512' }, validPayload()))).toBe('invalid');
    expect(await claimsOf(hmacJws({ ...validHeader, alg: 'none' }, validPayload()))).toBe('invalid');
  });

  it('[TOKEN2] refuses an expired token as expired, and only an authentic one', async () => {
    const expired = await signToken(keys, { ...editor, iat: now() - 120, exp: now() - 60 });
    expect(await claimsOf(expired)).toBe('expired');
    const forged = await signToken(fixedKeyRing([key()]), { ...editor, iat: now() - 120, exp: now() - 60 });
    expect(await claimsOf(forged)).toBe('invalid');
  });

  it('[TOKEN3] refuses a revoked token as revoked, and keeps others', async () => {
    const revoked = await signToken(keys, { ...editor, jti: 'gone' });
    const kept = await signToken(keys, { ...editor, jti: 'kept' });
    const isRevoked = async (jti: string) => jti === 'gone';
    expect(await verifyToken(keys, revoked, isRevoked)).toEqual({ ok: false, reason: 'revoked' });
    expect((await verifyToken(keys, kept, isRevoked)).ok).toBe(true);
  });

  it('[TOKEN1] refuses a correctly signed payload that is not claims with an id', async () => {
    for (const payload of [
      { ...editor, iat: now() },
      { ...validPayload(), role: 'admin' },
      { ...validPayload(), iat: -1 },
      { ...validPayload(), sub: '' },
      { ...validPayload(), doc: 'a/notes' },
      { ...validPayload(), ops: ['delete_block'] },
      { ...validPayload(), jti: 'has space' },
      [editor],
    ]) {
      expect(await claimsOf(hmacJws(validHeader, payload)), JSON.stringify(payload)).toBe('invalid');
    }
  });

  it.each([
    ['an empty string', ''],
    ['a single part', 'abc'],
    ['two parts (the format before JWTs)', 'a.b'],
    ['characters outside base64url', 'ab+c.de/f.x'],
    ['a very long string', 'a'.repeat(5000)],
    ['a non-string', 42],
    ['undefined', undefined],
  ])('refuses %s', async (_label, token) => {
    expect(await verifyToken(keys, token)).toEqual({ ok: false, reason: 'invalid' });
  });

  it.each([
    ['an unknown role', { ...editor, role: 'admin' }],
    ['ops on a role other than agent', { ...editor, ops: ['delete_block'] }],
    ['an unknown op kind', { sub: 'a', name: 'A', role: 'agent', ops: ['rewrite_everything'] }],
    ['a malformed document id', { ...editor, doc: '../x' }],
    ['an empty principal id', { ...editor, sub: '' }],
    ['a fractional expiry', { ...editor, exp: 1.5 }],
  ])('will not sign claims with %s', async (_label, claims) => {
    await expect(signToken(keys, claims as never)).rejects.toThrow(RangeError);
  });

  it('lets anyone read the claims without a key', async () => {
    const token = await signToken(keys, { ...editor, doc: 'd1', iat: 5, exp: 10, jti: 'abc' });
    expect(decodeClaims(token)).toEqual({ ...editor, doc: 'd1', iat: 5, exp: 10, jti: 'abc' });
    expect(decodeClaims('garbage')).toBeNull();
  });
});

describe('key rotation', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tandem-keys-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('[TOKEN5] keeps the data directory secret as the first key', () => {
    const [first] = readKeys(dataDir);
    expect(first.kid).toBe(keyId(first.secret));
    expect(readKeys(dataDir)).toEqual([first]);
  });

  it('[TOKEN5] signs with the newest key and verifies with an old one until its file is removed', async () => {
    const ring = openKeyRing(dataDir, 0);
    const old = await signToken(ring, editor);
    const kid = addKey(dataDir);
    const fresh = await signToken(ring, editor);
    expect(JSON.parse(Buffer.from(fresh.split('.')[0], 'base64url').toString()).kid).toBe(kid);
    expect((await verifyToken(ring, old)).ok).toBe(true);
    expect((await verifyToken(ring, fresh)).ok).toBe(true);

    addKey(dataDir);
    expect((await verifyToken(ring, old)).ok).toBe(true);
    unlinkSync(join(dataDir, 'keys', '0001.key'));
    expect(await verifyToken(ring, fresh)).toEqual({ ok: false, reason: 'invalid' });
    expect((await verifyToken(ring, old)).ok).toBe(true);
  });
});

describe('token lifetimes', () => {
  it.each([
    ['1s', 1],
    ['90m', 5400],
    ['12h', 43200],
    ['7d', 604800],
    ['never', null],
  ])('reads %s', (text, seconds) => {
    expect(parseLifetime(text)).toBe(seconds);
  });

  it.each(['', '7', 'd', '0d', '-1d', '1w', '1.5h', '7 d', '99999d'])('refuses "%s"', (text) => {
    expect(() => parseLifetime(text)).toThrow(RangeError);
  });
});
