// React Aria Components: no provider is needed at the root (the I18nProvider that picks the date
// order sits around the date field; the toast region sits in the toast part).
import parts from 'virtual:parts';
import './rac.css';

export default function Page() {
  return (
    <main>
      <h1>Kit probe: React Aria Components</h1>
      {parts.map(([name, Part]) => (
        <Part key={name} />
      ))}
    </main>
  );
}
