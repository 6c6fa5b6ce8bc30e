import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeCommandBff } from '#client/testing/fake-command-bff.ts';
import { renderApp } from '#client/testing/render.tsx';
import { submitFirstRowCommand } from '#client/testing/timeline-steps.ts';
import { harbourPlant } from '#client/testing/test-devices.ts';

/**
 * The timeline's command form during an outage (docs/architecture.md, Ledger): a submission whose
 * outcome is open says so and keeps checking as the same submission, never shown as refused, and
 * settles by itself once the service answers.
 */
describe("the timeline's command form during an outage", () => {
  it('says the outcome is not known yet while it checks, then closes on the command, sent once', async () => {
    const { requests, commands } = fakeCommandBff({
      sites: [harbourPlant()],
      nowIso: new Date().toISOString(),
      lostSubmissions: 1,
    });
    const user = userEvent.setup();
    renderApp('/timeline');
    const dialog = await submitFirstRowCommand(user);

    const checking = await within(dialog).findByText(/Outcome not known yet/);
    expect(checking.closest('[role="status"]')).toBeTruthy();
    expect(within(dialog).queryByRole('alert')).toBeNull();
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'New command' })).toBeNull(), {
      timeout: 5_000,
    });
    const posts = requests.filter((r) => r.method === 'POST');
    expect(posts).toHaveLength(2);
    // The same submission both times: one intent, one key, one command.
    expect(posts[1]?.headers.get('idempotency-key')).toBe(posts[0]?.headers.get('idempotency-key'));
    expect(commands).toHaveLength(1);
  });
});
