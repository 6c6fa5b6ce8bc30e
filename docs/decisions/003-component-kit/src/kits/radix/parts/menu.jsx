import { useState } from 'react';
import { DropdownMenu } from 'radix-ui';

export default function MenuPart() {
  const [result, setResult] = useState('');
  return (
    <section className="part">
      <h2>Menu</h2>
      <DropdownMenu.Root>
        <DropdownMenu.Trigger>Actions</DropdownMenu.Trigger>
        <DropdownMenu.Portal>
          <DropdownMenu.Content className="menu" sideOffset={4}>
            <DropdownMenu.Item onSelect={() => setResult('duplicate')}>Duplicate</DropdownMenu.Item>
            <DropdownMenu.Item onSelect={() => setResult('export')}>Export CSV</DropdownMenu.Item>
            <DropdownMenu.Item onSelect={() => setResult('delete')}>Delete</DropdownMenu.Item>
          </DropdownMenu.Content>
        </DropdownMenu.Portal>
      </DropdownMenu.Root>
      <output data-testid="menu-result">{result}</output>
    </section>
  );
}
