import { describe, expect, it } from 'vitest';
import { Router } from '../../server/http/router.ts';
import { Rejection } from '../../shared/protocol/rejection.ts';

const router = new Router<string>()
  .add('GET', '/api/docs', 'list')
  .add('POST', '/api/docs', 'create')
  .add('GET', '/api/docs/:id', 'read')
  .add('GET', '/api/docs/:id/markdown', 'markdown');

function failure(method: string, path: string): Rejection {
  try {
    router.match(method, path);
  } catch (error) {
    if (error instanceof Rejection) return error;
  }
  throw new Error('expected an Rejection');
}

describe('router', () => {
  it('matches a method and a path and decodes the params', () => {
    expect(router.match('GET', '/api/docs/a%2Db')).toEqual({ handler: 'read', params: { id: 'a-b' } });
    expect(router.match('POST', '/api/docs')).toEqual({ handler: 'create', params: {} });
  });

  it('answers 404 for an unknown path', () => {
    expect(failure('GET', '/api/nothing')).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    expect(failure('GET', '/api/docs/x/y/z')).toMatchObject({ status: 404, code: 'NOT_FOUND' });
  });

  it('answers 405 naming the allowed methods for a known path', () => {
    expect(failure('DELETE', '/api/docs')).toMatchObject({
      status: 405,
      code: 'METHOD_NOT_ALLOWED',
      details: { allow: ['GET', 'POST'] },
    });
  });

  it('treats a malformed escape in a param as an unknown path', () => {
    expect(failure('GET', '/api/docs/%E0%A4%A')).toMatchObject({ status: 404 });
  });
});
