import { describe, expect, it } from 'vitest';
import { auditSearchParams, DEFAULT_AUDIT_SEARCH, parseAuditSearch } from '../audit-search.ts';

describe('audit search params', () => {
  it('reads the filters of a shared link and writes them back the same', () => {
    const query = 'person=u-1&action=cancel&from=2026-11-20&to=2026-11-25';
    const search = parseAuditSearch(new URLSearchParams(query));
    expect(search).toEqual({
      person: 'u-1',
      action: 'cancel',
      from: '2026-11-20',
      to: '2026-11-25',
    });
    expect(auditSearchParams(search).toString()).toBe(query);
  });

  it('takes a stale or hand-edited value as no filter, and leaves empty ones out', () => {
    expect(
      parseAuditSearch(new URLSearchParams('action=delete&from=yesterday&to=2026-11-25')),
    ).toEqual({ ...DEFAULT_AUDIT_SEARCH, to: '2026-11-25' });
    expect(auditSearchParams(DEFAULT_AUDIT_SEARCH).toString()).toBe('');
  });
});
