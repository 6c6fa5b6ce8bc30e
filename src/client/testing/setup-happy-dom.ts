/**
 * happy-dom makes `window.Document` a subclass bound to the window, while `document` is built from
 * the class it extends, so `document instanceof window.Document` is false. React Aria checks
 * exactly that before it trusts `document.activeElement` (whether focus is inside a dialog), so
 * in tests it would pull focus away from an `autoFocus` element. Browsers answer true; so does
 * the test document after this.
 */
const BoundDocument = window.Document;
const BaseDocument: unknown = Object.getPrototypeOf(BoundDocument);
if (!(document instanceof BoundDocument) && typeof BaseDocument === 'function')
  Object.defineProperty(BoundDocument, Symbol.hasInstance, {
    value: (value: unknown) => value instanceof BaseDocument,
  });

/**
 * happy-dom fires `selectionchange` synchronously on every `Selection.collapse`, even when the
 * selection does not move; React Aria's date segments collapse the selection on
 * `selectionchange`, so the two call each other until the stack overflows. Browsers fire the
 * event only when the selection changes (and later, as a task): collapsing onto the place it
 * already is does nothing here either.
 */
const { collapse } = window.Selection.prototype;
window.Selection.prototype.collapse = function (node: Node | null, offset = 0) {
  if (this.isCollapsed && this.anchorNode === node && this.anchorOffset === offset) return;
  collapse.call(this, node, offset);
};
