/**
 * Typed call of the daily reconciliation report. PLANNED in the API document (contract may
 * change); a server without it answers 404, reported as "not offered by this server".
 */
import type { ReconciliationReport } from '../contract/reconciliation.js';
import type { ApiClient, ApiResponse } from '../core/http/types.js';
import { isRouteMissing, notOffered } from './not-offered.js';

export const RECONCILIATION_NOT_OFFERED =
  'reconciliation is not offered by this server (planned feature; start the sandbox with --enable-planned)';

export async function getReconciliation(
  client: ApiClient,
  date: string,
  options: { signal?: AbortSignal } = {},
): Promise<ApiResponse<ReconciliationReport>> {
  try {
    return await client.request<ReconciliationReport>({
      method: 'GET',
      path: `/reconciliation/${encodeURIComponent(date)}`,
      endpoint: 'getReconciliation',
      signal: options.signal,
    });
  } catch (error) {
    if (isRouteMissing(error)) {
      throw notOffered(
        error,
        RECONCILIATION_NOT_OFFERED,
        'the report is a planned endpoint of the API document; against a real server, ask the provider whether it is available yet',
      );
    }
    throw error;
  }
}
