import { AppError, toProblem } from './errors.ts';
import { logger } from '../logger.ts';

export const invalidTokenHeaders = { 'WWW-Authenticate': 'Bearer error="invalid_token"' };

/** A problem+json response for an AppError; anything else is logged and answered as a masked 500. */
export function problemResponse(err: unknown, requestId: string, extraHeaders: Record<string, string> = {}): Response {
  let appError: AppError;
  if (err instanceof AppError) {
    appError = err;
  } else {
    logger.error({ err, requestId }, 'unexpected error');
    appError = new AppError('internal_error', 'Something went wrong on our side; the request id helps us find it');
  }
  const headers: Record<string, string> = {
    'Content-Type': 'application/problem+json',
    'X-Request-Id': requestId,
    ...extraHeaders,
    ...(appError.code === 'invalid_token' ? invalidTokenHeaders : {}),
    ...appError.headers,
  };
  return new Response(JSON.stringify(toProblem(appError, requestId)), { status: appError.status, headers });
}
