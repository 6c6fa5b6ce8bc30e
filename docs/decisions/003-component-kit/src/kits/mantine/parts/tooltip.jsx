import { Button, Tooltip } from '@mantine/core';
import '@mantine/core/styles/Tooltip.css';
import '@mantine/core/styles/Button.css';
import '@mantine/core/styles/UnstyledButton.css';

export default function TooltipPart() {
  return (
    <section className="part">
      <h2>Tooltip</h2>
      <Tooltip
        label="Zoom in (+)"
        position="bottom"
        offset={6}
        openDelay={300}
        events={{ hover: true, focus: true, touch: false }}
      >
        <Button>Zoom in</Button>
      </Tooltip>
    </section>
  );
}
