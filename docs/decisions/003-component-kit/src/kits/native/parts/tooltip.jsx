// The popover attribute as a tooltip, shown on focus and hover; placed under the button by CSS.
export default function TooltipPart() {
  const show = () => document.getElementById('native-tip')?.showPopover();
  const hide = () => document.getElementById('native-tip')?.hidePopover();
  return (
    <section className="part">
      <h2>Tooltip</h2>
      <button
        type="button"
        className="tip-anchor"
        aria-describedby="native-tip"
        onFocus={show}
        onBlur={hide}
        onMouseEnter={show}
        onMouseLeave={hide}
      >
        Zoom in
      </button>
      <div id="native-tip" popover="manual" role="tooltip" className="tip">
        Zoom in (+)
      </div>
    </section>
  );
}
