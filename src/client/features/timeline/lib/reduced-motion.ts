/**
 * Whether the user asked the system for reduced motion (then bars change colour without an
 * animation); false where matchMedia does not exist (tests).
 */
export function prefersReducedMotion(): boolean {
  return typeof window.matchMedia === 'function'
    ? window.matchMedia('(prefers-reduced-motion: reduce)').matches
    : false;
}
