// React-only reference: the same page with native elements and no kit. Its lazy chunk is the
// baseline the kits' chunks are compared with.
import parts from 'virtual:parts';
import './native.css';

export default function Page() {
  return (
    <main>
      <h1>Kit probe: native HTML (baseline)</h1>
      {parts.map(([name, Part]) => (
        <Part key={name} />
      ))}
    </main>
  );
}
