import { act, render, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { installDesignTokens } from '#client/testing/design-tokens.ts';
import { stubElementWidth } from '#client/testing/element-width.ts';
import { json, problem, stubFetch } from '#client/testing/fake-fetch.ts';
import { renderWithProviders } from '#client/testing/render.tsx';
import { EVENT_WINDOW, eventVerdictsAnswer } from '#client/testing/verdict-records.ts';
import { emptyVerdictCounts } from '#domain/verdict-answer.ts';
import { createPushApplier } from '#client/app/push-updates.ts';
import { useBatchVerdicts } from '../../api/get-event-verdicts.ts';
import { EventDelivery, verdictColumns } from '../event-delivery.tsx';

const PATH = '/api/batches/batch_1/verdicts';

/** A fake BFF answering the batch's verdicts with what `answer` gives at each read. */
function fakeVerdicts(answer: () => Response | Promise<Response>) {
  return stubFetch((request) =>
    request.path === PATH ? answer() : problem(404, 'not_found', 'No such route.'),
  );
}

function BatchDelivery({ windowEndMs }: { windowEndMs: number }) {
  return (
    <EventDelivery
      query={useBatchVerdicts('batch_1')}
      what="batch"
      timeZone="Europe/Berlin"
      windowEndMs={windowEndMs}
    />
  );
}

/** The batch's delivery with its window ended, or ending `endsInMs` from now. */
const show = (endsInMs?: number) =>
  renderWithProviders(
    <BatchDelivery
      windowEndMs={
        endsInMs === undefined ? Date.parse(EVENT_WINDOW.endTime) : Date.now() + endsInMs
      }
    />,
  );
const delivery = () => screen.getByRole('region', { name: 'Delivery' });

let removeTokens = () => {};
beforeEach(() => {
  removeTokens = installDesignTokens();
  stubElementWidth(900);
});
afterEach(() => removeTokens());

describe('EventDelivery', () => {
  it('says it is loading, then shows the big figure, the counts, who still waits and the chart', async () => {
    let release: (response: Response) => void = () => {};
    fakeVerdicts(() => new Promise<Response>((resolve) => (release = resolve)));
    show();
    expect(within(delivery()).getByRole('status').textContent).toBe('Loading the verdicts…');
    await act(async () => release(json(200, eventVerdictsAnswer())));

    expect(await screen.findByText('Delivered 5.15 of 10 kWh (52%)')).toBeTruthy();
    expect(
      screen.getByText('Over the 2 devices with a verdict, commanded to discharge.'),
    ).toBeTruthy();
    const counts = screen.getByRole('list', { name: "Verdicts of the batch's devices: 2 devices" });
    expect(
      within(counts)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(['Delivered: 1', 'Not following: 1']);
    expect(screen.getByText(/waiting for its verdict/).textContent).toBe(
      '1 device waiting for its verdict: verdicts come a minute after the window ends.',
    );
    const chart = await screen.findByRole('figure', {
      name: 'Commanded against delivered power',
    });
    expect(chart.textContent).toContain('(Europe/Berlin)');
    expect(screen.getByText('What the verdicts mean')).toBeTruthy();
  });

  it('says verdicts come a minute after the window ends while none has come', async () => {
    fakeVerdicts(() =>
      json(
        200,
        eventVerdictsAnswer({
          pending: 3,
          counts: emptyVerdictCounts(),
          commandedEnergyWh: 0,
          deliveredEnergyWh: 0,
          deliveredPercent: undefined,
          curve: [],
          verdicts: [],
        }),
      ),
    );
    show();
    expect(
      (await within(delivery()).findByText(/^Verdicts come a minute after the window ends\./))
        .textContent,
    ).toBe('Verdicts come a minute after the window ends. None of its 3 devices has one yet.');
    expect(screen.queryByRole('figure')).toBeNull();
    expect(screen.queryByText(/^Delivered/)).toBeNull();
  });

  it('shows nothing before the window ends while no verdict has come', async () => {
    const requests = fakeVerdicts(() =>
      json(200, eventVerdictsAnswer({ pending: 3, verdicts: [], counts: emptyVerdictCounts() })),
    );
    show(3_600_000);
    await act(async () => {});
    expect(requests.length).toBe(1);
    expect(screen.queryByRole('region', { name: 'Delivery' })).toBeNull();
  });

  it('shows its waiting words once the window ends on a page left open', async () => {
    fakeVerdicts(() =>
      json(200, eventVerdictsAnswer({ pending: 3, verdicts: [], counts: emptyVerdictCounts() })),
    );
    show(100);
    await act(async () => {});
    expect(screen.queryByRole('region', { name: 'Delivery' })).toBeNull();
    expect(await screen.findByText(/^Verdicts come a minute after the window ends\./)).toBeTruthy();
  });

  it('shows the verdicts that came before the window ends (a cancelled device)', async () => {
    fakeVerdicts(() => json(200, eventVerdictsAnswer()));
    show(3_600_000);
    expect(await screen.findByText('Delivered 5.15 of 10 kWh (52%)')).toBeTruthy();
  });

  it('says why the verdicts could not be read, with Try again', async () => {
    let answer = () => problem(503, 'upstream_unavailable', 'The database is down.');
    fakeVerdicts(() => answer());
    show();
    const alert = await within(delivery()).findByRole('alert');
    expect(alert.textContent).toContain("Could not read the verdicts of the batch's devices.");
    answer = () => json(200, eventVerdictsAnswer());
    await act(async () => within(alert).getByRole('button', { name: 'Try again' }).click());
    expect(await screen.findByText('Delivered 5.15 of 10 kWh (52%)')).toBeTruthy();
  });

  it('reads the figures again when a device verdict is pushed', async () => {
    let answer = eventVerdictsAnswer();
    const requests = fakeVerdicts(() => json(200, answer));
    const { queryClient } = show();
    expect(await screen.findByText('Delivered 5.15 of 10 kWh (52%)')).toBeTruthy();
    answer = eventVerdictsAnswer({ pending: 0, deliveredEnergyWh: 9150, deliveredPercent: 92 });
    createPushApplier(queryClient, 0, 0).apply({
      type: 'deviceVerdictsChanged',
      data: { deviceIds: ['BAT-3'] },
      id: '5',
    });
    expect(await screen.findByText('Delivered 9.15 of 10 kWh (92%)')).toBeTruthy();
    expect(requests.length).toBe(2);
  });
});

describe('verdictColumns', () => {
  it("gives each device's verdict as a badge with its energy and share measured", () => {
    const columns = verdictColumns(eventVerdictsAnswer());
    expect(columns?.headings).toEqual(['Verdict']);
    render(
      <table>
        <tbody>
          {['BAT-1', 'BAT-2', 'BAT-3'].map((deviceId) => (
            <tr key={deviceId}>
              <th scope="row">{deviceId}</th>
              {columns?.cells(deviceId).map((cell, index) => (
                <td key={index}>{cell}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>,
    );
    expect(screen.getAllByRole('row').map((row) => row.textContent)).toEqual([
      'BAT-1Delivered4.9 kWh discharged of 5 kWh commanded (98%); 100% measured',
      'BAT-2Not following0.25 kWh discharged of 5 kWh commanded (5%); 80% measured',
      'BAT-3No verdict yet',
    ]);
    expect(verdictColumns(undefined)).toBeUndefined();
  });
});
