import { useState } from 'react';
import { Button, Menu, MenuItem, MenuTrigger, Popover } from 'react-aria-components';

export default function MenuPart() {
  const [result, setResult] = useState('');
  return (
    <section className="part">
      <h2>Menu</h2>
      <MenuTrigger>
        <Button>Actions</Button>
        <Popover>
          <Menu onAction={(key) => setResult(String(key))}>
            <MenuItem id="duplicate">Duplicate</MenuItem>
            <MenuItem id="export">Export CSV</MenuItem>
            <MenuItem id="delete">Delete</MenuItem>
          </Menu>
        </Popover>
      </MenuTrigger>
      <output data-testid="menu-result">{result}</output>
    </section>
  );
}
