import tokensCss from '../styles/tokens.css?raw';

/**
 * Puts `styles/tokens.css` into the test document, as `main.tsx` does in the browser, so code that
 * reads design tokens (`readDesignTokens`, `useDesignTokens`) finds them; returns the remover.
 */
export function installDesignTokens(): () => void {
  const style = document.createElement('style');
  style.textContent = tokensCss;
  document.head.append(style);
  return () => style.remove();
}
