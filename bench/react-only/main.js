/* global document */
/**
 * The page-load reference: React 19 + react-dom rendering a heading, a paragraph and a
 * small form, nothing else. The sign-in page's LCP is judged against this page's.
 */
import { createElement as h } from 'react';
import { createRoot } from 'react-dom/client';

function Page() {
  return h(
    'main',
    { style: { maxWidth: '24rem', margin: '4rem auto', fontFamily: 'system-ui, sans-serif' } },
    h('h1', null, 'Sign in to powerdeck'),
    h('p', null, 'Use the client ID and secret your upstream operator issued for this region.'),
    h(
      'form',
      null,
      h('label', null, 'Client ID ', h('input', { name: 'clientId' })),
      h('button', { type: 'submit' }, 'Sign in'),
    ),
  );
}

const root = document.getElementById('root');
if (root) createRoot(root).render(h(Page));
