// Radix Primitives (the radix-ui package), with react-day-picker for the calendar and cmdk for the
// combobox, which Radix does not have. Tooltip and Toast providers sit in their parts.
import parts from 'virtual:parts';
import './radix.css';

export default function Page() {
  return (
    <main>
      <h1>Kit probe: Radix Primitives</h1>
      {parts.map(([name, Part]) => (
        <Part key={name} />
      ))}
    </main>
  );
}
