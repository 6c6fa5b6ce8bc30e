import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
// Vite resolves a path from / at the project's root: the SPA's document.
import indexHtml from '/index.html?raw';
import { json, problem, stubFetch } from '../../testing/fake-fetch.ts';
import { renderApp } from '../../testing/render.tsx';

/**
 * The sign-in page's lead paragraph, its largest text, waits on the sign-in mode. The page's
 * document asks for the mode itself, so the answer is on its way while the scripts load; the
 * browser hands a preloaded answer only to a request of the same URL and credentials mode.
 */
describe('the sign-in mode preloaded with the page', () => {
  it('is the request the sign-in page makes for its words', async () => {
    const requests = stubFetch((request) =>
      `${request.method} ${request.path}` === 'GET /api/session/mode'
        ? json(200, { mode: 'credentials' })
        : problem(401, 'not_signed_in', 'Sign in first.'),
    );
    renderApp('/sign-in');
    expect(await screen.findByText(/Use the client ID and secret/)).toBeTruthy();

    // Inert: a template's content loads nothing.
    const page = document.createElement('template');
    page.innerHTML = indexHtml;
    const preloads = [...page.content.querySelectorAll('link[rel="preload"][as="fetch"]')].map(
      (link) => ({
        href: link.getAttribute('href'),
        // A bare `crossorigin` is `anonymous`: same-origin credentials, as the page's request.
        credentials:
          link.getAttribute('crossorigin') === '' ? 'anonymous' : link.getAttribute('crossorigin'),
      }),
    );
    const modeRequests = requests.filter((r) => r.path === '/api/session/mode');
    expect(modeRequests).toHaveLength(1);
    expect(modeRequests[0]?.method).toBe('GET');
    expect(modeRequests[0]?.search.toString()).toBe('');
    expect(preloads).toContainEqual({ href: '/api/session/mode', credentials: 'anonymous' });
  });
});
