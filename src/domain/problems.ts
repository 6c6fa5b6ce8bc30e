/**
 * The product's problem codes (RFC 9457 `application/problem+json`, member `code`), each with its
 * HTTP status and what it means (docs/architecture.md, BFF surface). Every answer of the BFF's
 * API, a vendor refusal included, carries one of these: the upstream adapter turns each vendor
 * answer into a product problem (docs/decisions/006-vendor-adapter-and-product-api.md, section 2)
 * and keeps the vendor's own body in `upstream`, for support. The client words each code for
 * operators; `detail` is written for operators too.
 *
 * `status` lists every status a code is answered with; `'5xx'` means the upstream's own 5xx
 * status, passed on.
 */
export const BFF_PROBLEM_CODES = {
  invalid_request: {
    status: [400],
    meaning: 'A path, query or body failed its schema; `detail` names each field, never a value.',
  },
  invalid_json: { status: [400], meaning: 'The request body is not JSON.' },
  invalid_path: {
    status: [400],
    meaning: 'The path holds an encoded slash or dot, a backslash, NUL or a dot segment.',
  },
  invalid_idempotency_key: {
    status: [400],
    meaning: 'The Idempotency-Key header is not 1-255 printable characters.',
  },
  invalid_undo_of: {
    status: [400],
    meaning:
      "The Powerdeck-Undo-Of header is malformed, or names an Idempotency-Key that is not among the signed-in operator's recorded changes (unknown and another operator's alike); nothing was sent.",
  },
  other_region: {
    status: [409],
    meaning:
      'The overview of a region other than the signed-in one was asked for; a session acts in one region.',
  },
  not_signed_in: {
    status: [401],
    meaning:
      'No live session (none, expired, signed out), or the upstream no longer accepts its client credentials.',
  },
  invalid_credentials: {
    status: [401],
    meaning: 'Sign-in refused: the token endpoint did not accept the client ID or secret.',
  },
  forbidden_role: {
    status: [403],
    meaning:
      "Company sign-in: the operator's role may not do this (a viewer changing something, a dispatcher binding a site or holding connections); nothing was sent.",
  },
  credentials_sign_in_off: {
    status: [403],
    meaning:
      'Company sign-in is configured, so the credentials form is off; operators sign in with their company account.',
  },
  no_connection: {
    status: [503, 404],
    meaning:
      "Company sign-in: no administrator has registered the region's vendor connection yet (404 when checking it), or its token endpoint no longer accepts it; nothing was sent.",
  },
  connection_refused: {
    status: [502, 422],
    meaning:
      "Checking a vendor connection: the region's token endpoint did not accept its client ID or secret (502 for the saved connection; 422 for new credentials, which were not saved).",
  },
  connection_unchecked: {
    status: [503],
    meaning:
      'Registering a vendor connection: the token endpoint failed or could not be reached, so the credentials could not be checked and were not saved; sending them again with `saveUnchecked` saves them unchecked.',
  },
  csrf: {
    status: [403],
    meaning: 'A state-changing call without `X-CSRF: 1` and the page origin, or from another site.',
  },
  capability_out_of_range: {
    status: [422],
    meaning:
      "A value of the power control is outside the device's range; `details` names the value and the range (worked out by the BFF from the device's capabilities, since the vendor does not say).",
  },
  control_not_supported: {
    status: [422],
    meaning:
      'The device does not support a control of the command; `details` names it when the BFF can tell which.',
  },
  window_overlap: {
    status: [409],
    meaning:
      'The effective window overlaps another command of the device that is waiting or running; nothing was sent.',
  },
  window_ended: {
    status: [422],
    meaning:
      'The effective window has already ended (on the upstream clock), so the change was refused before it was sent or queued, or a queued change whose window ended while it waited was not sent.',
  },
  not_cancellable: {
    status: [409],
    meaning: 'The command has completed or was cancelled already, so it cannot be cancelled.',
  },
  batch_not_cancellable: {
    status: [409],
    meaning: 'Every command of the batch has finished, so there is nothing left to cancel.',
  },
  site_bound_elsewhere: {
    status: [409],
    meaning:
      'Binding: the site is bound to another partner account; a site belongs to one account at a time.',
  },
  unknown_or_unbound: {
    status: [404],
    meaning:
      'The site, device, command or batch is not found, or its site is not bound to this account (the vendor does not tell the two apart). A batch refused for its devices names them in `details.deviceIds`.',
  },
  device_rate_limited: {
    status: [429],
    meaning:
      "The device's calls are used up for the moment (the vendor allows a few per device per minute); `Retry-After` and `details.retryAt` say when it takes the next one.",
  },
  upstream_refused_request: {
    status: [502],
    meaning:
      "The vendor's schema refused what powerdeck sent: a defect of powerdeck, reported with the vendor's words in `upstream`.",
  },
  upstream_refused: {
    status: [403, 409, 422],
    meaning:
      "The vendor refused the change for a reason the product has no code for (its status is passed on); the vendor's words are in `upstream`.",
  },
  not_found: { status: [404], meaning: 'No such API route.' },
  method_not_allowed: {
    status: [405],
    meaning: 'The path exists for other methods; `Allow` lists them.',
  },
  idempotency_in_progress: {
    status: [409],
    meaning:
      'A call with this Idempotency-Key is still under way, or held by another instance; retry after `Retry-After`.',
  },
  window_unsettled: {
    status: [409],
    meaning:
      'An earlier submission on the same device and window is under way or has an unknown outcome not yet checkable; nothing was sent.',
  },
  not_carried_out: {
    status: [409],
    meaning:
      'A submission whose outcome was unknown was not found in the command history: the upstream never carried it out.',
  },
  budget_too_tight: {
    status: [409],
    meaning:
      "A replace or an undo whose last call the device's budget of upstream calls (the region's calls per device and rolling minute, the vendor's 2 by default) would send later than the lead time before the new window starts; nothing was sent; `details.earliestStart` is the earliest window start the budget allows.",
  },
  change_would_wait: {
    status: [409],
    meaning:
      "A replace or an undo sent with `ifLater=refuse` whose first call the device's budget of upstream calls would queue; nothing was sent or queued; `details.goesAt` is when it would go.",
  },
  device_changed: {
    status: [409],
    meaning:
      "The change was made against an older view of the device (`Powerdeck-Device-Version`), and another person's change (a new command or a cancellation) landed on it since; nothing was sent; `details.changes` names what changed.",
  },
  change_already_queued: {
    status: [409],
    meaning:
      'A change of a command (a cancel, a replace, an undo) while a queued change will cancel that command already, or a cancel of a batch while its batch cancel waits: a command, and a batch, has at most one queued change, and the later one would be refused or find nothing to cancel; nothing was sent or queued; `details` names the command or the batch, the queued change and when it goes (withdraw it first).',
  },
  change_incomplete: {
    status: [409],
    meaning:
      "A change of two steps (a replace, the undo of one) whose first step was sent and whose second was refused: the old window is cancelled and the new one not sent; `details.change` is the change, and the second step's refusal is in its answer.",
  },
  change_not_withdrawable: {
    status: [409],
    meaning:
      'A queued change that can no longer be withdrawn: it has started sending, was sent, failed or was withdrawn already; `details.change` is where it stands.',
  },
  change_not_found: {
    status: [404],
    meaning: "No queued change with this ID among the signed-in account's changes.",
  },
  body_too_large: { status: [413], meaning: 'The request body is over 64 KiB.' },
  unsupported_media_type: { status: [415], meaning: 'The request body is not application/json.' },
  idempotency_key_reused: {
    status: [422],
    meaning: 'This Idempotency-Key was used before for a different request.',
  },
  token_invalid: {
    status: [401],
    meaning:
      'The `Authorization: Bearer` token is not one powerdeck made (mistyped, cut short, or deleted).',
  },
  token_expired: {
    status: [401],
    meaning: 'The API token is past its expiry; an administrator makes a new one.',
  },
  token_revoked: {
    status: [401],
    meaning: 'The API token was revoked by an administrator.',
  },
  token_not_accepted: {
    status: [403],
    meaning:
      'The route is for people signed in at powerdeck (sign-in, live updates, notifications, connections, tokens): it takes no API token.',
  },
  token_outside_sites: {
    status: [403],
    meaning:
      "The API token is limited to some sites, and the route's device or site is on none of them, or the route acts on the whole account.",
  },
  too_many_token_requests: {
    status: [429],
    meaning:
      "The API token's requests are over its limit per minute; `Retry-After` says when to try again.",
  },
  too_many_sign_ins: {
    status: [429],
    meaning: 'Sign-in attempts from this address, or failures for this client ID, over the limit.',
  },
  internal_error: {
    status: [500],
    meaning: 'An unexpected failure in the BFF; details are in its log under the request ID.',
  },
  upstream_error: {
    status: [502, '5xx'],
    meaning:
      'The upstream failed without a readable error, redirected, or answered a body the BFF could not read.',
  },
  upstream_unreachable: {
    status: [502],
    meaning: 'The upstream could not be reached (connection refused or reset).',
  },
  upstream_body_too_large: {
    status: [502],
    meaning: 'The upstream answered a body over the size the BFF accepts.',
  },
  upstream_content_type: {
    status: [502],
    meaning: 'The upstream answered a success with something other than JSON.',
  },
  token_endpoint_error: {
    status: [502, 429, 503],
    meaning:
      'The token endpoint failed (an error status) or redirected, and no usable token was cached; a retry may work.',
  },
  token_endpoint_unreachable: {
    status: [502],
    meaning:
      'The token endpoint could not be reached (connection refused or reset), so nothing was sent with a token.',
  },
  token_endpoint_timeout: {
    status: [504],
    meaning:
      'The token endpoint did not answer in time, so nothing was sent with a token; sign-in or the call can be tried again.',
  },
  token_unreadable: {
    status: [502],
    meaning:
      'The token endpoint answered 200 with a token the BFF cannot use (no access_token, a token_type other than Bearer, an expires_in that is not a number of seconds); retries will not help until the authorization server changes. The log names the field.',
  },
  outcome_unknown: {
    status: [502, 504, '5xx'],
    meaning:
      'A state-changing call may or may not have been carried out (timeout, reset, upstream 5xx, unreadable acceptance); a retry with the same Idempotency-Key gets the settled answer.',
  },
  upstream_circuit_open: {
    status: [503],
    meaning:
      "The region's upstream failed several times in a row, so calls fail fast for a few seconds; nothing was sent.",
  },
  reconciliation_pending: {
    status: [429, 503],
    meaning:
      "An unknown outcome on the same device and window could not be checked in the command history yet (429: the device's calls are used up until `Retry-After`); nothing was sent.",
  },
  not_ready: { status: [503], meaning: '`/readyz`: the database is not reachable.' },
  webhook_limit_reached: {
    status: [409],
    meaning: 'The account has as many webhook endpoints as it may (100); delete one first.',
  },
  webhook_address_refused: {
    status: [422],
    meaning:
      "A webhook's address is http:// or a private, loopback or link-local address, which only a BFF that allows private addresses takes (`WEBHOOKS_ALLOW_PRIVATE_ADDRESSES`).",
  },
  webhook_endpoint_disabled: {
    status: [409],
    meaning:
      'The webhook endpoint is disabled: enable it before sending it a test or a redelivery.',
  },
  fleet_selection_refused: {
    status: [422],
    meaning:
      "A fleet job's selection names sites or devices outside the bound sites, matches no device, or holds a device whose capability range refuses the command; `detail` names them; nothing was created.",
  },
  fleet_job_not_found: {
    status: [404],
    meaning: "No fleet job with this ID among the signed-in client's jobs.",
  },
  fleet_job_state: {
    status: [409],
    meaning:
      'The fleet job is not in a state that allows this action (e.g. resuming a finished job).',
  },
  fleet_jobs_starting: {
    status: [503],
    meaning:
      'The fleet job queue has not started yet: the BFF serves before it, and retries a start that failed. Creating, resuming or cancelling a job waits for it (listing and reading jobs do not); nothing was created or changed; retry after `Retry-After`.',
  },
  upstream_timeout: {
    status: [504],
    meaning:
      'The upstream did not answer in time; for a read, nothing changed; a state-changing call answers `outcome_unknown` instead.',
  },
} as const satisfies Record<string, { status: readonly (number | '5xx')[]; meaning: string }>;

/** A code the BFF answers with itself; see {@link BFF_PROBLEM_CODES}. */
export type BffProblemCode = keyof typeof BFF_PROBLEM_CODES;

/** True when `code` is one of the product's problem codes. */
export function isBffProblemCode(code: string): code is BffProblemCode {
  return Object.hasOwn(BFF_PROBLEM_CODES, code);
}
