// Registry facts for each candidate: version, licence, engines, React peer range, direct
// dependencies, last release and stable releases in the past 365 days.
// Usage: node scripts/fit.mjs   (asks the npm registry through the npm client)
import { execFileSync } from 'node:child_process';

const PACKAGES = [
  'react-aria-components',
  'react-aria',
  '@internationalized/date',
  '@react-aria/optimize-locales-plugin',
  'radix-ui',
  'react-day-picker',
  'cmdk',
  '@mantine/core',
  '@mantine/dates',
  '@mantine/notifications',
  'dayjs',
];

const view = (name, fields) =>
  JSON.parse(execFileSync('npm', ['view', name, ...fields, '--json'], { encoding: 'utf8' }));

const now = Date.now();
const rows = [];
for (const name of PACKAGES) {
  const info = view(name, ['version', 'license', 'engines', 'peerDependencies', 'dependencies']);
  const time = view(name, ['time']);
  const stable = Object.entries(time)
    .filter(([v]) => /^\d+\.\d+\.\d+$/.test(v))
    .map(([v, t]) => [v, Date.parse(t)]);
  const lastYear = stable.filter(([, t]) => now - t < 365 * 864e5).length;
  rows.push({
    name,
    version: info.version,
    released: time[info.version]?.slice(0, 10),
    stableReleasesPast365Days: lastYear,
    license: info.license ?? '(none in package.json)',
    engines: info.engines ? JSON.stringify(info.engines) : '-',
    react: info.peerDependencies?.react ?? '-',
    dependencies: Object.keys(info.dependencies ?? {}).length,
    directDeps: Object.keys(info.dependencies ?? {})
      .filter((d) => !d.startsWith('@radix-ui/'))
      .join(' '),
  });
}
for (const r of rows) console.log(JSON.stringify(r));
