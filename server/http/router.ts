import { Rejection } from '../../shared/protocol/rejection.ts';
import { notFound } from './api-error.ts';

export type Params = Record<string, string>;

interface Route<H> {
  method: string;
  segments: string[];
  handler: H;
}

/**
 * Matches a method and a path against patterns like `/api/docs/:id`. `match` throws Rejection
 * 404 `NOT_FOUND` for an unknown path and 405 `METHOD_NOT_ALLOWED` for a known path with
 * another method.
 */
export class Router<H> {
  private readonly routes: Route<H>[] = [];

  add(method: string, pattern: string, handler: H): this {
    this.routes.push({ method, segments: split(pattern), handler });
    return this;
  }

  /** The route of exactly this method and path, or null (no refusal: another router may have it). */
  find(method: string, path: string): { handler: H; params: Params } | null {
    const segments = split(path);
    for (const route of this.routes) {
      const params = route.method === method ? matchSegments(route.segments, segments) : null;
      if (params) return { handler: route.handler, params };
    }
    return null;
  }

  match(method: string, path: string): { handler: H; params: Params } {
    const segments = split(path);
    const allowed: string[] = [];
    for (const route of this.routes) {
      const params = matchSegments(route.segments, segments);
      if (!params) continue;
      if (route.method === method) return { handler: route.handler, params };
      allowed.push(route.method);
    }
    if (allowed.length === 0) throw notFound();
    throw new Rejection(405, 'METHOD_NOT_ALLOWED', `Use ${allowed.join(' or ')} here.`, { allow: allowed });
  }
}

function split(path: string): string[] {
  return path.split('/').filter((segment) => segment !== '');
}

function matchSegments(pattern: string[], segments: string[]): Params | null {
  if (pattern.length !== segments.length) return null;
  const params: Params = {};
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i].startsWith(':')) {
      const value = decode(segments[i]);
      if (value === null) return null;
      params[pattern[i].slice(1)] = value;
    } else if (pattern[i] !== segments[i]) {
      return null;
    }
  }
  return params;
}

function decode(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}
