import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { Role } from '#domain/roles.ts';
import { json, problem, stubFetch } from '../../testing/fake-fetch.ts';
import { testFleetJob } from '../../testing/fleet-jobs.ts';
import { companySession } from '../../testing/sessions.ts';
import { renderApp } from '../../testing/render.tsx';

const JOB = testFleetJob();

/** A company sign-in with `role`, one running fleet job and no bound site. */
function signedInAs(role: Role) {
  stubFetch((request) => {
    const route = `${request.method} ${request.path}`;
    if (route === 'GET /api/session') return json(200, companySession(role));
    if (route === 'GET /api/sites') return json(200, { sites: [] });
    if (route === 'GET /api/fleet-jobs') return json(200, { jobs: [JOB] });
    if (route === `GET /api/fleet-jobs/${JOB.jobId}`) return json(200, JOB);
    return problem(404, 'not_found', `no route ${route}`);
  });
}

const VIEWER_WORDS = /You are signed in as a viewer; only a dispatcher or an administrator may/;

describe('Fleet jobs by role', () => {
  it('offers a viewer no new job, no plan and no pause or cancel, and says why', async () => {
    signedInAs('viewer');
    renderApp('/fleet-jobs');
    expect(await screen.findByText(VIEWER_WORDS)).toBeTruthy();
    expect(screen.queryByRole('link', { name: 'New fleet job' })).toBeNull();
    expect(screen.queryByRole('link', { name: 'Send a dispatch plan' })).toBeNull();
  });

  it('keeps a viewer who opens a job to reading it', async () => {
    signedInAs('viewer');
    renderApp(`/fleet-jobs/${JOB.jobId}`);
    expect(await screen.findByRole('button', { name: 'Download outcomes (CSV)' })).toBeTruthy();
    expect(screen.getByText(VIEWER_WORDS)).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Pause' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Cancel job…' })).toBeNull();
  });

  it('shows a viewer who opens the plan page why instead of the upload', async () => {
    signedInAs('viewer');
    renderApp('/fleet-jobs/plan');
    expect(await screen.findByText(VIEWER_WORDS)).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Choose a plan file…' })).toBeNull();
  });

  it('offers a dispatcher all of it', async () => {
    signedInAs('dispatcher');
    renderApp(`/fleet-jobs/${JOB.jobId}`);
    expect(await screen.findByRole('button', { name: 'Pause' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Cancel job…' })).toBeTruthy();
    expect(screen.queryByText(VIEWER_WORDS)).toBeNull();
  });
});
