/**
 * What an operator must never read on a page (docs: HELPERS standards, "a failure tells the
 * operator what to change in the product's words, never a spec section, an HTTP method, path,
 * header or field name"): each rule names what it catches.
 */
const RULES: readonly [string, RegExp][] = [
  ['an HTTP method and path', /\b(?:GET|POST|PUT|DELETE|PATCH)\s+\/\S*/g],
  ['a URL path', /(?<![\w.])\/(?:api|sites|devices|batches|fleet-jobs|_sandbox)(?:\/\S*)?/g],
  [
    'a header name',
    /\b(?:Idempotency-Key|Authorization|Content-Type|X-CSRF|Retry-After|Powerdeck-Undo-Of|Accept)\b(?=\s*[:-]|\s+header)/gi,
  ],
  ['a header name', /\b(?:Idempotency-Key|Content-Type|X-CSRF|Retry-After|Powerdeck-Undo-Of)\b/g],
  // camelCase: two or more lower-case letters, then an upper-case one inside the word
  // (powerControl, startTime, manuallyCancel, targetBatteryPowerW); units such as kW are not.
  ['a field name', /(?<![\w-])[a-z]{2,}(?:[A-Z][a-z0-9]*)+[A-Z]?(?![\w-])/g],
];

/** One technical word found in a page's visible text, with a little of its context. */
export interface TechnicalWord {
  what: string;
  text: string;
  context: string;
}

/**
 * Each technical word of `text` (a page's visible text), in order of the rules. Words inside
 * `typed` are left out: what the page shows as code for the operator to type (a plan file's
 * column names, in `<code>`), where the exact name is the point.
 */
export function technicalWords(text: string, typed: readonly string[] = []): TechnicalWord[] {
  const found: TechnicalWord[] = [];
  const seen = new Set<string>();
  for (const [what, rule] of RULES)
    for (const match of text.matchAll(rule)) {
      if (seen.has(match[0]) || typed.some((code) => code.includes(match[0]))) continue;
      seen.add(match[0]);
      const at = match.index;
      const context = text
        .slice(Math.max(0, at - 40), at + match[0].length + 40)
        .replace(/\s+/g, ' ');
      found.push({ what, text: match[0], context });
    }
  return found;
}

/** A page expression: the visible text of the page, and the texts of its `<code>` elements. */
export const VISIBLE_TEXT = `({ text: document.body.innerText,
  typed: [...document.querySelectorAll('code')].map((c) => c.textContent ?? '') })`;
