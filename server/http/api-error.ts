/**
 * An expected refusal of an API request. Route code throws it; the API boundary (api.ts) turns
 * it into `{"error": {"code", "message", ...details}}` with `status`.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const unauthorized = () =>
  new ApiError(401, 'UNAUTHORIZED', 'Send a valid token as "Authorization: Bearer TOKEN".');

export const forbidden = (message = 'Your token does not allow this.') => new ApiError(403, 'FORBIDDEN', message);

export const notFound = (message = 'There is nothing here.') => new ApiError(404, 'NOT_FOUND', message);

export const invalidBody = (message: string) => new ApiError(422, 'INVALID_BODY', message);
