// What every kit's page shows: one site zone that is not the browser's (the browser runs in UTC),
// and 60 devices over six sites for the combobox.
export const SITE_ZONE = 'Europe/Berlin';

const SITES = [
  'Leipzig Solar Park (PLANT-I)',
  'Hamburg Harbour Storage (PLANT-II)',
  'Munich North Battery (PLANT-III)',
  'Cologne Grid Buffer (PLANT-IV)',
  'Dresden East Storage (PLANT-V)',
  'Bremen Wind Buffer (PLANT-VI)',
];

export const DEVICES = Array.from({ length: 60 }, (_, i) => {
  const n = String(i + 1).padStart(3, '0');
  return { id: `BAT-${n}`, name: `BAT-${n} · ${SITES[i % SITES.length]}` };
});

export const TOAST_TIMEOUT_MS = 8000;
