import { Tooltip } from 'radix-ui';

export default function TooltipPart() {
  return (
    <section className="part">
      <h2>Tooltip</h2>
      <Tooltip.Provider delayDuration={300}>
        <Tooltip.Root>
          <Tooltip.Trigger>Zoom in</Tooltip.Trigger>
          <Tooltip.Portal>
            <Tooltip.Content className="tip" side="bottom" sideOffset={6}>
              Zoom in (+)
            </Tooltip.Content>
          </Tooltip.Portal>
        </Tooltip.Root>
      </Tooltip.Provider>
    </section>
  );
}
