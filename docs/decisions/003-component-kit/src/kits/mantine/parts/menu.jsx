import { useState } from 'react';
import { Button, Menu } from '@mantine/core';
import '@mantine/core/styles/Menu.css';
import '@mantine/core/styles/Popover.css';
import '@mantine/core/styles/Button.css';
import '@mantine/core/styles/UnstyledButton.css';

export default function MenuPart() {
  const [result, setResult] = useState('');
  return (
    <section className="part">
      <h2>Menu</h2>
      <Menu>
        <Menu.Target>
          <Button>Actions</Button>
        </Menu.Target>
        <Menu.Dropdown>
          <Menu.Item onClick={() => setResult('duplicate')}>Duplicate</Menu.Item>
          <Menu.Item onClick={() => setResult('export')}>Export CSV</Menu.Item>
          <Menu.Item onClick={() => setResult('delete')}>Delete</Menu.Item>
        </Menu.Dropdown>
      </Menu>
      <output data-testid="menu-result">{result}</output>
    </section>
  );
}
