import { ApiError } from '../../errors.js';
import type { Context } from '../../runtime/context.js';

/** An operation as `GET /config-exchange/operations/{id}` answers it. */
export interface ConfigOperation {
  readonly correlation_id: string;
  readonly status: 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';
  readonly result: Record<string, unknown> | null;
  readonly error: { code?: string; status?: number; detail?: string; errors?: unknown } | null;
}

/** How often the CLI asks how an operation is doing. */
const POLL_MS = 300;

/**
 * Queues an operation and polls it to its end; a failed or cancelled one is thrown as the daemon's
 * problem (so its exit code is that of the code and status, as for any refusal).
 */
export async function runOperation(ctx: Context, body: Record<string, unknown>): Promise<ConfigOperation> {
  const client = ctx.apiClient();
  const accepted = (await client.request({ method: 'POST', path: '/config-exchange/operations', body })).body as { correlation_id: string };
  const path = `/config-exchange/operations/${accepted.correlation_id}`;
  for (;;) {
    const operation = (await client.request({ method: 'GET', path })).body as ConfigOperation;
    if (operation.status === 'succeeded') return operation;
    if (operation.status === 'failed' || operation.status === 'cancelled') {
      const problem = operation.error ?? { code: 'cancelled', status: 409, detail: 'The operation was cancelled.' };
      throw new ApiError(problem.detail ?? `operation ${operation.status}`, {
        status: problem.status ?? 500,
        code: problem.code ?? 'internal_error',
        requestId: accepted.correlation_id,
      });
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
