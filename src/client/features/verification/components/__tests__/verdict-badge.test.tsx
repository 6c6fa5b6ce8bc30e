import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { VERDICTS, VERDICT_WORDS } from '#domain/verdict.ts';
import '#client/testing/render.tsx';
import { VerdictBadge, VerdictMeanings } from '../verdict-badge.tsx';
import { VerdictCounts } from '../verdict-counts.tsx';
import { countVerdicts } from '../../lib/verdict-counts.ts';

describe('VerdictBadge', () => {
  it('names the verdict in words, its meaning on the pointer, its icon hidden and in its colour', () => {
    const { container } = render(<VerdictBadge verdict="notFollowing" />);
    const badge = container.querySelector('.verdict-badge');
    expect(badge?.textContent).toBe('Not following');
    expect(badge?.getAttribute('title')).toBe(VERDICT_WORDS.notFollowing.meaning);
    const icon = container.querySelector('svg');
    expect(icon?.getAttribute('aria-hidden')).toBe('true');
    expect(icon?.getAttribute('style')).toContain('var(--verdict-notFollowing)');
  });

  it('gives each verdict an icon of its own shape, so a badge reads without colour', () => {
    const shapes = VERDICTS.map((verdict) => {
      const { container, unmount } = render(<VerdictBadge verdict={verdict} />);
      const shape = container.querySelector('svg')?.innerHTML ?? '';
      unmount();
      return shape;
    });
    expect(new Set(shapes).size).toBe(VERDICTS.length);
  });

  it('lists what the verdicts shown mean', () => {
    render(<VerdictMeanings verdicts={['delivered', 'noData']} />);
    const terms = screen.getAllByRole('term').map((term) => term.textContent);
    expect(terms).toEqual(['Delivered', 'No data']);
    expect(screen.getAllByRole('definition').map((d) => d.textContent)).toEqual([
      VERDICT_WORDS.delivered.meaning,
      VERDICT_WORDS.noData.meaning,
    ]);
  });
});

describe('VerdictCounts', () => {
  it('counts the devices per verdict present, in the verdicts order, with a bar of their shares', () => {
    const counts = countVerdicts(['notFollowing', 'delivered', 'delivered', 'noData', 'delivered']);
    const { container } = render(<VerdictCounts counts={counts} label="Verdicts of the batch" />);
    const list = screen.getByRole('list', { name: 'Verdicts of the batch: 5 devices' });
    expect([...list.querySelectorAll('li')].map((item) => item.textContent)).toEqual([
      'Delivered: 3',
      'Not following: 1',
      'No data: 1',
    ]);
    const shares = [...container.querySelectorAll<HTMLElement>('.verdict-counts-bar > span')];
    expect(shares.map((share) => [share.dataset.verdict, share.style.flexGrow])).toEqual([
      ['delivered', '3'],
      ['notFollowing', '1'],
      ['noData', '1'],
    ]);
  });

  it('says when there are no verdicts yet', () => {
    render(<VerdictCounts counts={countVerdicts([])} label="Verdicts" />);
    expect(screen.getByText(/No verdicts yet: a verdict comes a minute/)).toBeTruthy();
    expect(screen.queryByRole('list')).toBeNull();
  });
});
