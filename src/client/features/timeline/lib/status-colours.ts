/** Status colours of the bars; text colours keep at least 4.5:1 contrast on their fill. */
export const STATUS_COLOURS = {
  received: { fill: '#1d4ed8', text: '#ffffff' },
  executing: { fill: '#b45309', text: '#ffffff' },
  completed: { fill: '#047857', text: '#ffffff' },
  cancelled: { fill: '#d1d5db', text: '#1f2937' },
} as const;
