import type { ApiError } from './api-error.ts';

/** Why a read failed, in an operator's words from the HTTP status alone (a refused change is worded by its screen). */
export function readFailureWords(error: ApiError): string {
  if (error.status === 0) return 'the powerdeck server did not answer (check the connection)';
  if (error.status === 429) return "the vendor's service asked for fewer requests for a moment";
  if (error.status === 502 || error.status === 503 || error.status === 504)
    return "the vendor's service is not answering";
  if (error.status >= 500) return 'the powerdeck server ran into a problem';
  return `the server refused the request (HTTP ${error.status})`;
}
