import { usageError } from '../../errors.js';

/** METHOD PATH as the override API names a route: upper-case method, the catalogue's path pattern. */
export function routeTarget(method: string, path: string): { method: string; path: string } {
  if (!/^[A-Za-z]{3,7}$/.test(method)) throw usageError(`not an HTTP method: ${method}`);
  if (!path.startsWith('/')) throw usageError(`the path must be the catalogue pattern starting with /, e.g. /runs/{run_id}, not "${path}"`);
  return { method: method.toUpperCase(), path };
}
