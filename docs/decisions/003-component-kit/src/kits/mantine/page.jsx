// Mantine 9: MantineProvider must wrap everything, with its base CSS; each part imports the CSS
// files of the components it uses (importing @mantine/core/styles.css instead costs 40 KB gzip).
import { MantineProvider } from '@mantine/core';
import '@mantine/core/styles/default-css-variables.css';
import '@mantine/core/styles/global.css';
import '@mantine/core/styles/baseline.css';
import parts from 'virtual:parts';
import './mantine.css';

export default function Page() {
  return (
    <MantineProvider>
      <main>
        <h1>Kit probe: Mantine</h1>
        {parts.map(([name, Part]) => (
          <Part key={name} />
        ))}
      </main>
    </MantineProvider>
  );
}
