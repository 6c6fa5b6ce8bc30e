import { Button, Tooltip, TooltipTrigger } from 'react-aria-components';

export default function TooltipPart() {
  return (
    <section className="part">
      <h2>Tooltip</h2>
      <TooltipTrigger delay={300}>
        <Button>Zoom in</Button>
        <Tooltip placement="bottom" offset={6}>
          Zoom in (+)
        </Tooltip>
      </TooltipTrigger>
    </section>
  );
}
