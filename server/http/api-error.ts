import { Rejection } from '../rejection.ts';

export const unauthorized = () =>
  new Rejection(401, 'UNAUTHORIZED', 'Send a valid token as "Authorization: Bearer TOKEN".');

export const forbidden = (message = 'Your token does not allow this.') => new Rejection(403, 'FORBIDDEN', message);

export const notFound = (message = 'There is nothing here.') => new Rejection(404, 'NOT_FOUND', message);

export const invalidBody = (message: string) => new Rejection(422, 'INVALID_BODY', message);
