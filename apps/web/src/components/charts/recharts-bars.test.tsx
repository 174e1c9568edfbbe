import { act, fireEvent, render } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import RechartsBars from './recharts-bars';

const points = [
  { label: '11/01', value: 10 },
  { label: '11/02', value: 20 },
  { label: '11/03', value: 30 },
  { label: '11/04', value: 40 },
];

/** The tooltip's label as recharts shows it (the keyboard layer moves the tooltip). */
const tooltipLabel = (container: HTMLElement) => container.querySelector('.recharts-tooltip-label')?.textContent ?? null;

describe('the chart keyboard layer', () => {
  it('moves with ← →, and Home and End jump to the first and last bar', async () => {
    const { container } = render(<RechartsBars points={points} metric="count" name="日別の検索回数" initialDimension={{ width: 400, height: 200 }} />);
    const surface = await new Promise<HTMLElement>((resolve) => {
      const find = () => {
        const el = container.querySelector<HTMLElement>('[tabindex="0"]');
        if (el) resolve(el);
        else setTimeout(find, 10);
      };
      find();
    });
    act(() => surface.focus());
    expect(tooltipLabel(container)).toBe('11/01');
    fireEvent.keyDown(surface, { key: 'ArrowRight' });
    expect(tooltipLabel(container)).toBe('11/02');
    const end = fireEvent.keyDown(surface, { key: 'End' });
    expect(end).toBe(false); // handled: the page does not scroll to its end
    expect(tooltipLabel(container)).toBe('11/04');
    fireEvent.keyDown(surface, { key: 'ArrowLeft' });
    expect(tooltipLabel(container)).toBe('11/03');
    fireEvent.keyDown(surface, { key: 'Home' });
    expect(tooltipLabel(container)).toBe('11/01');
    fireEvent.keyDown(surface, { key: 'End' });
    expect(tooltipLabel(container)).toBe('11/04');
  });
});
